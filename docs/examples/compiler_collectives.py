"""Two CPU ranks (gloo) compile one function with inputs of different sizes, 8 on rank 0 and 10 on rank 1, with
compiler collectives off and on: the shapes each rank's graph was compiled for. Off, each rank specialises on its
own size; on, the ranks exchange what they saw while compiling (on a machine with an accelerator: the exchange
picks its device by the rank modulo the accelerator count, which a CPU-only machine does not have). ``--json FILE``
writes the table (python -m walkthrough.outputs docs/examples/compiler_collectives.py)."""

import json
import os
import socket
import sys

import torch
import torch.distributed as dist
import torch.multiprocessing as mp

SIZES = {0: 8, 1: 10}


def double(x):
    return x * 2 + 1


def worker(rank: int, port: int, collectives: bool, results) -> None:  # noqa: ANN001 - a manager's dict
    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port))
    # One device type for the group, as the exchange asks: the GPU where there is one (both ranks may share it:
    # gloo, not NCCL, carries the collectives), else the CPU.
    dist.init_process_group("cuda:gloo" if torch.cuda.is_available() else "cpu:gloo", rank=rank, world_size=2)
    shapes = []

    def backend(gm, example_inputs):  # the shapes the graph was traced for: a symbol where a size is dynamic
        values = [node.meta.get("example_value") for node in gm.graph.nodes if node.op == "placeholder"]
        shapes.extend(str(tuple(value.shape)) for value in values if isinstance(value, torch.Tensor))
        return gm.forward

    try:
        with torch._dynamo.config.patch(enable_compiler_collectives=collectives):
            torch.compile(double, backend=backend)(torch.randn(SIZES[rank]))
        results[(collectives, rank)] = ", ".join(shapes)
    except Exception as exc:  # noqa: BLE001 - how the compile failed is the result
        cause = exc.__cause__ or exc
        results[(collectives, rank)] = f"no graph: the compile raised {type(cause).__name__} ({str(cause).splitlines()[0]})"
    dist.destroy_process_group()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def main() -> None:
    rows = []
    with mp.Manager() as manager:
        results = manager.dict()
        for collectives in (False, True):
            mp.spawn(worker, args=(free_port(), collectives, results), nprocs=2, join=True)
        for collectives in (False, True):
            setting = f"enable_compiler_collectives = {collectives}"
            for rank in (0, 1):
                shape = results[(collectives, rank)]
                print(f"{setting}: rank {rank}, input of size {SIZES[rank]}: {shape}")
                rows.append([setting, str(rank), str(SIZES[rank]), shape])
    if "--json" in sys.argv:  # the same as data, for a recording (python -m walkthrough.outputs)
        table = {"columns": ["setting", "rank", "input size", "the graph's input shape"], "rows": rows,
                 "marked": [2, 3]}
        with open(sys.argv[sys.argv.index("--json") + 1], "w", encoding="utf-8") as out:
            json.dump({"tables": {"ranks": table}}, out)


if __name__ == "__main__":
    main()

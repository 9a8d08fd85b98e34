"""Regional compilation: a model of twelve identical blocks compiled whole, and block by block (Module.compile on
each), each in a fresh process with an empty cache directory: how many graphs Dynamo and Inductor compiled, how
many calls Dynamo traced into graphs, and how long the first call took (after a warm-up compile of another
function has paid the process's one-time costs)."""

import json
import os
import subprocess
import sys
import tempfile
import time

import torch

LAYERS = 12


class Block(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.norm, self.up, self.down = torch.nn.LayerNorm(64), torch.nn.Linear(64, 256), torch.nn.Linear(256, 64)

    def forward(self, x):
        return x + self.down(torch.nn.functional.gelu(self.up(self.norm(x))))


def child(how: str) -> None:
    # What any first compile in a process pays once (imports, the CPU's vector-ISA check, the C++ header) is paid
    # here, on a function of its own, so that the timed call below is the model's compile and run alone.
    torch.compile(lambda t: torch.relu(t) + 1)(torch.randn(4))
    torch._dynamo.utils.counters.clear()
    torch.manual_seed(0)
    model, x = torch.nn.Sequential(*[Block() for _ in range(LAYERS)]), torch.randn(8, 64)
    started = time.perf_counter()
    if how == "whole":
        torch.compile(model)(x)
    else:
        for block in model:  # the recipe: compile the repeated block, not the model
            block.compile()
        model(x)
    seconds = time.perf_counter() - started
    counters = torch._dynamo.utils.counters
    print(json.dumps({"frames": counters["frames"]["ok"], "dynamo": counters["stats"]["unique_graphs"],
                      "nodes": counters["stats"]["calls_captured"],
                      "inductor": counters["inductor"]["fxgraph_cache_miss"], "seconds": round(seconds, 1)}))


def main() -> None:
    rows = []
    for how, label in (("whole", "torch.compile(model)"), ("regional", "block.compile() for each block")):
        with tempfile.TemporaryDirectory() as cache_dir:  # cold: nothing cached, every graph compiled
            env = {k: v for k, v in os.environ.items() if not k.startswith(("TORCHINDUCTOR_", "TORCH_COMPILE_"))}
            env.update(TORCHINDUCTOR_CACHE_DIR=cache_dir)
            done = subprocess.run([sys.executable, __file__, "child", how], env=env, check=True,
                                  capture_output=True, text=True)
        found = json.loads(done.stdout.strip().splitlines()[-1])
        print(f"{label}: {found['frames']} frame compiles, {found['dynamo']} Dynamo graphs of {found['nodes']} "
              f"calls in all, {found['inductor']} Inductor graphs, first call {found['seconds']:.1f} s")
        rows.append([label, str(found["frames"]), str(found["dynamo"]), str(found["nodes"]), str(found["inductor"]),
                     f"{found['seconds']:.1f}"])
    if "--json" in sys.argv:  # the same as data, for a recording (python -m walkthrough.outputs)
        table = {"columns": ["compiled", "frame compiles", "Dynamo graphs", "calls traced into graphs",
                             "Inductor graphs", "first call, s (one-time costs paid before)"], "rows": rows, "marked": [1]}
        with open(sys.argv[sys.argv.index("--json") + 1], "w", encoding="utf-8") as out:
            json.dump({"tables": {"regional": table}}, out)


if __name__ == "__main__":
    if sys.argv[1:2] == ["child"]:
        child(sys.argv[2])
    else:
        main()

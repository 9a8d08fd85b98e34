"""Workers that compile: a spawn Pool (ended by its context manager, i.e. SIGTERM) and a forkserver Process."""
import multiprocessing
import sys

import torch


def square_sum(n: int) -> float:
    compiled = torch.compile(lambda x: (x * x).sum(), backend="aot_eager")
    return float(compiled(torch.arange(4.0) + n))


if __name__ == "__main__":
    with multiprocessing.get_context("spawn").Pool(2) as pool:
        print("pool", pool.map(square_sum, [1, 2]), flush=True)
    if "--forkserver" in sys.argv:
        context = multiprocessing.get_context("forkserver")
        worker = context.Process(target=square_sum, args=(3,))
        worker.start()
        worker.join()
        print("forkserver exit", worker.exitcode, flush=True)

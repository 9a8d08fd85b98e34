"""Workers that compile: a spawn Pool whose last task blocks until the pool's exit terminates it (SIGTERM), and a
forkserver Process."""
import multiprocessing
import sys
import time

import torch

READY = None  # set in each pool worker by the initializer: the main process waits on it


def square_sum(n: int) -> float:
    compiled = torch.compile(lambda x: (x * x).sum(), backend="aot_eager")
    return float(compiled(torch.arange(4.0) + n))


def remember(event) -> None:
    global READY
    READY = event


def compile_then_block(n: int) -> None:
    """Compile, tell the main process, then stay busy: only the pool's terminate() (SIGTERM) ends this worker."""
    square_sum(n)
    READY.set()
    while True:
        time.sleep(0.05)


if __name__ == "__main__":
    context = multiprocessing.get_context("spawn")
    ready = context.Event()
    with context.Pool(2, initializer=remember, initargs=(ready,)) as pool:
        print("pool", pool.map(square_sum, [1, 2]), flush=True)
        pool.apply_async(compile_then_block, (3,))
        if not ready.wait(timeout=600):
            sys.exit("the blocking task never started")
    # Leaving the with-block called terminate(): the busy worker was ended by SIGTERM, whatever the timing.
    if "--forkserver" in sys.argv:
        context = multiprocessing.get_context("forkserver")
        worker = context.Process(target=square_sum, args=(4,))
        worker.start()
        worker.join()
        print("forkserver exit", worker.exitcode, flush=True)

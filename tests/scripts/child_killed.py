"""Two spawn children compile; one is then killed by SIGKILL, as the out-of-memory killer would."""
import multiprocessing
import os
import signal

import torch


def work(die: bool) -> None:
    torch.compile(lambda x: x.sin() + 1, backend="aot_eager")(torch.ones(3))
    if die:
        os.kill(os.getpid(), signal.SIGKILL)


if __name__ == "__main__":
    context = multiprocessing.get_context("spawn")
    workers = [context.Process(target=work, args=(die,)) for die in (False, True)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    print("exit codes", [worker.exitcode for worker in workers], flush=True)

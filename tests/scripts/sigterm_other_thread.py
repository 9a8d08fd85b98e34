"""A spawn child compiles, then blocks on a lock for good; SIGTERM is given to another of its threads, as the
kernel may give a pool's terminate() signal to any thread. A plain child dies by it at once."""
import multiprocessing
import signal
import threading
import time

import torch


def work() -> None:
    torch.compile(lambda x: x.sin() + 1, backend="aot_eager")(torch.ones(3))

    def signal_this_thread() -> None:
        time.sleep(0.3)  # the main thread is blocked in sem_wait by now
        signal.pthread_kill(threading.get_ident(), signal.SIGTERM)
        time.sleep(600)

    threading.Thread(target=signal_this_thread, daemon=True).start()
    lock = multiprocessing.get_context("spawn").Lock()
    lock.acquire()
    lock.acquire()  # never returns: only the signal ends this process


if __name__ == "__main__":
    worker = multiprocessing.get_context("spawn").Process(target=work)
    worker.start()
    worker.join(timeout=120)
    if worker.exitcode is None:
        worker.kill()
        worker.join()
        print("hung, killed", flush=True)
    else:
        print("exit code", worker.exitcode, flush=True)

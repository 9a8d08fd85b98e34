"""Compiles, then runs a forked worker (multiprocessing's fork context ends each child with os._exit)."""
import multiprocessing

import torch


def work(queue):
    queue.put(float(torch.ones(2).sum()))


compiled = torch.compile(lambda x: x.cos() * 2, backend="eager")
compiled(torch.ones(3))
context = multiprocessing.get_context("fork")
queue = context.Queue()
worker = context.Process(target=work, args=(queue,))
worker.start()
print("worker said", queue.get(), flush=True)
worker.join()
print("worker exit", worker.exitcode, flush=True)

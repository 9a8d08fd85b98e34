"""Two ranks on gloo through spawn, both compiling; rank 1 is then killed by SIGKILL, as the out-of-memory killer would."""
import multiprocessing
import os
import signal
import socket

import torch
import torch.distributed as dist


def worker(rank: int, world: int, port: str) -> None:
    os.environ["MASTER_ADDR"] = "127.0.0.1"
    os.environ["MASTER_PORT"] = port
    dist.init_process_group("gloo", rank=rank, world_size=world)
    torch.compile(lambda x: x.sin() + 1, backend="aot_eager")(torch.ones(3))
    dist.barrier()
    if rank == 1:
        os.kill(os.getpid(), signal.SIGKILL)
    dist.destroy_process_group()


if __name__ == "__main__":
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = str(s.getsockname()[1])
    context = multiprocessing.get_context("spawn")
    workers = [context.Process(target=worker, args=(rank, 2, port)) for rank in range(2)]
    for worker_process in workers:
        worker_process.start()
    for worker_process in workers:
        worker_process.join()
    print("exit codes", [worker_process.exitcode for worker_process in workers], flush=True)

"""Two gloo ranks that feed one compiled step sequences of different lengths: rank 0 128 tokens, rank 1 96."""
import torch
import torch.distributed as dist

dist.init_process_group("gloo")
rank = dist.get_rank()
torch.manual_seed(0)
embed = torch.nn.Embedding(64, 8)


@torch.compile(backend="aot_eager")
def step(input_ids: torch.Tensor) -> torch.Tensor:
    return embed(input_ids).sum()


tokens = 128 if rank == 0 else 96
loss = step(torch.randint(0, 64, (4, tokens)))
dist.all_reduce(loss.detach())
dist.destroy_process_group()

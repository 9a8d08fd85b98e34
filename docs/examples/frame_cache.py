"""One frame, compiled once and reused: the first call compiles, the next two run the cached code."""

import torch


def shift(x: torch.Tensor) -> torch.Tensor:
    return x.cos() + 1  # called from step: Dynamo inlines it into step's graph, it gets no frame of its own


def step(x: torch.Tensor) -> torch.Tensor:
    return torch.sin(shift(x)) * 2


def main() -> None:
    torch.manual_seed(0)
    compiled = torch.compile(step, backend="aot_eager")  # aot_eager: no code generation, Dynamo is the point
    for _ in range(3):
        out = compiled(torch.randn(8))  # call 1 compiles step's code object; calls 2 and 3 pass its guards
    entries = torch._dynamo.eval_frame._debug_get_cache_entry_list(step)
    rewritten = entries[0].code  # the bytecode Dynamo generated, run in place of step's own
    print(f"{out.sum().item():.6f}  cache entries on step.__code__: {len(entries)} "
          f"(compile id {entries[0].compile_id}; rewritten code is step's own: {rewritten is step.__code__})")


if __name__ == "__main__":
    main()

"""One program, four backends (eager, aot_eager, inductor, a custom one): what each receives, first vs later calls."""

import gc
import sys

import torch

try:
    from tracers import region
except ImportError:  # running without the toolkit: regions are just blocks
    from contextlib import nullcontext as region

LATER_CALLS = 20


def block(x: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
    h = x @ w
    return torch.nn.functional.gelu(h) * torch.sigmoid(h) + x


def show_graph(gm: torch.fx.GraphModule, example_inputs: list[torch.Tensor]):
    """A custom backend: print what Dynamo hands over, then run the graph unchanged."""
    print(f"custom backend received a {type(gm).__name__} with {len(gm.graph.nodes)} nodes")
    for node in gm.graph.nodes:
        fake = node.meta.get("example_value")  # what Dynamo traced with: a FakeTensor, no data
        shown = f"{type(fake).__name__}{tuple(fake.shape)}" if isinstance(fake, torch.Tensor) else ""
        print(f"  {node.op:<14} {node.name:<8} {shown}")
    for value in example_inputs:  # the real tensors of this call
        print(f"  example input: {type(value).__name__}{tuple(value.shape)}")
    return gm.forward  # any callable that takes the same inputs will do


# Run in this order; Inductor, by far the slowest to compile, goes last.
BACKENDS = {"eager": "eager", "aot_eager": "aot_eager", "custom": show_graph, "inductor": "inductor"}


def main() -> None:
    names = sys.argv[1:] or list(BACKENDS)  # e.g. `eager custom` to leave Inductor out
    torch.manual_seed(0)
    # One thread: a 64x64 problem gains nothing from more, and on a busy machine a second thread
    # that waits for a free core turns a call of microseconds into one of milliseconds.
    torch.set_num_threads(1)
    x, w = torch.randn(64, 64), torch.randn(64, 64)
    expected = block(x, w)
    for name in names:
        # The same function under a new backend: Dynamo's cache entry for the old backend does not
        # match, so this is a recompile of the same frame (reason: BACKEND_MATCH).
        compiled = torch.compile(block, backend=BACKENDS[name])
        with region(f"{name}: first call"):
            out = compiled(x, w)
        gc.collect()  # the compile left garbage behind: collect it now, not inside the timed calls
        with region(f"{name}: later calls"):
            for _ in range(LATER_CALLS):
                out = compiled(x, w)
        torch.testing.assert_close(out, expected)
        print(f"{name}: ok")


if __name__ == "__main__":
    main()

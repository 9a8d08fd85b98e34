"""late_hook.py with the hook-dictionary guards on: registering the hook recompiles, and the hook is applied."""

import sys

import torch

try:
    from tracers import region
except ImportError:  # running without the toolkit: regions are just blocks
    from contextlib import nullcontext as region

torch._dynamo.config.skip_nnmodule_hook_guards = False  # guard the (empty) hook dictionaries of every module


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = torch.nn.Linear(8, 8)

    def forward(self, x):
        return torch.relu(self.proj(x))


def clamp_output(module, args, output):
    return output.clamp(max=0.1)


def main() -> None:
    backend = sys.argv[1] if len(sys.argv) > 1 else "aot_eager"
    torch.manual_seed(0)
    model = Net()
    compiled = torch.compile(model, backend=backend)
    x = torch.randn(4, 8)
    with region("first call"):
        compiled(x)
    model.proj.register_forward_hook(clamp_output)
    with region("after registering a hook on model.proj"):
        out = compiled(x)
    eager = model(x)
    print(f"hook applied: {bool(torch.equal(out, eager))} (compiled max {out.max():.3f}, eager max {eager.max():.3f})")


if __name__ == "__main__":
    main()

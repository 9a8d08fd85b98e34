"""A forward hook registered on a submodule after the first compiled call: by default it is silently not applied
(late_hook_fixed.py is the same program with the hook guards on)."""

import sys

import torch

try:
    from tracers import region
except ImportError:  # running without the toolkit: regions are just blocks
    from contextlib import nullcontext as region


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = torch.nn.Linear(8, 8)

    def forward(self, x):
        return torch.relu(self.proj(x))


def clamp_output(module, args, output):
    return output.clamp(max=0.1)  # the hook's effect: no output above 0.1


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

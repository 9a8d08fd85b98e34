"""torch.compile, then torch.export of a model, then draft_export of one whose custom op has no fake kernel (run
under TORCH_DTRACE: export's records go into the log beside the compile's; draft_export writes a log of its own)."""

import torch


@torch.library.custom_op("tracers_test::double", mutates_args=())
def double(x: torch.Tensor) -> torch.Tensor:
    return x * 2  # no fake kernel registered: draft export infers one and logs missing_fake_kernel


class Scale(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(x) + 1


class Custom(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return double(x) + 1


torch.compile(lambda x: x.sin() * 2, backend="eager")(torch.randn(3))
torch.export.export(Scale(), (torch.randn(4),), dynamic_shapes={"x": {0: torch.export.Dim("n", min=2)}})
torch.export.draft_export(Custom(), (torch.randn(4),))

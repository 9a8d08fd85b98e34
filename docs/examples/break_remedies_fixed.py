"""break_remedies.py with each break removed: two settings, nonstrict_trace and a custom operator. No fullgraph=True, so
that the recording shows what the settings and wrappers do alone (fullgraph=True would trace .item() and nonzero by
itself: chapter 5)."""

import sys
import zlib

import torch

try:
    from tracers import region
except ImportError:  # running without the toolkit: regions are just blocks
    from contextlib import nullcontext as region

torch._dynamo.config.capture_scalar_outputs = True  # .item() becomes a symbolic scalar in the graph
torch._dynamo.config.capture_dynamic_output_shape_ops = True  # nonzero gets an output size with no known value


def share_positive(x: torch.Tensor) -> torch.Tensor:
    k = (x > 0).sum().item()
    return x.sin() * k / x.size(0)


def positive_sum(x: torch.Tensor) -> torch.Tensor:
    return x.cos()[x > 0].sum()


@torch._dynamo.nonstrict_trace  # Dynamo calls it as one opaque step; AOTAutograd traces it with fake tensors
def layer_seed(name: str) -> int:
    return zlib.adler32(name.encode()) % 7


def salted(x: torch.Tensor, name: str) -> torch.Tensor:
    return x.sin() * layer_seed(name)


@torch.library.custom_op("walkthrough::checksum", mutates_args=())  # an operator: no tracer looks inside
def checksum(x: torch.Tensor) -> torch.Tensor:
    digest = zlib.crc32(x.detach().numpy().tobytes()) % 7 + 1
    return x * digest


@checksum.register_fake
def _(x: torch.Tensor) -> torch.Tensor:  # what tracing needs to know: the output's shape, dtype and device
    return torch.empty_like(x)


def stamped(x: torch.Tensor) -> torch.Tensor:
    return checksum(x.sin()).cos()


def main() -> None:
    backend = sys.argv[1] if len(sys.argv) > 1 else "aot_eager"
    torch.manual_seed(0)
    x = torch.randn(16)
    results = []
    with region(".item()"):
        results.append(torch.compile(share_positive, backend=backend)(x))
    with region("nonzero"):
        results.append(torch.compile(positive_sum, backend=backend)(x))
    with region("a C function on a string"):
        results.append(torch.compile(salted, backend=backend)(x, "layer1"))
    with region("a C function on tensor data"):
        results.append(torch.compile(stamped, backend=backend)(x))
    print(" ".join(f"{r.sum().item():.4f}" for r in results))


if __name__ == "__main__":
    main()

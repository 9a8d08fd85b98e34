"""Four graph breaks that a setting or a wrapper removes; break_remedies_fixed.py is the same program with the remedies."""

import sys
import zlib

import torch

try:
    from tracers import region
except ImportError:  # running without the toolkit: regions are just blocks
    from contextlib import nullcontext as region


def share_positive(x: torch.Tensor) -> torch.Tensor:
    k = (x > 0).sum().item()  # a Python int read from tensor data: a break unless scalars are captured
    return x.sin() * k / x.size(0)


def positive_sum(x: torch.Tensor) -> torch.Tensor:
    return x.cos()[x > 0].sum()  # a boolean mask calls nonzero: its output size depends on the data


def layer_seed(name: str) -> int:
    return zlib.adler32(name.encode()) % 7  # a C function Dynamo has no model for


def salted(x: torch.Tensor, name: str) -> torch.Tensor:
    return x.sin() * layer_seed(name)  # traceable with fake tensors: only a string goes into the C function


def checksum(x: torch.Tensor) -> torch.Tensor:
    digest = zlib.crc32(x.detach().numpy().tobytes()) % 7 + 1  # reads the tensor's bytes: opaque to any tracer
    return x * digest


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

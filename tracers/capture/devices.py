"""The device a run uses: making ``--device cuda`` the default without a torch function mode, and
finding what the script really ran on."""

from __future__ import annotations

import sys
import warnings
from types import ModuleType

from tracers.tracefile.events import Trace

# Stages that only run for CUDA: Triton kernels and CUDA graphs.
_CUDA_STAGES = frozenset({"triton", "cudagraphs"})


def make_default(device: str) -> None:
    """Make ``device`` where new tensors go, the way Dynamo does not see.

    ``torch.set_default_device`` pushes a TorchFunctionMode (torch/utils/_device.py's DeviceContext);
    Dynamo traces through that mode's ``__torch_function__``, so a graph break in the user's
    ``float(y.norm())`` is reported at the mode's line in _device.py, not the user's. The default
    tensor type sets the same default device in C++ (every factory function, every dtype), with no
    mode on the stack: Dynamo sees the program as written."""
    if device != "cuda":
        return  # tensors go to the CPU by default already
    import torch

    set_default_backend(torch.cuda)


def set_default_backend(backend: ModuleType) -> None:
    """New tensors go to ``backend`` (``torch`` for the CPU, ``torch.cuda``), keeping the default dtype."""
    import torch

    type_name = _tensor_types().get(torch.get_default_dtype(), "FloatTensor")
    with warnings.catch_warnings():
        # The legacy call is deprecated in favour of set_default_device, which is what we must avoid.
        warnings.filterwarnings("ignore", message=r".*set_default_tensor_type\(\) is deprecated")
        torch.set_default_tensor_type(getattr(backend, type_name))


def _tensor_types() -> dict:
    import torch

    return {torch.float32: "FloatTensor", torch.float64: "DoubleTensor", torch.float16: "HalfTensor",
            torch.bfloat16: "BFloat16Tensor"}


def device_used(requested: str, trace: Trace) -> str:
    """``cuda`` when the script compiled Triton kernels or CUDA graphs, or put tensors on a GPU; else what
    ``--device`` asked for. A DDP script on NCCL traced without ``--device cuda`` is still a CUDA run."""
    if requested == "cuda" or any(span.stage in _CUDA_STAGES for span in trace.spans):
        return "cuda"
    return "cuda" if _gpu_memory_used() else requested


def _gpu_memory_used() -> bool:
    cuda = sys.modules.get("torch.cuda")
    try:
        if cuda is None or not cuda.is_initialized():
            return False
        return any(cuda.max_memory_allocated(index) > 0 for index in range(cuda.device_count()))
    except Exception:  # noqa: BLE001 - a broken CUDA setup: the script did not run on it
        return False

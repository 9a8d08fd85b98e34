"""Record what torch.compile does, stage by stage, for any script."""

__version__ = "0.1.0"

from .regions import region  # noqa: E402  (the one name scripts import: ``from tracers import region``)

__all__ = ["region", "__version__"]

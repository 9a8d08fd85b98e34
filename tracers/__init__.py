"""Record what torch.compile does, stage by stage, for any script."""

__version__ = "0.1.0"

from .regions import region  # noqa: E402  (the one name scripts import: ``from tracers import region``)

__all__ = ["region", "trace", "TraceResult", "load_ipython_extension", "__version__"]


def __getattr__(name: str):
    """``tracers.trace`` and ``tracers.TraceResult`` (the Python API, tracers/api/), imported on first use."""
    if name in ("trace", "TraceResult"):
        from . import api

        return getattr(api, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def load_ipython_extension(ipython) -> None:  # noqa: ANN001 - IPython's InteractiveShell
    """``%load_ext tracers`` in Jupyter or IPython: the ``%%trace`` cell magic."""
    from .api import load_ipython_extension as load

    load(ipython)

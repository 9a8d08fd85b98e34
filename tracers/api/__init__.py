"""The tracer from Python: ``with tracers.trace() as t:``, its result object, Jupyter's ``%%trace`` and the pytest plugin."""

from .context import trace
from .fixes import CheckFixesFailed, check_fixes
from .loaded import load, load_ranks
from .result import Count, GraphBreak, Recompilation, SourceLine, TraceResult, TransformedCode


def load_ipython_extension(ipython) -> None:  # noqa: ANN001 - IPython's InteractiveShell
    """``%load_ext tracers``: registers the ``%%trace`` cell magic."""
    from .magic import register

    register(ipython)


__all__ = ["CheckFixesFailed", "Count", "GraphBreak", "Recompilation", "SourceLine", "TraceResult", "TransformedCode",
           "check_fixes", "load", "load_ipython_extension", "load_ranks", "trace"]

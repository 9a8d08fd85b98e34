"""Record what torch.compile does, stage by stage, for any script.

The commands sit at the top, on one floor: ``commands/`` (one module per command, each with its own arguments;
``__main__`` only calls it). Below them the wings, each importing only from the wings under it:

- ``api/`` (``tracers.trace()``, ``tracers.load()``, Jupyter, pytest) and ``torchlogs/`` (torch's own TORCH_TRACE
  logs read back as traces, a directory of rank logs merged as ``ranks`` merges);
- ``ranks/``: several processes' traces on one clock (ranks, a run's children), divergence, ``--nproc``;
- ``report/`` (the HTML page, its links, and the one save path: ``report/save.py``) and ``terminal/`` (the same
  facts as terminal text);
- ``measure/`` (eager against compiled, process by process) and ``capture/`` (what runs inside the traced process:
  hooks, recorder, session and its options, torch's own records, executed lines, deep mode, devices, cache modes,
  calls served, a launcher's rank facts, child processes); capture checks its totals with ``analysis``;
- ``analysis/``: a trace in, facts out (call tree, compile table, totals, findings, compile time by your code,
  the diff); needs no torch and renders nothing;
- ``tracefile/``: the trace's data, the stages table, compile ids, the Chrome JSON reader and writer, and its
  file names (``tracefile/names.py``, the only place they are spelt); ``vocabulary/``: what everything shares
  (the reference release and source links, where built walkthroughs live, the usage error, machine facts,
  how a duration is written).

Imports run one way, down that list, with no circles, none climbing inside a function either, and nothing here
imports ``walkthrough`` (the tracer runs where only torch is installed); a test holds the code to it.
"""

from tracers.vocabulary.releases import TOOL_VERSION as __version__  # noqa: E402

__all__ = ["region", "trace", "TraceResult", "check_fixes", "load", "load_ranks", "load_ipython_extension",
           "__version__"]


def __getattr__(name: str):
    """``tracers.region`` (capture/regions.py) and ``tracers.trace``, ``tracers.TraceResult``, ``tracers.load``,
    ``load_ranks`` and ``check_fixes`` (the Python API, tracers/api/), imported on first use: reading a log loads no
    capture module."""
    if name == "region":  # the one name scripts import: ``from tracers import region``
        from tracers.capture.regions import region

        return region
    if name in ("trace", "TraceResult", "load", "load_ranks", "check_fixes"):
        from . import api

        return getattr(api, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def load_ipython_extension(ipython) -> None:  # noqa: ANN001 - IPython's InteractiveShell
    """``%load_ext tracers`` in Jupyter or IPython: the ``%%trace`` cell magic."""
    from .api import load_ipython_extension as load

    load(ipython)

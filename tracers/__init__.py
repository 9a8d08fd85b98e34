"""Record what torch.compile does, stage by stage, for any script.

The commands sit at the top (``__main__``, ``trace_command``, ``report_command``, ``record``, ``setup`` with
the options every front end shares, ``usage`` with its one error; ``sites``, standard library only, says where a
built walkthrough lives for a torch release, the convention the walkthrough writes and the pages read) over the
wings:

- ``tracefile/``: the trace's data and its file (spans, artifacts, run info, the stages table they refer to,
  compile ids, the Chrome JSON reader and writer); standard library only.
- ``analysis/``: a trace in, facts out (the call tree, the compile table, totals, findings, compile time by your
  code, the summary, the diff); needs no torch, so it reads a trace from any machine.
- ``capture/``: what runs inside the traced process (hooks, recorder, session, torch's own records, executed
  lines, deep mode, devices, cache modes, calls served, a launcher's rank facts, child processes); it checks its
  totals with ``analysis`` at the end of a run.
- ``report/``: the HTML page; ``ranks/``: several processes' traces merged (ranks, a run's children), divergence;
  ``api/``: ``tracers.trace()``, ``tracers.load()``, Jupyter and pytest; ``measure/``: eager against compiled,
  process by process.
- ``torchlogs/``: torch's own TORCH_TRACE logs read back as traces (streamed records, torch's timed regions as
  spans, the records through capture's translation), a directory of rank logs merged as ``ranks`` merges.

Imports run one way: commands → api → torchlogs → ranks, measure → report → capture → analysis → tracefile, with no
circles, and nothing here imports ``walkthrough`` (the tracer runs where only torch is installed).
"""

__version__ = "0.1.0"

from tracers.capture.regions import region  # noqa: E402  (the one name scripts import: ``from tracers import region``)

__all__ = ["region", "trace", "TraceResult", "load", "load_ranks", "load_ipython_extension", "__version__"]


def __getattr__(name: str):
    """``tracers.trace``, ``tracers.TraceResult``, ``tracers.load`` and ``load_ranks`` (the Python API,
    tracers/api/), imported on first use."""
    if name in ("trace", "TraceResult", "load", "load_ranks"):
        from . import api

        return getattr(api, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def load_ipython_extension(ipython) -> None:  # noqa: ANN001 - IPython's InteractiveShell
    """``%load_ext tracers`` in Jupyter or IPython: the ``%%trace`` cell magic."""
    from .api import load_ipython_extension as load

    load(ipython)

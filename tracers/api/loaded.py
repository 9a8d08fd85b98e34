"""``tracers.load(path)``: a saved trace, or torch's own TORCH_TRACE log, as the result a traced block gives."""

from __future__ import annotations

import warnings
from pathlib import Path

from tracers.tracefile.events import Trace

from .result import TraceResult


class LoadedTrace(TraceResult):
    """A :class:`TraceResult` read from a file instead of recorded by a block: complete from the start."""

    def __init__(self, trace: Trace, name: str):
        self._session = None  # type: ignore[assignment]
        self.name = name
        self._trace = trace
        self._facts = None  # analysed once, on first use, into the report model
        self._report = None


def load(path: str | Path, *, no_code: bool = False) -> TraceResult:
    """Read a trace this tool wrote, or a TORCH_TRACE log of one process (``dedicated_log_torch_trace_*.log``,
    gzip too, or a directory holding one), as a result with the same counts, breaks, recompiles and summary.

    Damage in a log (a truncated last record, a corrupt line) is skipped and named in one ``UserWarning``;
    a path with nothing readable is a ``ValueError``. A directory of several ranks' logs: :func:`load_ranks`."""
    ranks = _load(Path(path), no_code)
    if len(ranks) > 1:
        raise ValueError(f"{path}: logs of {len(ranks)} ranks; read them with tracers.load_ranks()")
    return next(iter(ranks.values()))


def load_ranks(path: str | Path, *, no_code: bool = False) -> dict[int, TraceResult]:
    """Every rank's log in a TORCH_TRACE directory (one per rank, as torch names them), by rank (logs without
    a rank, of other processes, after the ranks); ``python -m tracers report DIR`` merges them and shows
    where the ranks diverge."""
    return _load(Path(path), no_code)


def _load(path: Path, no_code: bool) -> dict[int, TraceResult]:
    from tracers.torchlogs.load import LogError, load_logs, looks_like_log
    from tracers.tracefile.chrome import TraceFileError
    from tracers.tracefile.chrome import load as load_trace

    if path.is_file() and not looks_like_log(path):
        try:
            return {0: LoadedTrace(load_trace(path), path.stem)}
        except TraceFileError as error:
            raise ValueError(str(error)) from None
    try:
        loaded = load_logs(path, keep_code=not no_code)
    except LogError as error:
        raise ValueError(str(error)) from None
    warning = loaded.warning()
    if warning:
        warnings.warn(warning, UserWarning, stacklevel=3)
    slots = iter(range(max((log.rank for log in loaded.logs if log.rank is not None), default=-1) + 1, 1 << 30))
    return {log.rank if log.rank is not None else next(slots): LoadedTrace(log.trace, log.source.split(".log")[0])
            for log in loaded.logs}

"""A rank's facts in its trace's metadata: rank, world, host, process-group backend and a clock anchor."""

from __future__ import annotations

from typing import Any

from tracers.tracefile.events import RunInfo, Span

from .launcher import RankEnv, RankEnvironmentError, clock_anchor, detect, process_group_backend


class RankWatch:
    """Fills ``info.rank`` and ``info.clock``; a recorder listener that notes the backend at the first
    compile step, since programs usually destroy their process group before the trace is written."""

    def __init__(self, info: RunInfo):
        try:
            self.env: RankEnv | None = detect()
        except RankEnvironmentError as error:
            self.env = None
            info.warnings.append(f"not traced as a rank: the launcher's environment is wrong: {error}")
        self.backend: str | None = None
        info.clock = clock_anchor()
        if self.env is not None:
            info.rank = {**self.env.as_json(), "backend": None}

    def __call__(self, event: str, span: Span) -> None:
        if self.env is not None and self.backend is None and event == "enter":
            self.backend = process_group_backend()

    def finish(self, info: RunInfo) -> None:
        if info.rank is not None:
            info.rank["backend"] = self.backend or process_group_backend()


def rank_of(info: RunInfo) -> int | None:
    """The trace's rank, or None for a single-process trace."""
    rank: Any = (info.rank or {}).get("rank")
    return rank if isinstance(rank, int) else None

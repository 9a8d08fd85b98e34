"""A rank's facts in its trace's metadata: rank, world, host, process-group backend and a clock anchor."""

from __future__ import annotations

import socket

from tracers.tracefile.events import RunInfo, Span, Trace

from .launcher import RankEnv, RankEnvironmentError, clock_anchor, detect, group_rank, process_group_backend


class RankWatch:
    """Fills ``info.rank`` and ``info.clock``; a recorder listener that notes the backend at the first
    compile step, since programs usually destroy their process group before the trace is written.

    With ``group_run_id`` (a child process of a traced run) a process without the launcher's variables is a
    rank when its default process group says so: ``torch.multiprocessing.spawn`` programs pass the rank
    to ``init_process_group`` itself. A session's collector (capture/collector.py): it only listens, so there
    is nothing to start or stop."""

    what = "the rank's facts"

    def __init__(self, info: RunInfo, group_run_id: str | None = None):
        self.info = info
        self.group_run_id = group_run_id
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
        if event != "enter":
            return
        if self.env is None and self.group_run_id is not None:
            self._from_group()
        if self.env is not None and self.backend is None:
            self.backend = process_group_backend()

    def _from_group(self) -> None:
        found = group_rank()
        if found is None:
            return
        rank, world = found
        self.env = RankEnv(rank, world, rank, world, socket.gethostname(), "process group", self.group_run_id)
        self.info.rank = {**self.env.as_json(), "backend": None}

    def start(self) -> None:
        pass

    def stop(self) -> None:
        pass

    def contribute(self, trace: Trace) -> None:
        info = trace.info
        if self.env is None and self.group_run_id is not None:
            self._from_group()
        if info.rank is not None:
            info.rank["backend"] = self.backend or process_group_backend()

"""What torch itself counted during a traced run (its Dynamo counters), read around the program's resets."""

from __future__ import annotations

import sys
from dataclasses import asdict
from typing import Any

from tracers.analysis.totals import ZERO as _ZERO
from tracers.analysis.totals import Totals
from tracers.tracefile.events import Trace


class TorchCounter:
    """Reads torch's counters at the start of the run, before each ``torch._dynamo.reset()`` (which empties
    the frame counters) and at the end; the difference is what torch counted while the tracer ran. A session's
    collector (capture/collector.py), started first so its first reading comes before any hooked call; the
    session compares ``finish`` with the finished trace's totals."""

    what = "torch's counters"

    def __init__(self) -> None:
        self._start = _ZERO
        self._before_resets = _ZERO  # what torch counted and then cleared in resets
        self._stats: Any = None
        self.cleared = False

    def start(self) -> None:
        # Dynamo not loaded yet: its counters start at zero when it is, and loading it here would cost a
        # program that never compiles a second of import time.
        if "torch._dynamo.utils" not in sys.modules:
            return
        from torch._dynamo.utils import counters

        self._stats = counters["stats"]  # torch tests and notebooks call counters.clear(): spot it
        self._start = self._read()

    def stop(self) -> None:
        pass  # read by ``finish``, once the whole trace can be compared with it

    def contribute(self, trace: Trace) -> None:
        pass

    def before_reset(self) -> None:
        self._before_resets = self._before_resets.plus(self._cleared_by_reset())

    def finish(self) -> Totals | None:
        """What torch counted during the run, or None when the program cleared torch's counters."""
        if "torch._dynamo.utils" not in sys.modules:
            return _ZERO
        from torch._dynamo.utils import counters

        if self._stats is not None and counters.get("stats") is not self._stats:
            self.cleared = True
            return None
        counted = self._read().plus(self._before_resets).minus(self._start)
        if min(asdict(counted).values()) < 0:  # a counter went down: the program reset it
            self.cleared = True
            return None
        return counted

    def _read(self) -> Totals:
        from torch._dynamo.utils import counters

        graphs = counters["stats"]["unique_graphs"] + counters["compiled_autograd"]["captures"]
        return Totals(graphs, 0, 0, 0).plus(self._cleared_by_reset())

    @staticmethod
    def _cleared_by_reset() -> Totals:
        from torch._dynamo import convert_frame
        from torch._dynamo.utils import graph_break_reasons

        per_frame = list(convert_frame.FRAME_COMPILE_COUNTER.values())
        return Totals(0, len(graph_break_reasons), sum(per_frame), sum(max(count - 1, 0) for count in per_frame))

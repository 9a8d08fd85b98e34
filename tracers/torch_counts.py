"""What torch itself counted during a traced run, and how it compares with the trace's own totals."""

from __future__ import annotations

import sys
from dataclasses import asdict, dataclass
from typing import Any

# The totals a trace prints, each with torch's own count of the same thing:
# graphs         Dynamo's ``counters["stats"]["unique_graphs"]`` (one per FX graph handed to a backend)
#                plus ``counters["compiled_autograd"]["captures"]`` (one per backward graph captured)
# graph_breaks   Dynamo's ``graph_break_reasons`` (one entry per break; ``counters`` files breaks under two
#                categories, "graph_break" and "unimplemented", the latter shared with errors that break nothing)
# frame_compiles the compile ids Dynamo handed out (``convert_frame.FRAME_COMPILE_COUNTER``)
# recompiles     of those, the ones after a frame's first (frame compile id > 0)
# torch._dynamo.reset() empties all but the graphs, so those are read before each reset too.
TOTALS = ("graphs", "graph_breaks", "frame_compiles", "recompiles")


@dataclass(frozen=True)
class Totals:
    graphs: int
    graph_breaks: int
    frame_compiles: int
    recompiles: int

    def minus(self, other: Totals) -> Totals:
        return Totals(*(getattr(self, name) - getattr(other, name) for name in TOTALS))

    def plus(self, other: Totals) -> Totals:
        return Totals(*(getattr(self, name) + getattr(other, name) for name in TOTALS))


_ZERO = Totals(0, 0, 0, 0)


@dataclass(frozen=True)
class TotalsCheck:
    """The trace's totals beside torch's; ``skipped`` says why they could not be compared."""

    tracer: dict[str, int]
    torch: dict[str, int]
    mismatches: tuple[str, ...] = ()
    skipped: str | None = None

    def as_json(self) -> dict[str, Any]:
        return {"tracer": self.tracer, "torch": self.torch, "mismatches": list(self.mismatches),
                "skipped": self.skipped}


class TorchCounter:
    """Reads torch's counters at the start of the run, before each ``torch._dynamo.reset()`` (which empties
    the frame counters) and at the end; the difference is what torch counted while the tracer ran."""

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


def compare(tracer: Totals, torch_counted: Totals | None, skipped: str | None = None) -> TotalsCheck:
    if torch_counted is None:
        return TotalsCheck(asdict(tracer), {}, skipped=skipped or "the program cleared torch's Dynamo counters")
    mismatches = tuple(f"{name.replace('_', ' ')}: the trace has {getattr(tracer, name)}, torch counted "
                       f"{getattr(torch_counted, name)}"
                       for name in TOTALS if getattr(tracer, name) != getattr(torch_counted, name))
    return TotalsCheck(asdict(tracer), asdict(torch_counted), mismatches)

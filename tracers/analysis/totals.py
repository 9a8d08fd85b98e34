"""The totals a trace prints (graphs, breaks, frame compiles, recompiles) and their check against torch's own counts."""

from __future__ import annotations

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


ZERO = Totals(0, 0, 0, 0)


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


def compare(tracer: Totals, torch_counted: Totals | None, skipped: str | None = None) -> TotalsCheck:
    if torch_counted is None:
        return TotalsCheck(asdict(tracer), {}, skipped=skipped or "the program cleared torch's Dynamo counters")
    mismatches = tuple(f"{name.replace('_', ' ')}: the trace has {getattr(tracer, name)}, torch counted "
                       f"{getattr(torch_counted, name)}"
                       for name in TOTALS if getattr(tracer, name) != getattr(torch_counted, name))
    return TotalsCheck(asdict(tracer), asdict(torch_counted), mismatches)

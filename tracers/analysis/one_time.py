"""One-time setup inside a run's compiles: work a process (or the machine) does once, whichever compile comes first.

It sits inside the first compile that needs it, but no user line caused it: the findings' costs leave it out, and one
note says what it was. Three kinds are known:

- the CPU's vector-ISA check: a test program compiled per instruction set (``cpu_vec_isa``), once per process, warm
  runs too (the cache key needs the answer);
- the C++ precompiled header for Inductor's kernels (``codecache._precompile_header``): built once per machine and
  torch, looked up once per process;
- the first kernel benchmark (autotuning's, or a padding decision's): the benchmarker and Triton's GPU driver are set
  up by the first timed call; the part of it beyond a typical benchmark is the setup.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass

from tracers.tracefile.events import Span, Trace

ISA_CHECK = "torch._inductor.cpu_vec_isa:VecISA.check_build"
CPP_HEADER = "torch._inductor.codecache:_precompile_header"
BENCHMARK = "torch._inductor.runtime.benchmarking:Benchmarker.benchmark"
ONE_TIME_STAGES = frozenset({"cpu_isa", "cpp_header"})  # stages that are nothing but one-time setup
_MIN_BENCHMARKS = 3  # a first benchmark is compared with the median of at least two later ones


@dataclass(frozen=True)
class OneTimePart:
    """One kind of setup: its time in each compile it ran in, and when it recurs."""

    what: str
    by_compile: tuple[tuple[str | None, int], ...]  # (compile id, ns), in the order they ran
    once: str  # when it recurs: "once per process", …

    @property
    def ns(self) -> int:
        return sum(ns for _, ns in self.by_compile)


@dataclass(frozen=True)
class OneTime:
    parts: tuple[OneTimePart, ...]

    @property
    def ns(self) -> int:
        return sum(part.ns for part in self.parts)

    def within(self, compile_id: str) -> int:
        """The setup time that ran inside this compile."""
        return sum(ns for part in self.parts for where, ns in part.by_compile if where == compile_id)

    def compile_ids(self, share: float = 0.01) -> tuple[str, ...]:
        """The compiles holding the setup, leaving out those with less than ``share`` of it (a lookup's microseconds)."""
        totals: dict[str, int] = {}
        for part in self.parts:
            for where, ns in part.by_compile:
                if where:
                    totals[where] = totals.get(where, 0) + ns
        return tuple(where for where, ns in totals.items() if ns >= self.ns * share)


def one_time(trace: Trace) -> OneTime:
    """The run's one-time setup, by kind, each tied to the compiles it ran in."""
    by_id = {span.id: span for span in trace.spans}
    parts = []
    for target, what, once in ((ISA_CHECK, "CPU vector-ISA check", "once per process, warm runs too"),
                               (CPP_HEADER, "C++ precompiled header", "built once per machine and torch, looked up "
                                                                      "once per process")):
        spans = _outermost(sorted((span for span in trace.spans if span.target == target), key=lambda s: s.start_ns),
                           by_id)
        parts.append(OneTimePart(what, tuple(_by_compile(spans, by_id).items()), once))
    benchmarks = sorted((span for span in trace.spans if span.target == BENCHMARK and span.end_ns is not None),
                        key=lambda span: span.start_ns)
    benchmarks = _outermost(benchmarks, by_id)
    if len(benchmarks) >= _MIN_BENCHMARKS:
        first, typical = benchmarks[0], statistics.median(span.duration_ns for span in benchmarks[1:])
        extra = round(first.duration_ns - typical)
        if extra > 0:
            parts.append(OneTimePart("the first kernel benchmark (the benchmarker and the GPU driver set up)",
                                     ((_compile_of(first, by_id), extra),), "once per process"))
    return OneTime(tuple(part for part in parts if part.ns > 0))


def _outermost(spans: list[Span], by_id: dict[int, Span]) -> list[Span]:
    """Spans not nested in another of the same target (a recursive call is counted once)."""
    targets = {span.target for span in spans}
    kept = []
    for span in spans:
        parent, seen = by_id.get(span.parent) if span.parent is not None else None, set()
        while parent is not None and parent.id not in seen and parent.target not in targets:
            seen.add(parent.id)
            parent = by_id.get(parent.parent) if parent.parent is not None else None
        if parent is None or parent.target not in targets:
            kept.append(span)
    return kept


def _by_compile(spans: list[Span], by_id: dict[int, Span]) -> dict[str | None, int]:
    found: dict[str | None, int] = {}
    for span in spans:
        compile_id = _compile_of(span, by_id)
        found[compile_id] = found.get(compile_id, 0) + span.duration_ns
    return found


def _compile_of(span: Span, by_id: dict[int, Span]) -> str | None:
    """The compile a span ran in: its own id, or the nearest enclosing span's."""
    seen: set[int] = set()
    current: Span | None = span
    while current is not None and current.id not in seen:
        if current.compile_id:
            return current.compile_id
        seen.add(current.id)
        current = by_id.get(current.parent) if current.parent is not None else None
    return None

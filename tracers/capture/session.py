"""One tracing session: hooks, the structured-trace collector and the recorder, installed and removed together."""

from __future__ import annotations

import datetime
from collections.abc import Callable, Iterable
from typing import Any

from tracers.analysis.totals import compare
from tracers.analysis.trace_facts import TraceFacts, analyze
from tracers.tracefile.compile_identity import RESET_TARGET
from tracers.tracefile.events import FORMAT_VERSION, DeepEvent, RunInfo, Span, Trace
from tracers.tracefile.stages import Target, all_targets
from tracers.vocabulary import machine
from tracers.vocabulary.releases import TOOL_VERSION

from . import autotune, cudagraph_skips, kernel_origins, regions
from .artifacts import ArtifactCollector
from .calls import CallCounter
from .decompiled import TransformedCodeCollector
from .deep import DeepTracer
from .hooks import HookSet
from .inductor_ir import InductorIRCollector
from .lines import LineCounter, watch_for
from .rank_watch import RankWatch
from .recorder import Listener, Recorder
from .runner import Outcome, outcome_of
from .timing import Timing
from .torch_counts import TorchCounter


def _current_compile_id() -> str | None:
    import torch._guards

    compile_id = torch._guards.CompileContext.current_compile_id()
    return str(compile_id) if compile_id is not None else None


class TraceSession:
    """Context manager: ``with TraceSession() as session: ...; trace = session.trace``.

    Every patch is undone on exit, whether the body returns, raises or is interrupted.
    """

    def __init__(self, targets: Iterable[Target] | None = None, *, keep_code: bool = True,
                 device: str = "cpu", cache_mode: str = "warm", command: list[str] | None = None,
                 listeners: Iterable[Listener] = (), deep: DeepTracer | None = None,
                 lines: LineCounter | None = None, inductor_ir: bool = False, run_id: str | None = None,
                 timing: Timing | None = None):
        self.recorder = Recorder(compile_id=_current_compile_id)
        self._facts: TraceFacts | None = None
        self.torch_counter = TorchCounter()
        self.recorder.listeners.append(self._before_reset)
        self.recorder.listeners.extend(listeners)
        for observer in (autotune, cudagraph_skips):  # what a hooked call decided, read from its args/result
            observer.install(self.recorder)
        self.calls = CallCounter(self.recorder)
        self.kernel_origins = kernel_origins.install(self.recorder)  # each kernel's FX nodes and user lines
        self.hooks = HookSet(all_targets() if targets is None else targets, self.recorder)
        self.collector = ArtifactCollector(self.recorder, keep_code=keep_code)
        self.ir = InductorIRCollector(self.recorder, _current_compile_id) if inductor_ir else None
        self.transformed = TransformedCodeCollector(self.recorder, _current_compile_id)
        self.info = _run_info(device, cache_mode, command or [])
        # A child of a traced run (run_id set) is a rank too when its process group says so (spawn sets no RANK).
        self.rank_watch = RankWatch(self.info, group_run_id=run_id)
        self.recorder.listeners.append(self.rank_watch)
        self.deep = deep
        self.deep_events: list[DeepEvent] = []
        self.lines = lines
        self.hooks.on_patched = self._on_patched
        self.timing = timing  # --vs-eager / --profile: each compiled function's calls timed
        if timing is not None:
            self.recorder.listeners.append(timing.probe)
        self._entered = False

    def __enter__(self) -> TraceSession:
        self.start()
        return self

    def __exit__(self, exc_type: Any, exc: BaseException | None, tb: Any) -> None:
        if exc is not None and self.info.status == "running":
            self.finish(outcome_of(exc))
        self.stop()

    def _on_patched(self, target: Target, function: Callable[..., Any]) -> None:
        watch = watch_for(function)
        if watch is None:
            return
        self.info.target_sources[target.name] = [watch.path, watch.start, watch.end]
        if self.lines is not None:
            self.lines.add(watch)

    def _before_reset(self, event: str, span: Span) -> None:
        if event == "enter" and span.target == RESET_TARGET:
            self.torch_counter.before_reset()  # reset empties the counters of frame compiles

    def start(self) -> None:
        self._safely("torch's counters", self.torch_counter.start)
        if self.lines is not None:
            self.info.lines_recorded = self.lines.start()
            if not self.info.lines_recorded:
                self.info.warnings.append(f"executed lines not recorded: {self.lines.refused}")
        self.collector.attach()
        if self.ir is not None:
            self.ir.attach()
        self.info.warnings.extend(filter(None, [self._safely("Dynamo's bytecode hook", self.transformed.attach)]))
        self.hooks.install()
        regions.activate(self.recorder)
        if self.timing is not None:
            self.timing.start()
        self._entered = True
        if self.deep is not None:
            self.info.deep_min_duration_us = self.deep.min_duration_us
            self.deep.start()

    def stop(self) -> None:
        """Remove everything; safe to call twice."""
        if not self._entered:
            return
        self._entered = False
        # The optional recorders must not cost the trace: a failure of theirs becomes a warning.
        if self.deep is not None:
            self.deep_events = self._safely("deep mode", self.deep.stop) or []
        if self.lines is not None:
            self._safely("executed lines", self.lines.stop)
        regions.deactivate(self.recorder)
        if self.timing is not None:
            self._safely("the call timings", lambda: self.timing.stop(self.info))
        self.recorder.active = False
        self._safely("the call counts", self.calls.stop)
        self.info.calls_served, self.info.calls_eager = self.calls.served, self.calls.eager
        self.info.calls_note = self.calls.note
        self.kernel_origins.release()
        self.info.warnings.extend(self.hooks.uninstall())
        self.info.warnings.extend(self.collector.detach())
        if self.ir is not None:
            self.ir.detach()
        self.info.warnings.extend(self._safely("Dynamo's rewritten code", self.transformed.detach) or [])
        if self.recorder.close_open_spans():
            self.info.warnings.append("some compile steps were still running when the run ended")
        self.info.targets_hooked = sorted(set(self.hooks.hooked))
        missing = dict(self.hooks.missing)
        for target, why in self.hooks.unreached_modules().items():
            if why == "not imported by this program":
                self.info.targets_not_imported.append(target)
            else:
                missing[target] = why
        self.info.targets_missing = missing
        self.info.dropped_records = dict(sorted(self.collector.dropped.items()))
        self.info.resets = self.recorder.identity.resets
        self.rank_watch.finish(self.info)
        self._note_device_used()
        self._check_totals()
        if self.info.status == "running":
            self.info.status = "ok"
            self.info.exit_code = 0

    def _note_device_used(self) -> None:
        """Name the trace for the device the program really ran on (a DDP job on NCCL without --device cuda)."""
        from .devices import device_used

        requested = self.info.device
        used = device_used(requested, self.trace)
        if used != requested:
            self.info.device, self.info.device_name = used, machine.device_description(used)
            self.info.warnings.append(f"ran on {used}, not --device {requested}: the trace is named for {used}")

    def _check_totals(self) -> None:
        """Compare the trace's totals with torch's counters: a difference is the tracer's fault, said so."""
        try:
            counted, why = self.torch_counter.finish(), None
        except Exception as error:  # noqa: BLE001 - a torch without these counters: say so, don't fail
            counted, why = None, f"torch's counters could not be read: {type(error).__name__}: {error}"
        self._facts = analyze(self.trace)
        self.info.totals_check = compare(self._facts.totals(), counted, why).as_json()

    def _safely(self, what: str, stop: Callable[[], Any]) -> Any:
        try:
            return stop()
        except Exception as error:  # noqa: BLE001 - reported in the trace, never raised into the run
            self.info.warnings.append(f"{what} could not be stopped cleanly: {type(error).__name__}: {error}")
            return None

    def finish(self, outcome: Outcome) -> None:
        """Record how the run ended."""
        self.info.status = outcome.status
        self.info.exit_code = outcome.exit_code
        self.info.error = outcome.error

    @property
    def facts(self) -> TraceFacts:
        """The trace's analysis: made once when the run finished (for the totals check), passed on from there."""
        if self._facts is None:
            self._facts = analyze(self.trace)
        return self._facts

    @property
    def trace(self) -> Trace:
        lines = self.lines.result() if self.lines is not None else {}
        return Trace(self.info, self.recorder.spans, self.recorder.artifacts, self.deep_events, lines)


def _run_info(device: str, cache_mode: str, command: list[str]) -> RunInfo:

    facts = machine.torch_facts()
    return RunInfo(
        format_version=FORMAT_VERSION,
        tool_version=TOOL_VERSION,
        torch_version=facts["torch_version"],
        torch_git_sha=facts["torch_git_sha"],
        python=facts["python"],
        platform=facts["platform"],
        device=device,
        device_name=machine.device_description(device),
        cache_mode=cache_mode,
        command=command,
        started_at=datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        cuda=facts["cuda"],
    )


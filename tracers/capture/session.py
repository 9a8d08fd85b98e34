"""One tracing session: its collectors (hooks, torch's records, the recorder …) started and stopped together."""

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

from . import autotune, cudagraph_skips
from .artifacts import ArtifactCollector
from .calls import CallCounter
from .collector import Collector, Recording, ResultObserver, StructuredTrace
from .decompiled import TransformedCodeCollector
from .deep import DeepMode, DeepTracer
from .fix_applied import FixApplied
from .hooks import HookSet
from .inductor_ir import InductorIRCollector
from .kernel_origins import KernelOrigins
from .forwarded_methods import ForwardedMethods
from .group_teardown import GroupTeardown
from .branch_rewrites import BranchRewrites
from .late_hooks import LateHooks
from .lines import ExecutedLines, LineCounter, watch_for
from .rank_watch import RankWatch
from .recorder import Listener, Recorder
from .regions import Regions
from .runner import Outcome, outcome_of
from .timing import CallTiming
from .torch_counts import TorchCounter
from .trainer_evaluation import TrainerEvaluation


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
                 timing: CallTiming | None = None, fix: dict[str, Any] | None = None):
        self.recorder = Recorder(compile_id=_current_compile_id)
        self.info = _run_info(device, cache_mode, command or [])
        self._trace = Trace(self.info, self.recorder.spans, self.recorder.artifacts)  # the collectors add the rest
        self._facts: TraceFacts | None = None
        self.torch_counter = TorchCounter()
        self.recorder.listeners.append(self._before_reset)
        self.recorder.listeners.extend(listeners)
        self.calls = CallCounter(self.recorder)
        self.late_hooks = LateHooks(self.recorder)  # hooks added after a module's compile, which it never runs
        self.forwarded = ForwardedMethods(self.recorder)  # compiled.generate(): the original module's method
        self.evaluation = TrainerEvaluation(self.recorder)  # the HF Trainer evaluating the model it did not compile
        self.fix = FixApplied(self.recorder, fix) if fix is not None else None  # --check-fixes' own runs
        self.kernel_origins = KernelOrigins(self.recorder)  # each kernel's FX nodes and user lines
        self.hooks = HookSet(all_targets() if targets is None else targets, self.recorder)
        self.collector = ArtifactCollector(self.recorder, keep_code=keep_code)
        self.ir = InductorIRCollector(self.recorder, _current_compile_id) if inductor_ir else None
        self.transformed = TransformedCodeCollector(self.recorder, _current_compile_id)
        # A child of a traced run (run_id set) is a rank too when its process group says so (spawn sets no RANK).
        self.rank_watch = RankWatch(self.info, group_run_id=run_id)
        self.recorder.listeners.append(self.rank_watch)
        self.deep = deep
        self.lines = lines
        self.hooks.on_patched = self._on_patched
        self.timing = timing  # --vs-eager / --profile: each compiled function's calls timed
        if timing is not None:
            self.recorder.listeners.append(timing.probe)
        self.collectors = self._in_order()
        self._started: list[Collector] = []
        self._running = False

    def _in_order(self) -> list[Collector]:
        """Started in this order, stopped in reverse. Torch's counters first, to count all the run does; the
        observers of hooked calls and the readers of torch's records before the hooks, so the first hooked call is
        seen whole; the recorder's switch after them, so at stop it is off before anything is taken out and
        nothing the undoing calls is recorded; timings, regions, executed lines and deep mode last, so they stop
        first and neither time nor count the others' undoing (a settrace hook over depyf's decompiling would cost
        seconds)."""
        ordered = [
            self.fix,  # first: torch.compile wrapped before the hooks wrap it, the setting made before anything runs
            self.torch_counter,
            self.rank_watch,
            self.kernel_origins,
            ResultObserver("the autotuning results", autotune.install, self.recorder),
            ResultObserver("the CUDA-graph skips", cudagraph_skips.install, self.recorder),
            self.calls,
            self.late_hooks,
            self.forwarded,
            self.evaluation,
            BranchRewrites(self.recorder),  # stopped after torch's records are in: it reads their breaks
            GroupTeardown(),
            self.transformed,
            self.ir,
            StructuredTrace(self.collector),
            self.hooks,
            Recording(self.recorder),
            self.timing,
            Regions(self.recorder),
            ExecutedLines(self.lines) if self.lines is not None else None,
            DeepMode(self.deep) if self.deep is not None else None,
        ]
        return [collector for collector in ordered if collector is not None]

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
        """Start every collector in order; one that fails becomes a warning, the run is traced without it."""
        self._running = True
        try:
            for collector in self.collectors:
                self._started.append(collector)  # stopped even if its start fails half way: it may have patched
                self._safely(collector, "started", collector.start)
        except BaseException as interrupted:  # Ctrl-C while starting: undo what started, then let it go on
            self.finish(outcome_of(interrupted))
            self.stop()
            raise

    def stop(self) -> None:
        """Stop the started collectors, newest first, then let each add to the trace; safe to call twice."""
        if not self._running:
            return
        self._running = False
        stopping, self._started = list(reversed(self._started)), []
        interrupted: BaseException | None = None
        for collector in stopping:
            try:
                self._safely(collector, "stopped cleanly", collector.stop)
            except BaseException as error:  # noqa: BLE001 - a second Ctrl-C: the rest are still undone first
                interrupted = interrupted or error
        for collector in stopping:
            self._safely(collector, "added to the trace", lambda: collector.contribute(self._trace))
        self._note_device_used()
        self._check_totals()
        if self.info.status == "running":
            self.info.status = "ok"
            self.info.exit_code = 0
        if interrupted is not None:
            raise interrupted

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

    def _safely(self, collector: Collector, done: str, step: Callable[[], list[str] | None]) -> None:
        """A collector must not cost the trace (nor the traced run): its warnings, and its failure, are written in it."""
        try:
            self.info.warnings.extend(step() or [])
        except Exception as error:  # noqa: BLE001 - reported in the trace, never raised into the run
            self.info.warnings.append(f"{collector.what} could not be {done}: {type(error).__name__}: {error}")

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
        """Spans, artifacts and run facts as they are recorded; executed lines and deep-mode calls once stopped."""
        return self._trace

    @property
    def deep_events(self) -> list[DeepEvent]:
        return self._trace.deep_events


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


"""The tracer's options (the session's, shared by every front end, and the trace command's) and the session they set up."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from tracers.tracefile.names import DEVICES, run_name
from tracers.vocabulary.usage import UsageError

from .cachemode import MODES, cache_mode
from .deep import DeepTracer, DeepUnavailable, deep_tracer
from .devices import make_default, set_default_backend
from .lines import LineCounter, line_counter
from .recorder import Listener
from .runner import Program, check_module, check_script


@dataclass(frozen=True)
class SessionOptions:
    """The tracer's own options (not where the trace goes, nor what runs): the same for every front end."""

    device: str = "cpu"
    cache: str = "cold"
    keep_code: bool = True
    deep_min_us: float | None = None  # deep mode: record Python calls at least this long
    lines: str | None = None  # count executed lines: "" for the hooked functions, or a lock file for more
    inductor_ir: bool = False  # keep Inductor's IR before and after fusion
    vs_eager: bool = False  # time each compiled function's calls, to set beside a run with compile off
    profile: bool = False  # a torch.profiler pass over steady-state calls: kernel time by the user's line
    apply_fix: str | None = None  # a run of --check-fixes' own: the one fix to apply (a Remedy's JSON)

    @classmethod
    def from_flags(cls, *, device: str = "cpu", cache: str = "cold", keep_code: bool = True, deep: bool = False,
                   deep_min_us: float = 100.0, lines: bool = False, lines_lock: str | None = None,
                   inductor_ir: bool = False, vs_eager: bool = False, profile: bool = False,
                   apply_fix: str | None = None) -> SessionOptions:
        """From the flags as users give them (``add_session_arguments``, ``tracers.trace()``)."""
        return cls(device=device, cache=cache, keep_code=keep_code, deep_min_us=deep_min_us if deep else None,
                   lines=(lines_lock or "") if lines or lines_lock else None, inductor_ir=inductor_ir,
                   vs_eager=vs_eager, profile=profile, apply_fix=apply_fix)

    @classmethod
    def from_namespace(cls, flags: Any) -> SessionOptions:
        """From a namespace that ``add_session_arguments`` filled."""
        return cls.from_flags(device=flags.device, cache=flags.cache, keep_code=flags.keep_code, deep=flags.deep,
                              deep_min_us=flags.deep_min_us, lines=flags.lines, lines_lock=flags.lines_lock,
                              inductor_ir=flags.inductor_ir, vs_eager=getattr(flags, "vs_eager", False),
                              profile=getattr(flags, "profile", False), apply_fix=getattr(flags, "apply_fix", None))

    def check(self) -> None:
        """One line for the first bad value, before anything is set up."""
        if self.device not in DEVICES:
            raise UsageError(f"device {self.device!r}: choose {' or '.join(DEVICES)}")
        if self.cache not in MODES:
            raise UsageError(f"cache {self.cache!r}: choose {' or '.join(MODES)}")
        if self.deep_min_us is not None and self.deep_min_us < 0:
            raise UsageError(f"deep mode's minimum call time must be >= 0 µs, not {self.deep_min_us}")


def add_session_arguments(parser: Any) -> None:
    """The tracer's own flags, as ``trace`` and ``%%trace`` take them (an argparse parser)."""
    parser.add_argument("--device", choices=DEVICES, default="cpu",
                        help="cuda: require a GPU and make it torch's default device (default: cpu)")
    parser.add_argument("--cache", choices=MODES, default="cold",
                        help="cold: compile caches off, fresh cache dir (default); warm: keep your caches")
    parser.add_argument("--no-code", dest="keep_code", action="store_false",
                        help="leave generated code out of the trace file")
    parser.add_argument("--deep", action="store_true",
                        help="also record Python function calls with viztracer, on their own track of the same file")
    parser.add_argument("--deep-min-us", type=float, default=100.0, metavar="US",
                        help="deep mode keeps calls of at least US microseconds (default 100)")
    parser.add_argument("--lines", action="store_true",
                        help="count how often each line ran inside the hooked torch functions")
    parser.add_argument("--lines-lock", metavar="LOCK",
                        help="with --lines, also count inside the spans of a walkthrough lock file "
                             "(docs/walkthrough.lock.json): the site's excerpts")
    parser.add_argument("--inductor-ir", action="store_true",
                        help="keep Inductor's IR before and after fusion (torch's ir_pre_fusion/ir_post_fusion logs)")
    parser.add_argument("--vs-eager", action="store_true",
                        help="time each compiled function's calls (forward, its backward, and the step from one "
                             "call to the next), then run the script again in a fresh process with compile off and "
                             "time the same: eager vs compiled per step and per part, with their spread; payback")
    parser.add_argument("--profile", action="store_true",
                        help="a torch.profiler pass over a few steady-state calls of each compiled function: "
                             "kernel time by your line, time outside the compiled graphs, CUDA graph replays")


def import_torch():
    try:
        import torch
    except ImportError as error:
        raise UsageError(f"torch is not importable in this Python ({sys.executable}): {error}") from None
    return torch


@contextlib.contextmanager
def _device(device: str) -> Iterator[None]:
    """``cuda``: check there is a GPU and make it torch's default device for the run, then put back the previous one."""
    torch = import_torch()
    if device != "cuda":
        yield
        return
    if not torch.cuda.is_available():
        raise UsageError("--device cuda: no CUDA GPU is available to this torch "
                         f"({torch.__version__}, built with CUDA {torch.version.cuda or 'none'})")
    if torch.get_default_device().type == "cuda":
        yield  # already the default (the caller's own choice stays as it is)
        return
    # Scripts written for the CPU then allocate on the GPU without edits, and Dynamo sees no mode.
    make_default("cuda")
    try:
        yield
    finally:
        set_default_backend(torch)  # new tensors go to the CPU again, as before the block


def check_session(options: SessionOptions) -> None:
    """Every option's one-line complaint, before anything is set up: values, and deep mode's viztracer."""
    options.check()
    _deep_tracer(options.deep_min_us)


def _deep_tracer(min_duration_us: float | None) -> DeepTracer | None:
    try:
        return deep_tracer(min_duration_us)
    except DeepUnavailable as error:
        raise UsageError(str(error)) from None


def _line_counter(lock: str | None) -> tuple[LineCounter | None, str | None]:
    """Watches the hooked functions (added as they are patched), plus the lock's spans if given."""
    if lock:
        import_torch()  # one line, not a traceback, where torch is missing
    return line_counter(lock)


def _timing(options: SessionOptions):  # noqa: ANN202 - capture/timing.py's CallTiming, or None
    """Only with --vs-eager or --profile: a plain trace installs nothing that runs per call."""
    if not (options.vs_eager or options.profile):
        return None
    from .timing import CallTiming

    return CallTiming(options.profile)


@contextlib.contextmanager
def prepared_session(options: SessionOptions, command: list[str], listeners: Iterable[Listener] = ()):
    """A ``TraceSession`` (not started yet) with the cache mode and device applied until the block ends.

    torch is imported after the cache switches are set: its config modules read them on import."""
    options.check()
    with cache_mode(options.cache), _device(options.device):
        from .session import TraceSession

        lines, lines_warning = _line_counter(options.lines)
        session = TraceSession(keep_code=options.keep_code, device=options.device, cache_mode=options.cache,
                               command=command, listeners=listeners, deep=_deep_tracer(options.deep_min_us),
                               lines=lines, inductor_ir=options.inductor_ir,
                               timing=_timing(options), fix=_fix(options.apply_fix))
        if lines_warning:
            session.info.warnings.append(lines_warning)
        try:
            yield session
        finally:
            session.stop()  # safe when already stopped: every patch is undone however the block ends


def _fix(text: str | None) -> dict[str, Any] | None:
    """``--apply-fix``'s JSON (a Remedy's, analysis/finding_type.py); a bad one is a usage error, said in one line."""
    if text is None:
        return None
    import json

    try:
        fix = json.loads(text)
    except ValueError:
        fix = None
    if not isinstance(fix, dict) or not isinstance(fix.get("kind"), str) or not isinstance(fix.get("name"), str):
        raise UsageError(f"--apply-fix takes a fix as JSON (kind, name, value …), not {text[:80]!r}")
    return fix


@dataclass(frozen=True)
class TraceOptions:
    script: str  # a script's path, or with ``module`` set, the module's dotted name
    args: list[str]
    module: bool = False  # run ``script`` as python -m runs a module
    device: str = "cpu"
    cache: str = "cold"
    out: str = "traces"
    keep_code: bool = True
    quiet: bool = False
    deep_min_us: float | None = None  # deep mode: record Python calls at least this long
    lines: str | None = None  # count executed lines: "" for the hooked functions, or a lock file for more
    open_page: bool = False
    site: str | None = None  # the walkthrough the HTML page's chapter links point to
    page: bool = True  # write the HTML page beside the trace
    inductor_ir: bool = False  # keep Inductor's IR before and after fusion
    vs_eager: bool = False  # time compiled calls, and the same calls in a second run with compile off
    profile: bool = False  # a torch.profiler pass over steady-state calls
    keep_paths: bool = False  # write this machine's absolute paths as they are
    nproc: int | None = None  # launch the script on this many local ranks (torchrun) and merge their traces
    tree: bool = False  # print the whole stage tree, however long
    apply_fix: str | None = None  # a run of --check-fixes' own: the one fix to apply (a Remedy's JSON)
    check_fixes: bool = False  # run the script again once per fix the tracer can apply, and say what each did
    fix_timeout_s: float | None = None  # --check-fixes: each run's time limit (None: a multiple of the first run's)

    @property
    def run_name(self) -> str:
        """What the run's files are named after (tracefile/names.py)."""
        return run_name(self.script, self.module)

    @property
    def session(self) -> SessionOptions:
        return SessionOptions(device=self.device, cache=self.cache, keep_code=self.keep_code,
                              deep_min_us=self.deep_min_us, lines=self.lines, inductor_ir=self.inductor_ir,
                              vs_eager=self.vs_eager, profile=self.profile, apply_fix=self.apply_fix)


def check_program(options: TraceOptions) -> Program:
    return check_module(options.script) if options.module else check_script(options.script)

"""Inside a child process of a traced run: start tracing when the child imports torch, write its trace however it ends."""

from __future__ import annotations

import atexit
import importlib.abc
import json
import os
import signal
import sys
import threading
from pathlib import Path
from typing import Any

from tracers.tracefile.names import child_file

from .child_handoff import ENV, ChildSpec
from .signal_relay import SignalRelay, die_by

# torch's own helper processes: Inductor's compile workers import torch but run none of the user's code.
_TORCH_HELPERS = ("torch/_inductor/compile_worker", "torch._inductor.compile_worker")


def bootstrap() -> None:
    """Called by the bootstrap sitecustomize in every Python the traced run starts; cheap until torch is imported."""
    try:
        spec = ChildSpec.from_env(os.environ.get(ENV, ""))
    except ValueError as error:
        print(f"tracers: this child process is not traced: {error}", file=sys.stderr)
        return
    if any(helper in " ".join(sys.orig_argv) for helper in _TORCH_HELPERS):
        return
    if "torch" in sys.modules:
        _start(spec)
    else:
        sys.meta_path.insert(0, _AfterTorch(lambda: _start(spec)))


class _AfterTorch(importlib.abc.MetaPathFinder):
    """Runs ``then`` once ``import torch`` has finished, then leaves the import system as it found it."""

    def __init__(self, then: Any):
        self._then = then

    def find_spec(self, fullname: str, path: Any, target: Any = None) -> Any:
        if fullname != "torch":
            return None
        sys.meta_path.remove(self)
        import importlib.util

        spec = importlib.util.find_spec("torch")
        if spec is None or spec.loader is None or not hasattr(spec.loader, "exec_module"):
            return spec
        real, then = spec.loader, self._then

        class Loader(importlib.abc.Loader):
            def create_module(self, spec: Any) -> Any:
                return real.create_module(spec)

            def exec_module(self, module: Any) -> None:
                module.__loader__ = real  # nothing of ours stays on torch
                if module.__spec__ is not None:
                    module.__spec__.loader = real
                real.exec_module(module)
                try:
                    then()
                except Exception as error:  # noqa: BLE001 - the child runs on, untraced
                    print(f"tracers: this child process is not traced: {type(error).__name__}: {error}",
                          file=sys.stderr)

        spec.loader = Loader()
        return spec


def _start(spec: ChildSpec) -> None:
    _ChildTrace(spec).start()


class _ChildTrace:
    """One child's session, and the three ways its trace gets written: at exit, at os._exit, on SIGTERM."""

    def __init__(self, spec: ChildSpec):
        self.spec = spec
        self.pid = os.getpid()
        self.directory = Path(spec.directory)
        self.done = False
        self.exit_code: int | None = None  # a multiprocessing child's own status, from its _bootstrap
        self.writing = False  # end() is writing the trace: a SIGTERM now waits for it (pending_signal)
        self.pending_signal: int | None = None
        self.sigterm_handled = threading.Event()
        self.lock = threading.Lock()  # end() may be called by the signal relay's thread
        self.undo: list[Any] = []

    def start(self) -> None:
        from tracers.tracefile.chrome import write_atomic  # noqa: F401 - fail now, not at exit

        from .cachemode import cache_mode
        from .devices import make_default
        from .lines import line_counter
        from .session import TraceSession

        cache = cache_mode(self.spec.cache)  # a fresh cache dir per cold child, as each process of its own run
        cache.__enter__()
        self.undo.append(lambda: cache.__exit__(None, None, None))
        lines, warning = line_counter(self.spec.lines)
        device = self.spec.device
        if device == "cuda":
            import torch

            if torch.cuda.is_available():
                make_default("cuda")
            else:
                device = "cpu"
                warning = "--device cuda: this child process sees no CUDA GPU; it ran on the CPU"
        self.session = TraceSession(keep_code=self.spec.keep_code, device=device, cache_mode=self.spec.cache,
                                    command=list(sys.orig_argv), deep=_deep_tracer(self.spec.deep_min_us),
                                    lines=lines, inductor_ir=self.spec.inductor_ir, run_id=self.spec.run_id)
        if warning:
            self.session.info.warnings.append(warning)
        self.session.info.process = {"pid": self.pid, "parent_pid": os.getppid(), "run_id": self.spec.run_id,
                                     "spawn_index": None}
        # The forkserver itself runs no user code and lives as long as the run: only its children are listed.
        server = "multiprocessing.forkserver" in " ".join(sys.orig_argv)
        if not server:
            self._mark_started()
        self.session.start()
        atexit.register(self._at_exit)
        self._catch_hard_exit()
        self._catch_exit_call()
        self._catch_sigterm()
        self._catch_process_status()
        if server:
            # The forkserver imported torch itself (its preload): each child it forks takes this session as
            # its own, since the server compiles nothing and its children are the processes that run.
            os.register_at_fork(after_in_child=self._adopt)

    def _adopt(self) -> None:
        self.pid = os.getpid()
        self.session.info.process = {**self.session.info.process, "pid": self.pid, "parent_pid": os.getppid()}
        self._mark_started()
        self._relay_sigterm()  # the server's relay was left behind at the fork

    def _mark_started(self) -> None:
        """A note that this child began, so the parent can list it even if it dies before writing (SIGKILL, OOM)."""
        note = {"pid": self.pid, "parent_pid": os.getppid(), "command": list(sys.orig_argv)}
        self.directory.mkdir(parents=True, exist_ok=True)
        (self.directory / child_file(self.pid, started=True)).write_text(json.dumps(note), encoding="utf-8")

    def _catch_hard_exit(self) -> None:
        """forkserver's children end with os._exit: the trace is written first (in this process only)."""
        real_exit = os._exit

        def _exit(status: int) -> None:
            if os.getpid() == self.pid:
                self.end("exit" if status else "ok", status)
            real_exit(status)

        os._exit = _exit
        self.undo.append(lambda: setattr(os, "_exit", real_exit) if os._exit is _exit else None)

    def _catch_exit_call(self) -> None:
        """A script child's ``sys.exit(n)``: the status is not visible at exit, so note it on the way out."""
        real_exit = sys.exit

        def exit(status: object = None) -> None:  # noqa: A001 - stands in for sys.exit
            if os.getpid() == self.pid:
                # As the interpreter reads it: None is 0, an int is itself, anything else is printed and 1.
                self.exit_code = 0 if status is None else status if isinstance(status, int) else 1
            real_exit(status)

        sys.exit = exit
        self.undo.append(lambda: setattr(sys, "exit", real_exit) if sys.exit is exit else None)

    def _catch_sigterm(self) -> None:
        """A pool's terminate() ends its workers with SIGTERM: write the trace, then die by it as before."""
        if threading.current_thread() is not threading.main_thread() or \
                signal.getsignal(signal.SIGTERM) is not signal.SIG_DFL:
            return

        def on_sigterm(signum: int, frame: Any) -> None:
            self.sigterm_handled.set()
            if os.getpid() == self.pid:
                if self.writing:
                    # The child is already ending and writing its trace (a pool worker leaving as terminate()
                    # signals it): finish the trace, then die by this signal as the child would have.
                    self.pending_signal = signum
                    return
                self.end("terminated", 128 + signum, "terminated by SIGTERM")
            die_by(signum)

        signal.signal(signal.SIGTERM, on_sigterm)
        self.undo.append(lambda: signal.signal(signal.SIGTERM, signal.SIG_DFL)
                         if signal.getsignal(signal.SIGTERM) is on_sigterm else None)
        self._relay_sigterm()

    def _relay_sigterm(self) -> None:
        """Where the kernel gives the SIGTERM to another thread, the handler above still runs (SignalRelay)."""
        relay = SignalRelay(signal.SIGTERM, self.sigterm_handled, self._take_over)
        if relay.start():
            self.undo.append(relay.stop)

    def _take_over(self) -> None:
        """The main thread never ran the handler (a C call that ignores signals): end from the relay's thread."""
        with self.lock:
            if self.writing:
                self.pending_signal = signal.SIGTERM  # end() is running in the main thread: it dies after
                return
        self.end("terminated", 128 + signal.SIGTERM, "terminated by SIGTERM")
        die_by(signal.SIGTERM)

    def _catch_process_status(self) -> None:
        """A multiprocessing child's exit status is what its ``_bootstrap`` returns (it prints the traceback)."""
        process = sys.modules.get("multiprocessing.process")
        if process is None:
            return
        real = process.BaseProcess._bootstrap

        def _bootstrap(this: Any, *args: Any, **kwargs: Any) -> int:
            code = real(this, *args, **kwargs)
            self.exit_code = code
            return code

        process.BaseProcess._bootstrap = _bootstrap
        self.undo.append(lambda: setattr(process.BaseProcess, "_bootstrap", real))

    def _at_exit(self) -> None:
        if os.getpid() != self.pid:
            return  # a forked copy of this child (fork keeps the parent's state): not this child's end
        error = getattr(sys, "last_value", None)
        if error is not None:
            from .runner import outcome_of

            outcome = outcome_of(error)
            self.end(outcome.status, outcome.exit_code, outcome.error)
        elif self.exit_code:
            self.end("exit", self.exit_code, None)
        else:
            self.end("ok", 0)

    def end(self, status: str, code: int, error: str | None = None) -> None:
        """Write this child's trace once, into the run's children folder; the parent names and merges it."""
        with self.lock:
            if self.done:
                return
            self.done = True
            self.writing = True
        from tracers.tracefile.chrome import write_atomic

        from .runner import Outcome

        try:
            self.session.finish(Outcome(status, code, error))
            self.session.stop()
            trace = self.session.trace
            trace.info.process["spawn_index"] = _spawn_index()
            if trace.spans or trace.info.rank or trace.info.process["spawn_index"] is not None:
                write_atomic(trace, self.directory / child_file(self.pid), keep_paths=self.spec.keep_paths)
            # A child that never compiled and is no rank has nothing to say: it is left out, not listed.
            (self.directory / child_file(self.pid, started=True)).unlink(missing_ok=True)
        except Exception as failure:  # noqa: BLE001 - the child's own exit must go on
            print(f"tracers: this child's trace could not be written: {type(failure).__name__}: {failure}",
                  file=sys.stderr)
        finally:
            for undo in reversed(self.undo):
                try:
                    undo()
                except Exception:  # noqa: BLE001, S110 - exiting: nothing more to do about it
                    pass
            with self.lock:
                self.writing = False
            if self.pending_signal is not None:
                die_by(self.pending_signal)


def _spawn_index() -> int | None:
    """The index ``torch.multiprocessing.spawn`` gave this process (the first argument of its function)."""
    process = sys.modules.get("multiprocessing.process")
    current = process.current_process() if process is not None else None
    target = getattr(current, "_target", None)
    if getattr(target, "__module__", None) == "torch.multiprocessing.spawn" and \
            getattr(target, "__name__", None) == "_wrap":
        index = current._args[1]  # type: ignore[union-attr]  # _wrap(fn, i, args, error_file)
        return index if isinstance(index, int) else None
    return None


def _deep_tracer(min_us: float | None) -> Any:
    """Deep mode as the run asked; a child without viztracer goes on without it (the parent checked it has it)."""
    from .deep import DeepUnavailable, deep_tracer

    try:
        return deep_tracer(min_us)
    except DeepUnavailable:
        return None

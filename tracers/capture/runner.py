"""Run a user script (or a module, as ``python -m`` does) as ``__main__`` with its own argv, and report how it
ended the way Python would."""

from __future__ import annotations

import atexit
import contextlib
import importlib.machinery
import linecache
import os
import runpy
import signal
import sys
import tokenize
import traceback
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType

# Frames of the machinery that starts the script (ours and runpy's, frozen or not): not the script's.
_OWN_FILES = (str(Path(__file__).parent.parent), runpy.__file__.removesuffix("c"), "<frozen runpy>")


class ScriptError(Exception):
    """The script cannot be run at all (missing, a directory, a syntax error); one line says why."""

    def __init__(self, message: str, exit_code: int):
        super().__init__(message)
        self.exit_code = exit_code


class Terminated(BaseException):
    """Raised in the main thread on SIGTERM, so the trace is still written."""


@dataclass(frozen=True)
class Outcome:
    """How a run ended: status is ok, exit, error, interrupted, terminated, or exec (the process became another
    program, whose exit status no trace can know: None)."""

    status: str
    exit_code: int | None
    error: str | None = None  # one line for the trace metadata
    exception: BaseException | None = None


def outcome_of(exception: BaseException | None) -> Outcome:
    """The outcome Python itself would give for a run ended by ``exception``."""
    if exception is None:
        return Outcome("ok", 0)
    if isinstance(exception, SystemExit):
        code = _exit_code(exception)
        return Outcome("ok" if code == 0 else "exit", code, None, exception)
    if isinstance(exception, KeyboardInterrupt):
        return Outcome("interrupted", 130, "interrupted by Ctrl-C", exception)
    if isinstance(exception, Terminated):
        return Outcome("terminated", 128 + signal.SIGTERM, "terminated by SIGTERM", exception)
    line = f"{type(exception).__name__}: {exception}".splitlines()[0][:500]
    return Outcome("error", 1, line, exception)


@dataclass(frozen=True)
class Program:
    """What the tracer runs: a script file, or a module found on ``sys.path`` as ``python -m`` finds it."""

    path: Path | None  # the script; None for a module (runpy finds its file inside the run)
    module: str | None = None

    @property
    def name(self) -> str:
        """What the trace file is named after."""
        return self.module or (self.path.stem if self.path else "program")

    @property
    def display(self) -> str:
        return f"-m {self.module}" if self.module else str(self.path)


def check_module(name: str) -> Program:
    """Fail early, with Python's own one line, on a module whose top-level package is nowhere on the path.

    Only the top level is looked up here: finding ``pkg.mod`` means importing ``pkg``, which must happen
    inside the traced run, as it does under ``python -m``."""
    top = name.split(".", 1)[0]
    if not name or not all(part.isidentifier() for part in name.split(".")):
        raise ScriptError(f"-m {name!r}: not a module name", 2)
    if top not in sys.builtin_module_names and \
            importlib.machinery.PathFinder.find_spec(top, [os.getcwd(), *sys.path[1:]]) is None:
        raise ScriptError(f"No module named {top}", 1)
    return Program(None, name)


def check_script(path: str) -> Program:
    """Fail early, with one line, on a script that cannot run."""
    script = Path(path)
    if not script.exists():
        raise ScriptError(f"{path}: no such file", 2)
    if script.is_dir():
        raise ScriptError(f"{path}: is a directory, not a Python script", 2)
    try:
        source = script.read_bytes()
    except OSError as error:
        raise ScriptError(f"{path}: cannot read: {error.strerror}", 2) from None
    try:
        compile(source, str(script), "exec")
    except SyntaxError as error:
        where = f"{path}:{error.lineno}" if error.lineno else path
        raise ScriptError(f"{where}: {type(error).__name__}: {error.msg}", 1) from None
    except ValueError as error:  # null bytes
        raise ScriptError(f"{path}: not a Python source file ({error})", 1) from None
    return Program(script)


# The script's globals as runpy hands them back, held until the process exits: Python keeps __main__'s objects
# until it shuts down, and so does the tracer. Freed as the run returns instead, a DDP model's Reducer is destroyed
# while the main thread holds the GIL, joining gloo's worker thread, which needs the GIL to finish: a hang. Python
# frees __main__ after every atexit handler, first of the modules; registered before the script runs, this handler
# runs after the script's own (atexit runs the last registered first), while print still works.
_KEPT_GLOBALS: list[dict] = []
atexit.register(_KEPT_GLOBALS.clear)


def run_program(program: Program, args: list[str]) -> Outcome:
    """Execute the script or module as __main__; never raises what it raised, returns it.

    As Python does: a script's directory, or for ``-m`` the current directory, comes first on
    ``sys.path``; ``sys.argv[0]`` is the file that runs (runpy sets it for a module)."""
    # the whole path is given back after the run: a script that inserts its own folder first (sys.path.insert(0, …))
    # would otherwise leave it there, before the stdlib, for the tracer's own imports as it finishes
    saved_argv, saved_path = sys.argv[:], sys.path[:]
    # The script's code carries its path as typed (runpy's way; the trace names it so): where the file really is is
    # taken now, before the script can change directory, for its traceback's source lines.
    script = (str(program.path), os.path.abspath(program.path)) if program.path is not None else None
    first_on_path = os.getcwd() if program.path is None else str(program.path.resolve().parent)
    sys.argv = [str(program.path or program.module), *args]
    if sys.path:
        sys.path[0] = first_on_path
    else:
        sys.path.insert(0, first_on_path)
    previous_term = _install_sigterm()
    try:
        if program.path is None:
            _KEPT_GLOBALS.append(runpy.run_module(program.module, run_name="__main__", alter_sys=True))
        else:
            _KEPT_GLOBALS.append(runpy.run_path(str(program.path), run_name="__main__"))
    except (SystemExit, KeyboardInterrupt, Terminated) as ending:
        outcome = outcome_of(ending)
        if outcome.status == "exit" and not isinstance(ending.code, int):
            print(ending.code, file=sys.stderr)  # Python prints a non-integer exit argument
        return outcome
    except ImportError as error:
        if program.module and _not_found(error, program.module):  # python -m's own failure, not the module's
            print(f"{sys.executable}: {error}", file=sys.stderr)  # as python -m words it
            return Outcome("error", 1, str(error), error)
        print_script_traceback(error, script)
        return outcome_of(error)
    except BaseException as error:  # the script's own failure: reported as the script's
        print_script_traceback(error, script)
        return outcome_of(error)
    finally:
        if previous_term is not None and signal.getsignal(signal.SIGTERM) is not signal.SIG_IGN:  # not terminated
            signal.signal(signal.SIGTERM, previous_term)
        sys.argv = saved_argv
        sys.path[:] = saved_path
    return outcome_of(None)


@contextlib.contextmanager
def hard_exits_handled(before_exit: Callable[[int], None]) -> Iterator[None]:
    """While the block runs, ``os._exit(n)`` first calls ``before_exit(n)`` (which writes the trace), then
    really exits with n. Python runs no cleanup on os._exit, so this is the trace's only chance."""
    real_exit = os._exit
    traced_pid = os.getpid()

    def _exit(status: int) -> None:
        if os.getpid() != traced_pid:
            # A forked child (multiprocessing, DataLoader workers) ends with os._exit too: it is not the run.
            real_exit(status)
        try:
            before_exit(status)
        except BaseException:  # noqa: BLE001 - the script asked to exit now: nothing may stop it
            pass
        finally:
            real_exit(status)

    os._exit = _exit
    try:
        yield
    finally:
        if os._exit is _exit:
            os._exit = real_exit


def _not_found(error: ImportError, module: str) -> bool:
    """Whether finding ``module`` failed (it or a package above it is missing, or a package has no
    ``__main__``), rather than an import made by its own code."""
    if isinstance(error, ModuleNotFoundError) and error.name and f"{module}.".startswith(f"{error.name}."):
        return True
    tb = error.__traceback__  # runpy raised it itself
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    return tb is not None and tb.tb_frame.f_code.co_filename in (runpy.__file__.removesuffix("c"), "<frozen runpy>")


def _exit_code(exit_: SystemExit) -> int:
    """The status Python itself would exit with for this SystemExit."""
    code = exit_.code
    if code is None:
        return 0
    if isinstance(code, int):
        return code % 256
    return 1


def _install_sigterm() -> object | None:
    """Turn SIGTERM into an exception, unless the script's environment already handles it."""
    if os.name != "posix" or signal.getsignal(signal.SIGTERM) is not signal.SIG_DFL:
        return None

    def raise_terminated(signum: int, frame: object) -> None:
        # Once is enough: a second SIGTERM (a process group's and one passed on to it, trace_vs_eager.py) must not
        # cut the unwinding or the trace short; the process ends by SIGTERM all the same (die_by).
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        raise Terminated()

    try:
        return signal.signal(signal.SIGTERM, raise_terminated)
    except ValueError:  # not the main thread
        return None


def print_script_traceback(error: BaseException, script: tuple[str, str] | None = None) -> None:
    """Print the traceback as Python would, starting at the script's own frames (not ours), with the script's source
    lines: ``script`` is the name its code carries and the file's absolute path."""
    if script is not None:
        _remember_source(*script)
    tb: TracebackType | None = error.__traceback__
    while tb is not None and tb.tb_frame.f_code.co_filename.startswith(_OWN_FILES):
        tb = tb.tb_next
    print("".join(traceback.format_exception(type(error), error, tb)), end="", file=sys.stderr)


def _remember_source(name: str, path: str) -> None:
    """linecache's lines for the script under the name its code carries, read from its absolute path: a relative
    name is looked up from the working directory and sys.path, so a script that changed directory lost its lines
    (plain Python names ``__main__`` by its absolute path). No modification time: checkcache keeps the entry."""
    try:
        with tokenize.open(path) as source:  # decoded as Python decodes it: its coding line, else UTF-8
            lines = source.readlines()
    except (OSError, SyntaxError, UnicodeDecodeError):
        return  # gone or unreadable now: the traceback has no lines, as Python's would not
    linecache.cache[name] = (sum(len(line) for line in lines), None, lines, path)

"""``os.exec*`` in the traced script: the process becomes another program and no Python cleanup runs, so the trace
is written first; what the new program does is not traced."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterator

# os.execl, execle, execlp, execlpe, execvp and execvpe all end in one of these two, looked up in os by name.
_CALLS = ("execv", "execve")


def _runnable(path: object) -> bool:
    """Whether exec is likely to succeed: the file is there and executable (execvp tries each PATH entry in turn)."""
    try:
        path = os.fsdecode(path)  # type: ignore[arg-type]
    except TypeError:
        return False
    return os.path.isfile(path) and os.access(path, os.X_OK)


@contextlib.contextmanager
def execs_handled(before_exec: Callable[[str], None]) -> Iterator[None]:
    """While the block runs, an exec of a runnable file in this process first calls ``before_exec(what)`` (which
    writes the trace) once, then execs. A forked child's exec (subprocess's is in C and never comes here) is its own."""
    traced_pid = os.getpid()
    originals = {name: getattr(os, name) for name in _CALLS if hasattr(os, name)}
    called = False

    def wrapped(name: str, original: Callable[..., None]) -> Callable[..., None]:
        def exec_(path: object, *rest: object) -> None:
            nonlocal called
            if not called and os.getpid() == traced_pid and _runnable(path):
                called = True
                try:
                    before_exec(f"os.{name}({os.fsdecode(path)!r})")  # type: ignore[arg-type]
                except BaseException:  # noqa: BLE001 - the script's exec goes ahead whatever the trace did
                    pass
            original(path, *rest)

        return exec_

    patched = {name: wrapped(name, original) for name, original in originals.items()}
    for name, function in patched.items():
        setattr(os, name, function)
    try:
        yield
    finally:
        for name, function in patched.items():
            if getattr(os, name) is function:
                setattr(os, name, originals[name])

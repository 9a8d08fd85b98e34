"""Run by every Python a traced run starts: arms the child tracer, then runs the sitecustomize this one hides."""

# This folder goes first on the children's PYTHONPATH, so Python imports this module at start-up in each of them.

import importlib
import os
import sys


def _arm() -> None:
    here = os.path.dirname(os.path.abspath(__file__))
    root = os.path.dirname(os.path.dirname(os.path.dirname(here)))  # bootstrap → capture → tracers → root
    try:
        import tracers.capture.child_process as child
    except ImportError:
        sys.path.append(root)  # last, so nothing of the program's is shadowed
        import tracers.capture.child_process as child
    child.bootstrap()


def _chain() -> None:
    """Import the next sitecustomize on the path (a distribution's or a virtualenv's), as if ours were absent."""
    here = os.path.dirname(os.path.abspath(__file__))
    ours = sys.modules.pop(__name__, None)
    saved = sys.path[:]
    sys.path[:] = [entry for entry in sys.path if os.path.abspath(entry or ".") != here]
    try:
        importlib.import_module("sitecustomize")
    except ImportError:
        if ours is not None:
            sys.modules[__name__] = ours
    finally:
        sys.path[:] = saved


if os.environ.get("TRACERS_CHILD"):
    try:
        _arm()
    except Exception as error:  # noqa: BLE001 - the child must run as it would untraced
        print(f"tracers: this child process is not traced: {type(error).__name__}: {error}", file=sys.stderr)
_chain()

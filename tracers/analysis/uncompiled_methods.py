"""A module's own method called through what torch.compile returned (``compiled.generate(...)``): it is the original
module's method, so the model calls it makes run the forward uncompiled, and nothing in torch's logs says so."""

from __future__ import annotations

import re

from tracers.tracefile.events import Trace

from .finding_type import RESTARTS, Finding
from .frames import SourceLine, is_library

ARTIFACT = "forwarded_method"  # capture/forwarded_methods.py's record
_FIX = ("Compile the model in place instead, `{model}.compile(...)` on the model itself (then `{model}(...)` and "
        "`{model}.{method}(...)` both run compiled), or call `{method}` on the original model where running it "
        "eagerly is meant.")


def uncompiled_methods(trace: Trace) -> list[Finding]:
    """One finding per line of the user's that called a method of the wrapped module through torch.compile's
    wrapper."""
    found = []
    for artifact in trace.artifacts:
        meta = artifact.metadata
        if artifact.name != ARTIFACT or not isinstance(meta.get("method"), str):
            continue
        path, line = str(meta.get("filename") or ""), meta.get("line")
        if is_library(path) or not isinstance(line, int):
            continue  # a library's own call through the wrapper is its design
        method, code = meta["method"], str(meta.get("loc") or "")
        receiver = re.search(rf"([A-Za-z_][\w.]*)\.{re.escape(method)}\s*\(", code)
        called = f"`{receiver.group(1)}.{method}(...)`" if receiver else f"`{method}(...)`"
        owner = str(meta.get("module") or "the module")
        found.append(Finding(
            kind="uncompiled-method",
            what=f"{called} called `{owner}.{method}` of the original model: torch.compile's wrapper hands every "
                 f"attribute it lacks to the model it wraps, so the calls of the model that `{method}` makes run "
                 "its forward uncompiled, and nothing in torch's logs says so",
            events=1, compile_ids=(), cost_s=0.0, user_line=SourceLine(path, line, "", code),
            advice=_FIX.format(model="model", method=method), explained=RESTARTS))
    return found

"""The one-line rewrite of a data-dependent ``if`` that broke the graph: where both arms assign one name, the branch
is ``torch.where(cond, then, otherwise)``, which the user can paste. Read from the user's file while the run's files
are there (findings are made from the trace alone, later); a collector that patches nothing."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

from .collector import Warnings
from .recorder import Recorder

ARTIFACT = "branch_rewrite"
_BRANCHING = "Data-dependent branching"  # torch's title for a break on ``if tensor:``
_MAX_FILE_BYTES = 1 << 20  # a user's module, not a generated one
_MAX_PASTE = 200  # a line to paste, not a program


class BranchRewrites:
    """At stop, for each break torch titles data-dependent branching at a line of a readable Python file: the ``if``
    there written as one ``torch.where``, where its arms are one assignment each to the same name."""

    what = "the data-dependent branches written as torch.where"

    def __init__(self, recorder: Recorder):
        self.recorder = recorder

    def start(self) -> Warnings:
        return None

    def stop(self) -> Warnings:
        seen: set[str] = set()
        parsed: dict[str, ast.Module | None] = {}
        for artifact in list(self.recorder.artifacts):
            location = str(artifact.metadata.get("location") or "")
            said = f"{artifact.metadata.get('title') or ''}\n{(artifact.payload or '')[:4000]}"
            if artifact.kind != "break" or _BRANCHING not in said or location in seen:
                continue
            seen.add(location)
            path, _, line = location.rpartition(":")
            if not path.endswith(".py") or not line.isdigit():
                continue
            if path not in parsed:
                parsed[path] = _parse(Path(path))
            rewrite = _rewrite(parsed[path], int(line)) if parsed[path] is not None else None
            if rewrite is not None:
                self.recorder.add_artifact("other", ARTIFACT, None, {"location": location, **rewrite}, None, 0)
        return None

    def contribute(self, trace: Any) -> None:
        pass


def _parse(path: Path) -> ast.Module | None:
    try:
        if path.stat().st_size > _MAX_FILE_BYTES:
            return None
        return ast.parse(path.read_text(encoding="utf-8"))
    except (OSError, SyntaxError, UnicodeDecodeError, ValueError):
        return None


def _rewrite(module: ast.Module, line: int) -> dict[str, Any] | None:
    """``{"paste": "h = torch.where(h.sum() > 0, h * 2, h - 1)", "first": 6, "last": 9}`` for the ``if`` at ``line``
    whose arms each assign one expression to one and the same name (no ``else``: the name keeps its value)."""
    branch = next((node for node in ast.walk(module) if isinstance(node, ast.If) and node.lineno == line), None)
    if branch is None or len(branch.body) != 1 or len(branch.orelse) > 1:
        return None
    then = _assigned(branch.body[0])
    otherwise = _assigned(branch.orelse[0]) if branch.orelse else (then[0], ast.Name(then[0])) if then else None
    if then is None or otherwise is None or then[0] != otherwise[0]:
        return None
    paste = (f"{then[0]} = torch.where({ast.unparse(branch.test)}, {ast.unparse(then[1])}, "
             f"{ast.unparse(otherwise[1])})")
    if len(paste) > _MAX_PASTE:
        return None
    return {"paste": paste, "first": branch.lineno, "last": branch.end_lineno or branch.lineno}


def _assigned(statement: ast.stmt) -> tuple[str, ast.expr] | None:
    """(name, value) of ``name = value``; None for anything else (a call for its effect, two targets, a tuple)."""
    if isinstance(statement, ast.Assign) and len(statement.targets) == 1 and isinstance(statement.targets[0], ast.Name):
        return statement.targets[0].id, statement.value
    return None

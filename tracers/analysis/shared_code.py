"""Two objects compiled by two torch.compile calls of the user's that run one code (two ``nn.Sequential``s, a
generator and a discriminator): torch keeps that code's versions together, so the second object's first call fails
the first one's guards and compiles a version of its own. That is no recompile of a changed value: it is said as the
shared code (and its shared recompile limit), never as a size or a value that changed."""

from __future__ import annotations

import re

from tracers.tracefile.events import Trace

from .finding_type import RECOMPILES, Finding
from .frames import user_caller
from .run_evidence import CompileCall, RunEvidence

_ASSIGNED = re.compile(r"^\s*([A-Za-z_][\w.]*)\s*=\s*torch\.compile\(")  # ``cD = torch.compile(D, ...)``


def _compiled_names(evidence: RunEvidence) -> dict[str, CompileCall]:
    """The names the user's torch.compile lines assigned what they returned to, each with its call."""
    names = {}
    for call in evidence.calls:
        found = _ASSIGNED.match(call.code or "")
        if found and not call.by_library:
            names[found.group(1)] = call
    return names


def _through(trace: Trace, compile_id: str, names: dict[str, CompileCall]) -> set[str]:
    """Which of those names the user's line that led to the compile calls (``cD(real)``)."""
    line = user_caller(trace, compile_id)
    code = line.code if line is not None else ""
    return {name for name in names if re.search(rf"(?<![\w.]){re.escape(name)}\s*\(", code or "")}


def shared_code(trace: Trace, evidence: RunEvidence) -> tuple[list[Finding], set[str]]:
    """(a note per code two compiled objects share, the compile ids that are another object's first version): a
    compile whose call went through one compiled name while the version it failed was compiled through another, both
    names compiling that same code."""
    names = _compiled_names(evidence)
    if len(names) < 2:
        return [], set()
    firsts: dict[str, list[tuple[str, str, str]]] = {}  # code -> (compile id, its name, the version's name)
    for compile_id, failure in evidence.failures.items():
        now, before = _through(trace, compile_id, names), _through(trace, failure.version, names)
        if len(now) != 1 or len(before) != 1 or now == before:
            continue
        (new,), (old,) = now, before
        if names[new].compiled_name and names[new].compiled_name == names[old].compiled_name and \
                names[new].compiled_line == names[old].compiled_line:
            firsts.setdefault(names[new].compiled_name, []).append((compile_id, new, old))
    found = []
    for code, seen in firsts.items():
        said = dict.fromkeys(name for _, new, old in seen for name in (old, new))
        lines = ", ".join(f"`{name}` (torch.compile at {names[name].short})" for name in said)
        ids = tuple(compile_id for compile_id, _, _ in seen)
        found.append(Finding(
            kind="shared-code", what=f"{lines} compile one code, `{code}`: torch keeps its versions together, so the "
                                     f"first call through each other object compiled a version of its own "
                                     f"({', '.join(ids)}), no value of it changed",
            events=len(ids), compile_ids=ids, cost_s=0.0, user_line=user_caller(trace, ids[0]),
            parts=tuple(f"{compile_id}: the first call through `{new}` failed the guards of `{old}`'s version "
                        f"({evidence.failures[compile_id].version})" for compile_id, new, old in seen),
            advice="Nothing to fix: each object gets its versions, once. They count against one recompile limit "
                   "together (the code's), so a recompile of either brings both nearer to it.",
            explained=RECOMPILES, informational=True))
    return found, {compile_id for finding in found for compile_id in finding.compile_ids}

"""torch.compile arguments the run's own call shows to do nothing: a mode or Inductor options given to one of torch's
backends that take neither (aot_eager, eager), which drop them with a log line at each compile."""

from __future__ import annotations

from .finding_type import Explained, Finding
from .frames import SourceLine
from .run_evidence import RunEvidence

ENTRY = Explained("chapters/01-entry", "The entry point: torch.compile", "the-options-where-they-end-up")
# torch's own backends that take no mode and no options (torch/_dynamo/backends: aot_autograd-based ones drop them)
_IGNORING = frozenset({"eager", "aot_eager", "aot_eager_decomp_partition", "aot_eager_default_partitioner"})
_UNSET = (None, "", "default", {})


def ignored_arguments(evidence: RunEvidence) -> list[Finding]:
    """One finding per torch.compile call of the user's that passes a mode or options its backend drops."""
    found = []
    for call in evidence.calls:
        backend = call.says("backend")
        if call.by_library or backend not in _IGNORING:
            continue
        given = [name for name in ("mode", "options") if call.says(name) not in _UNSET]
        if not given:
            continue
        said = ", ".join(f"{name}={call.says(name)!r}" for name in given)
        found.append(Finding(
            kind="ignored-argument",
            what=f"torch.compile(..., {said}) does nothing here: backend={backend!r} takes no mode or options, and "
                 "torch drops them at each compile (its log line: \"ignoring extra kwargs\")",
            events=1, compile_ids=(), cost_s=0.0, user_line=SourceLine(call.file, call.line, "", call.code),
            advice=f"The compiles and the times of this run are {backend}'s: a mode and options are Inductor's. "
                   f"Leave {' and '.join(f'`{name}=`' for name in given)} out while you use backend={backend!r}, or "
                   "compile with the default backend (Inductor) for what they do.",
            explained=ENTRY))
    return found

"""torch.compile arguments the run's own call shows to do nothing: a mode given to one of torch's backends that take
none (aot_eager, eager), which drop it with a log line at each compile."""

from __future__ import annotations

from .finding_type import Explained, Finding
from .frames import SourceLine
from .run_evidence import RunEvidence

ENTRY = Explained("chapters/01-entry", "The entry point: torch.compile", "the-options-where-they-end-up")
# torch's own backends that take no mode (torch/_dynamo/backends: aot_autograd-based ones drop it)
_IGNORING = frozenset({"eager", "aot_eager", "aot_eager_decomp_partition", "aot_eager_default_partitioner"})
_UNSET = (None, "", "default")


def ignored_arguments(evidence: RunEvidence) -> list[Finding]:
    """One finding per torch.compile call of the user's that passes a mode its backend drops (the capture keeps
    torch.compile's plain arguments: capture/calls.py)."""
    found = []
    for call in evidence.calls:
        backend = call.says("backend")
        if call.by_library or not isinstance(backend, str) or backend not in _IGNORING:  # a trace is input
            continue
        mode = call.says("mode")
        if mode in _UNSET:
            continue
        found.append(Finding(
            kind="ignored-argument",
            what=f"torch.compile(..., mode={mode!r}) does nothing here: backend={backend!r} takes no mode, and torch "
                 "drops it at each compile (its log line: \"ignoring extra kwargs\")",
            events=1, compile_ids=(), cost_s=0.0, user_line=SourceLine(call.file, call.line, "", call.code),
            advice=f"The compiles and the times of this run are {backend}'s: a mode is Inductor's. Leave `mode=` out "
                   f"while you use backend={backend!r}, or compile with the default backend (Inductor) for what it "
                   "does.",
            explained=ENTRY))
    return found

"""Compiles that failed: an exception ended them (a backend that raised, an internal error), as torch's
compilation_metrics records it (``fail_type``, ``fail_reason``), not Dynamo declining a frame it cannot trace
(``Unsupported`` and its kin: the graph-break findings say those) nor the recompile limit (its own finding)."""

from __future__ import annotations

from .finding_type import Explained, Finding, Ledger
from .frames import SourceLine, parse_location, short
from .trace_facts import CompileFacts, TraceFacts

# Dynamo's own ways of declining a frame: the frame runs eager by design, a graph break or a limit, not a failure.
DECLINED = frozenset({"Unsupported", "UncapturedHigherOrderOpError", "SkipFrame", "RecompileLimitExceeded",
                      "CacheLimitExceeded", "FailOnRecompileLimitHit"})

BACKENDS = Explained("chapters/07-fx-graphs-and-backends", "FX graphs and backends")
_REASON_CHARS = 200


def failed(facts: TraceFacts) -> list[CompileFacts]:
    """The compiles an exception ended, in compile-id order."""
    return [compile_facts for compile_facts in facts.compiles
            if compile_facts.fail_type and compile_facts.fail_type not in DECLINED]


def failed_text(facts: TraceFacts) -> str:
    """``compile 0/0 failed (BackendCompilerFailed)``, for a header; empty where none failed."""
    failures = failed(facts)
    if not failures:
        return ""
    ids = ", ".join(compile_facts.compile_id for compile_facts in failures[:3]) + (" …" if len(failures) > 3 else "")
    types = ", ".join(dict.fromkeys(str(compile_facts.fail_type) for compile_facts in failures))
    return f"compile{'s' if len(failures) != 1 else ''} {ids} failed ({types})"


def _one_line(reason: str) -> str:
    """torch's reason on one line: ``backend='broken_backend' raised: RuntimeError: broken backend``."""
    text = " ".join(line.strip() for line in reason.splitlines() if line.strip())
    return text if len(text) <= _REASON_CHARS else text[:_REASON_CHARS - 1] + "…"


def _line(compile_facts: CompileFacts) -> SourceLine | None:
    """The user's line: the one torch names for the failure, else the line that called the compiled frame."""
    return parse_location(compile_facts.fail_line or "") or parse_location(compile_facts.user_frame or "")


def _advice(compile_facts: CompileFacts) -> str:
    ran = ("torch's suppress_errors was on: the frame ran eager, uncompiled, on every call. "
           if compile_facts.suppress_errors else
           "Unless suppress_errors is on, the exception reached the line that called the compiled function. ")
    if compile_facts.fail_type == "BackendCompilerFailed":
        return ran + ("The backend raised on Dynamo's graph: try backend='eager', then 'aot_eager', to find the "
                      "stage that fails; TORCHDYNAMO_REPRO_AFTER=dynamo writes a minimal repro of the graph.")
    return ran + "TORCHDYNAMO_VERBOSE=1 prints torch's whole traceback of the failure."


def compile_failures(facts: TraceFacts, ledger: Ledger) -> list[Finding]:
    """One finding per failed compile that no other finding has counted, costed at its whole compile."""
    out = []
    for compile_facts in failed(facts):
        if ledger.counted(compile_facts.compile_id):
            continue
        frame = short(compile_facts.frame) if compile_facts.frame else None
        reason = _one_line(compile_facts.fail_reason or "")
        what = (f"The compile of `{frame}` failed" if frame else f"Compile {compile_facts.compile_id} failed") + \
            f" with {compile_facts.fail_type}"
        out.append(Finding(
            kind="compile-failed", what=what, events=1, compile_ids=(compile_facts.compile_id,),
            cost_s=ledger.whole(compile_facts.compile_id), cost_counts="the failed compile",
            user_line=_line(compile_facts), parts=(f"torch: {reason}",) if reason else (), advice=_advice(compile_facts),
            explained=BACKENDS if compile_facts.fail_type == "BackendCompilerFailed" else None,
            detail=compile_facts.fail_reason or ""))
    return out

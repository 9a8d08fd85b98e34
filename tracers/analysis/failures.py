"""Compiles that failed: an exception ended them (a backend that raised, an internal error), as torch's
compilation_metrics records it (``fail_type``, ``fail_reason``), not Dynamo declining a frame it cannot trace
(``Unsupported`` and its kin: the graph-break findings say those) nor the recompile limit (its own finding)."""

from __future__ import annotations

from dataclasses import dataclass

from tracers.tracefile.events import Trace

from .finding_type import Explained, Finding, Ledger
from .frames import SourceLine, is_library, library_name, parse_location, short, traceback_lines
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


_USER_CODE = "from user code:"  # what Dynamo's error text puts before the frames it was tracing
_INTERNAL = ("Dynamo itself raised while tracing that line: the exception came from its own code (torch/_dynamo), "
             "not from yours. ")
_KEEP_OUT = ("Keep that call out of what Dynamo traces: in a function of yours decorated with @torch.compiler.disable "
             "(a graph break there; the rest still compiles), or compile a smaller part that leaves it out; or set "
             "torch._dynamo.config.suppress_errors=True to run each frame that fails eager, uncompiled.")


@dataclass(frozen=True)
class _Traced:
    """Where Dynamo was when the compile failed, from torch's ``dynamo_error`` record."""

    user: SourceLine | None  # the innermost line of the user's that Dynamo was tracing
    inside: SourceLine | None  # the library's function that line called, where the failure was
    internal: bool  # the exception was raised in Dynamo's own code


def _traced(trace: Trace, compile_id: str) -> _Traced | None:
    """The frames Dynamo was tracing when the compile failed (the text after ``from user code:``)."""
    text = next((artifact.payload for artifact in trace.artifacts if artifact.name == "dynamo_error"
                 and artifact.compile_id == compile_id and artifact.payload), "")
    raised, _, traced = text.partition(_USER_CODE)
    frames = traceback_lines(traced)
    ours = [index for index, frame in enumerate(frames) if not is_library(frame.path)]
    if not ours:
        return None
    inside = frames[ours[-1] + 1] if ours[-1] + 1 < len(frames) else None
    innermost = traceback_lines(raised)[-1:]
    internal = bool(innermost) and "torch/_dynamo/" in innermost[0].path.replace("\\", "/")
    return _Traced(frames[ours[-1]], inside, internal)


def _advice(compile_facts: CompileFacts, traced: _Traced | None = None) -> str:
    ran = ("torch's suppress_errors was on: the frame ran eager, uncompiled, on every call. "
           if compile_facts.suppress_errors else
           "Unless suppress_errors is on, the exception reached the line that called the compiled function. ")
    if compile_facts.fail_type == "BackendCompilerFailed":
        return ran + ("The backend raised on Dynamo's graph: try backend='eager', then 'aot_eager', to find the "
                      "stage that fails; TORCHDYNAMO_REPRO_AFTER=dynamo writes a minimal repro of the graph.")
    if traced is not None and traced.internal:
        return _INTERNAL + ran + _KEEP_OUT
    return ran + "TORCHDYNAMO_VERBOSE=1 prints torch's whole traceback of the failure."


def compile_failures(trace: Trace, facts: TraceFacts, ledger: Ledger) -> list[Finding]:
    """One finding per failed compile that no other finding has counted, costed at its whole compile; placed at the
    user's line Dynamo was tracing when it failed, where torch's record of the error names one."""
    out = []
    for compile_facts in failed(facts):
        if ledger.counted(compile_facts.compile_id):
            continue
        frame = short(compile_facts.frame) if compile_facts.frame else None
        reason = _one_line(compile_facts.fail_reason or "")
        traced = _traced(trace, compile_facts.compile_id)
        what = (f"The compile of `{frame}` failed" if frame else f"Compile {compile_facts.compile_id} failed") + \
            f" with {compile_facts.fail_type}"
        parts = (f"torch: {reason}",) if reason else ()
        if traced is not None:
            what += f" while tracing `{traced.user.code}` ({traced.user.short})" if traced.user.code else \
                f" while tracing {traced.user.short}"
            if traced.inside is not None:
                parts = (f"inside {library_name(traced.inside.path)}'s `{traced.inside.function}` "
                         f"({traced.inside.short}), which that line called",
                         *parts)
        out.append(Finding(
            kind="compile-failed", what=what, events=1, compile_ids=(compile_facts.compile_id,),
            cost_s=ledger.whole(compile_facts.compile_id), cost_counts="the failed compile",
            user_line=traced.user if traced is not None else _line(compile_facts), parts=parts,
            advice=_advice(compile_facts, traced),
            explained=BACKENDS if compile_facts.fail_type == "BackendCompilerFailed" else None,
            detail=compile_facts.fail_reason or ""))
    return out

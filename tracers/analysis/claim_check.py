"""The one check of a run's findings against the run: every claim said holds over the trace's evidence, and every
sentence that needs a claim carries it. The findings are made by it (claims.say); the tests run it over every trace."""

from __future__ import annotations

from tracers.tracefile.events import Trace

from .claims import contradictions, unbacked
from .finding_type import Finding
from .findings import findings, run_evidence
from .run_evidence import RunEvidence
from .trace_facts import TraceFacts, analyze


def check(trace: Trace, found: list[Finding] | tuple[Finding, ...] | None = None,
          facts: TraceFacts | None = None) -> list[str]:
    """What the findings of ``trace`` (made here unless given) say that the run does not back, one line each."""
    facts = facts if facts is not None else analyze(trace)
    found = list(found) if found is not None else findings(trace, facts)
    evidence = run_evidence(trace, facts)
    problems = []
    for number, finding in enumerate(found, 1):
        text = " ".join((finding.what, finding.fix or "", *finding.parts))
        problems += [f"finding {number} ({finding.kind}): refuted: {line}"
                     for line in contradictions(finding.claims, evidence)]
        problems += [f"finding {number} ({finding.kind}): says “{sentence}” with nothing to back it"
                     for sentence in unbacked(text, finding.claims)]
        problems += [f"finding {number} ({finding.kind}): offers “{remedy}” for recompiles no size change caused"
                     for remedy in _size_remedies_without_a_size(finding, evidence)]
    return problems


# What only a changing size calls for: said for a dtype or a value, it does nothing when applied.
SIZE_REMEDIES = ("mark_dynamic", "pad it", "drop_last")


def _size_remedies_without_a_size(finding: Finding, evidence: RunEvidence) -> list[str]:
    """The size remedies in the finding's fix where its recompiles' causes are known and none is a size."""
    causes = [evidence.failures[compile_id] for compile_id in finding.compile_ids if compile_id in evidence.failures]
    if not causes or any(cause.kind == "size" for cause in causes):
        return []
    return [remedy for remedy in SIZE_REMEDIES if remedy in (finding.fix or "")]

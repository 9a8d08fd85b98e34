"""One trace's report model: every analysis the page, the summary and the API show, computed once per trace."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from tracers.tracefile.events import Trace

from . import by_code as by_code_module
from . import compiled_by as compiled_by_module
from . import failures as failures_module
from . import findings as findings_module
from . import frames as frames_module
from . import guard_failures as guard_failures_module
from . import kernels as kernels_module
from . import speed as speed_module
from . import trace_facts as trace_facts_module
from .by_code import ByCode
from .finding_type import Finding, Remedy
from .fix_checks import VERDICTS, FixCheck, checks_of
from .frames import SourceLine
from .guard_failures import GuardFailure
from .kernels import KernelMap
from .speed import Speed
from .totals import Totals
from .trace_facts import TraceFacts


@dataclass(frozen=True)
class Report:
    """What the views take: the trace and each analysis of it. Views format these; they compute nothing."""

    trace: Trace
    facts: TraceFacts
    findings: tuple[Finding, ...]
    headline: str  # one line for the findings: clean, or how many and what they cost
    by_code: ByCode
    kernels: KernelMap
    speed: Speed | None  # None: recorded without --vs-eager or --profile
    failed: str  # ``compile 0/0 failed (…)`` for the header; empty when none failed
    totals: Totals
    # Every guard-failure text the views say as a sentence (recompiles' and recompile records' newest reason).
    guard_failures: Mapping[str, GuardFailure]
    # Each graph break's location read as a source line (None: not a ``file:line`` torch gave).
    break_places: Mapping[str, SourceLine | None]
    # --check-fixes: each fix checked, by its Remedy's key (empty: the run checked none)
    fix_checks: Mapping[str, FixCheck] = field(default_factory=lambda: MappingProxyType({}))
    # where a library called torch.compile for the user (the Trainer, generate()): one sentence per call site
    compiled_by: tuple[str, ...] = ()
    # each recompile's cause, by compile id: what the call changed, read from its failures against every version
    # (the findings' reading), in the user's names; torch's first reason may be another version's older change
    recompile_causes: Mapping[str, GuardFailure] = field(default_factory=lambda: MappingProxyType({}))

    def checks_for(self, finding: Finding) -> list[tuple[Remedy, FixCheck | None]] | None:
        """The finding's remedies with their checks, the best verdict first; None where the run checked no fix."""
        if not self.fix_checks:
            return None
        paired = [(remedy, self.fix_checks.get(remedy.key)) for remedy in finding.remedies]
        return sorted(paired, key=lambda pair: VERDICTS.index(pair[1].verdict) if pair[1] else len(VERDICTS))

    @property
    def compiled(self) -> bool:
        """Anything reached torch.compile's pipeline (a log without timed regions still lists its compiles)."""
        return bool(self.trace.spans or self.facts.compiles)

    def guard_failure(self, reason: str) -> GuardFailure:
        return self.guard_failures[reason]

    def recompile_cause(self, compile_id: str | None, reasons: list[str]) -> GuardFailure | None:
        """What one recompile's call changed (None: no reason recorded)."""
        cause = self.recompile_causes.get(compile_id or "")
        return cause if cause is not None else self.guard_failures[reasons[0]] if reasons else None


def build_report(trace: Trace, facts: TraceFacts | None = None) -> Report:
    """Analyse ``trace`` once (``facts``: its analysis when the caller has it already, e.g. a finished session)."""
    # Looked up on the modules at call time, so a test can count the calls by replacing one function.
    facts = facts if facts is not None else trace_facts_module.analyze(trace)
    found = tuple(findings_module.findings(trace, facts))
    kernels = kernels_module.kernel_map(trace)
    evidence = findings_module.run_evidence(trace, facts)
    return Report(
        trace=trace, facts=facts, findings=found, headline=findings_module.headline(list(found), facts),
        by_code=by_code_module.by_code(trace), kernels=kernels, speed=speed_module.speed_of(trace, kernels),
        failed=failures_module.failed_text(facts), totals=facts.totals(),
        guard_failures=MappingProxyType({reason: guard_failures_module.parse_failure(reason)
                                         for reason in _guard_reasons(trace, facts)}),
        break_places=MappingProxyType({graph_break.location: frames_module.parse_location(graph_break.location)
                                       for graph_break in facts.graph_breaks}),
        fix_checks=MappingProxyType(checks_of(trace)),
        compiled_by=compiled_by_module.compiled_by(evidence),
        recompile_causes=MappingProxyType(dict(evidence.failures)),
    )


def _guard_reasons(trace: Trace, facts: TraceFacts) -> list[str]:
    """The newest failure of each recompile (torch lists every earlier version's): the one the views say."""
    reasons = [recompile.reasons[0] for recompile in facts.recompiles if recompile.reasons]
    for artifact in trace.artifacts:
        listed = artifact.metadata.get("reasons") if artifact.kind == "recompile" else None
        if listed and isinstance(listed[0], str):
            reasons.append(listed[0])
    return reasons

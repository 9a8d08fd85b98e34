"""A finding's claims: each a typed statement about the run with a check over the run's own evidence; a claim is said
only where its check holds, else its fallback (what the evidence does support) is said instead."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from .run_evidence import DEFAULT_RECOMPILE_LIMIT, PLAIN_VALUE, RunEvidence


@dataclass(frozen=True)
class Claim:
    """``kind`` names the check (CHECKS); ``about`` its arguments (compile ids, a name, a number); ``text`` what is
    said when it holds, ``fallback`` what is said when it does not ("" for nothing)."""

    kind: str
    about: tuple[str, ...]
    text: str
    fallback: str = ""


def _served_once(evidence: RunEvidence, version: str, subject: str = "") -> bool:
    """The version served one call, and the value changed only that once: no other version of the frame failed on
    the same value, before or after (a size that changes on every call makes each version serve one call too), no
    later call still failed the version before on it (the value stayed new, and another change compiled again), and
    no other version made the size symbolic (a dynamic version elsewhere serves later sizes unseen: the calls after
    this one say nothing of the value going back)."""
    if evidence.served.get(version) != 1 or evidence.still_differs(version):
        return False
    failure = evidence.failures.get(version)
    dim = failure.dimension if failure is not None else None
    frame = version.rpartition("/")[0]
    if dim is not None and any(evidence.made_symbolic(other, failure.source, dim)
                               for other in evidence.versions.get(frame, ()) if other != version):
        return False  # another version takes any size there: later calls of other sizes may have gone to it
    return not any(failure.subject == subject for other, failure in evidence.failures.items()
                   if other != version and other.rpartition("/")[0] == frame)


def _also_differs(evidence: RunEvidence, compile_id: str, version: str, name: str) -> bool:
    """The version the recompile failed against pinned ``name`` to another value than the recompile's own guards."""
    return any(source == name for source, _, _ in evidence.also_differs(compile_id, version))


def _made_symbolic_too(evidence: RunEvidence, compile_id: str, *names: str) -> bool:
    """The compile made each of those numbers a symbol (torch's ``create_symbol`` records)."""
    made = evidence.values_made_symbolic(compile_id)
    return bool(names) and all(name in made for name in names)


def _served(evidence: RunEvidence, version: str, calls: str) -> bool:
    """The version served that many calls (the call that compiled it included)."""
    return str(evidence.served.get(version)) == calls


def _stays_dynamic(evidence: RunEvidence, version: str, name: str, dim: str = "") -> bool:
    """torch made no constant of the value in that version (no symbolic_shape_specialization for it)."""
    return evidence.pinned(version, name, int(dim) if dim.isdigit() else None) is None


def _went_dynamic(evidence: RunEvidence, version: str, source: str, dim: str = "") -> bool:
    """The version the change failed had the value static (no ``create_symbol`` for it): the change made it dynamic,
    not dynamic=True or mark_dynamic before it."""
    return not evidence.made_symbolic(version, source, int(dim) if dim.isdigit() else PLAIN_VALUE)


def _pinned(evidence: RunEvidence, version: str, name: str, dim: str = "") -> bool:
    return not _stays_dynamic(evidence, version, name, dim)


def _served_later_calls(evidence: RunEvidence, version: str, subject: str = "", dim: str = "", kind: str = "") -> bool:
    """No later compile failed against the version on the same value, at the same dimension, of the same kind (where
    said: a dtype after a size, or grad mode, is another cause), nor on that value again against a later version, and
    the limit refused none of the frame's later calls that changed it (or whose change is not known)."""
    dimension = int(dim) if dim.isdigit() else None

    def about_it(refused: str) -> bool:
        failure = evidence.failures.get(refused)
        return failure is None or not subject or (subject in (failure.subject, failure.source)
                                                  and (not kind or failure.kind == kind))

    return not evidence.failed_against(version, subject or None, dimension, kind or None) and \
        not (subject and evidence.changed_again(version, subject, dimension, kind or None)) and \
        not any(later in evidence.refused and about_it(later) for later in evidence.later_versions(version))


def _limit_is(evidence: RunEvidence, version: str, limit: str) -> bool:
    """The run's recompile limit for that frame is the one said."""
    return str(evidence.recompile_limit(version)[0]) == limit


def _default_limit(evidence: RunEvidence, version: str) -> bool:
    """The run kept torch's default recompile limit (or recorded none, as traces before the config was kept)."""
    return evidence.recompile_limit(version)[0] == DEFAULT_RECOMPILE_LIMIT


def _in_optimizer(_evidence: RunEvidence, path: str) -> bool:
    """The guard's code is torch.optim's (a step's state is created on its first call)."""
    return "torch/optim/" in path.replace("\\", "/") or path.startswith("optim/")


def _hook_guards_skipped(evidence: RunEvidence, version: str) -> bool:
    """The compile ran with torch's guards on module hooks skipped (recorded as on)."""
    return evidence.setting(version, "skip_nnmodule_hook_guards") is True


def _dynamic_safe(evidence: RunEvidence) -> bool:
    """No version compiled with dynamic sizes broke on a symbolic value (an operator given a SymBool): advice to make
    sizes dynamic is not refuted by the run."""
    return not evidence.symbolic


CHECKS: dict[str, Callable[..., bool]] = {
    "dynamic-safe": _dynamic_safe,
    "served": _served,
    "stays-dynamic": _stays_dynamic,
    "pinned": _pinned,
    "went-dynamic": _went_dynamic,
    "hook-guards-skipped": _hook_guards_skipped,
    "served-once": _served_once,
    "also-differs": _also_differs,
    "made-symbolic-too": _made_symbolic_too,
    "served-later-calls": _served_later_calls,
    "limit-is": _limit_is,
    "default-limit": _default_limit,
    "in-optimizer": _in_optimizer,
}


def holds(claim: Claim, evidence: RunEvidence) -> bool:
    return CHECKS[claim.kind](evidence, *claim.about)


def say(claim: Claim, evidence: RunEvidence, said: list[Claim] | None = None) -> str:
    """The claim's text where its check holds, else its fallback; ``said`` collects the claims whose text was said
    (a finding keeps them: the checker reads them again over the trace)."""
    if holds(claim, evidence):
        if said is not None:
            said.append(claim)
        return claim.text
    return claim.fallback


# Sentences a finding may say only with the claim that backs them said too: the text is the claim's, never free.
BACKED_BY = {
    "for one call only": "served-once",
    "served one call only": "served",
    "compiled it as dynamic": "stays-dynamic",
    "(automatic dynamic)": "went-dynamic",
    "made dynamic in the same compile": "made-symbolic-too",
    "no later call compiled again for it": "served-later-calls",
    "torch keeps by default": "default-limit",
    "an optimizer's first step": "in-optimizer",
    "torch skipped guards on module hooks": "hook-guards-skipped",
}


def contradictions(claims: tuple[Claim, ...], evidence: RunEvidence) -> list[str]:
    """The said claims the run's evidence refutes: none, wherever the findings were made (trace, report, merge)."""
    return [f"{claim.kind}{claim.about}: {claim.text}" for claim in claims if not holds(claim, evidence)]


def unbacked(text: str, claims: tuple[Claim, ...]) -> list[str]:
    """The sentences of BACKED_BY in ``text`` said without their claim among ``claims``."""
    kinds = {claim.kind for claim in claims}
    return [sentence for sentence, kind in BACKED_BY.items() if sentence in text and kind not in kinds]

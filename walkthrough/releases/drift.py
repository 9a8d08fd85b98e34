"""What a page shows of each excerpt, symbol link and fact in a release other than the reference.

The status is verify's (walkthrough/verify.py's Classifier, run once per release in ReleaseView);
this module only decides which code to show beside it."""

from __future__ import annotations

from dataclasses import dataclass

from walkthrough.excerpt import Excerpt, ExcerptError, ExcerptSpec, build
from walkthrough.facts import Claim, FactResult
from walkthrough.releases.context import ReleaseView
from walkthrough.successors import Successor
from walkthrough.symbols import Symbol, SymbolNotFound
from walkthrough.verify import Finding

QUIET = frozenset({"SAME", "MOVED"})  # shown from the release with no mark


@dataclass(frozen=True)
class ExcerptView:
    status: str  # verify's: SAME, MOVED, CHANGED, MISSING, INHERITED; UNLOCKED when the lock lacks it
    excerpt: Excerpt | None  # what is shown: the release's code, or the reference's when gone
    from_reference: bool  # the code shown is the reference's (the excerpt is gone in this release)
    release: str
    reference: str
    diff: str = ""  # normalized unified diff, reference -> release
    successors: tuple[Successor, ...] = ()
    note: str = ""

    @property
    def marked(self) -> bool:
        return self.status not in QUIET


@dataclass(frozen=True)
class SymbolView:
    status: str
    symbol: Symbol | None  # where the link points: the release's lines, else the reference's
    git_version: str  # the commit of the tree ``symbol`` comes from
    from_reference: bool
    release: str
    reference: str
    successors: tuple[Successor, ...] = ()
    note: str = ""


@dataclass(frozen=True)
class FactView:
    status: str  # SAME/MOVED (holds), CHANGED (false here), MISSING, UNCHECKED
    result: FactResult  # in this release
    release: str
    reference: str


def excerpt_view(view: ReleaseView, page: str, spec: ExcerptSpec) -> ExcerptView:
    """The excerpt for this release: the release's code unless it is gone, with verify's status and diff."""
    finding = view.finding("excerpt", f"{page}: {spec.key}")
    base = dict(release=view.release, reference=view.reference_version)
    if finding is not None and finding.status in ("INHERITED", "MISSING"):
        shown = _reference_excerpt(view, spec)
        return ExcerptView(finding.status, shown, shown is not None, diff="",
                           successors=_successors(view, spec.target, finding), note=finding.note, **base)
    try:
        excerpt = build(view.target, spec, lenient=True)
    except SymbolNotFound as exc:  # only for an excerpt the lock does not hold yet: verify decided the rest
        shown = _reference_excerpt(view, spec)
        return ExcerptView("MISSING", shown, shown is not None, diff="",
                           successors=_successors(view, spec.target, finding), note=exc.reason, **base)
    if finding is None:
        # Written after the lock was refreshed (a non-reference build does not insist on a fresh lock):
        # verify has no say, so the lenient build's own findings decide.
        status = "CHANGED" if excerpt.stale or excerpt.anchors_lost else "UNLOCKED"
        return ExcerptView(status, excerpt, False, note="not in the lock: written after it was last refreshed",
                           **base)
    return ExcerptView(finding.status, excerpt, False, diff=finding.diff,
                       note=finding.note if finding.status not in QUIET else "", **base)


def _reference_excerpt(view: ReleaseView, spec: ExcerptSpec) -> Excerpt | None:
    if view.reference is None or view.reference is view.target:
        return None
    try:
        return build(view.reference, spec, lenient=True)
    except (SymbolNotFound, ExcerptError):
        return None


def _successors(view: ReleaseView, target: str, finding: Finding | None) -> tuple[Successor, ...]:
    if finding is not None and finding.successors:
        return finding.successors
    symbol = view.finding("symbol", target)
    return symbol.successors if symbol else ()


def symbol_view(view: ReleaseView, name: str) -> SymbolView:
    """Where a symbol link points in this release, and whether it drifted."""
    finding = view.finding("symbol", name)
    base = dict(release=view.release, reference=view.reference_version)
    try:
        symbol = view.target.resolve(name)
    except SymbolNotFound as exc:
        old = None
        if view.reference is not None and view.reference is not view.target:
            try:
                old = view.reference.resolve(name)
            except SymbolNotFound:
                old = None
        git = view.reference.source.git_version if old is not None and view.reference else ""
        return SymbolView("MISSING", old, git, old is not None,
                          successors=finding.successors if finding else (), note=exc.reason, **base)
    status = finding.status if finding else "UNLOCKED"
    return SymbolView(status, symbol, view.target.source.git_version, False,
                      note=finding.note if finding else "", **base)


def fact_view(view: ReleaseView, claim: Claim, result: FactResult) -> FactView:
    """The claim's ``result`` in this release, with verify's status when the fact is locked."""
    finding = view.finding("fact", claim.text)
    fallback = {"true": "SAME", "false": "CHANGED", "missing": "MISSING"}.get(result.status, "UNCHECKED")
    return FactView(finding.status if finding else fallback, result, view.release, view.reference_version)

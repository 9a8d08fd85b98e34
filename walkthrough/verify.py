"""Verify: every locked symbol, excerpt and fact, and every stages-table target, against another torch tree."""

from __future__ import annotations

import difflib
import time
from collections import Counter
from dataclasses import dataclass

from walkthrough.excerpt import ExcerptError, build, normalize_lines
from walkthrough.facts import Claim, evaluate
from walkthrough.lock import ExcerptEntry, FactEntry, Lock, SymbolEntry
from walkthrough.successors import Successor, find_successors
from walkthrough.symbols import Resolver, Symbol, SymbolNotFound

STATUSES = ("SAME", "MOVED", "INHERITED", "CHANGED", "MISSING", "UNCHECKED")
DRIFT = frozenset({"CHANGED", "MISSING"})


@dataclass(frozen=True)
class Place:
    file: str
    start: int
    end: int


@dataclass(frozen=True)
class Finding:
    kind: str  # symbol | excerpt | fact
    name: str  # qualname, "page: excerpt key" or the claim
    chapters: tuple[str, ...]
    status: str
    old: Place | None
    new: Place | None
    uses: tuple[str, ...] = ()
    note: str = ""
    diff: str = ""
    successors: tuple[Successor, ...] = ()

    @property
    def chapter(self) -> str:
        return self.chapters[0] if self.chapters else ""


@dataclass(frozen=True)
class Report:
    baseline_version: str
    baseline_git: str
    target_version: str
    target_git: str
    target_origin: str
    findings: tuple[Finding, ...]
    seconds: float

    def counts(self, kind: str | None = None) -> Counter:
        return Counter(f.status for f in self.findings if kind is None or f.kind == kind)

    @property
    def drifted(self) -> bool:
        return any(f.status in DRIFT for f in self.findings)

    @property
    def exit_code(self) -> int:
        return 1 if self.drifted else 0


def unified(old: str, new: str, old_label: str, new_label: str) -> str:
    return "\n".join(difflib.unified_diff(old.splitlines(), new.splitlines(), old_label, new_label, lineterm="", n=2))


class Classifier:
    """The one drift classifier: each locked symbol, excerpt or fact against a target tree (verify and the release builds)."""

    def __init__(self, lock: Lock, target: Resolver, baseline: Resolver | None) -> None:
        self.lock, self.target, self.baseline = lock, target, baseline
        self.symbol_findings: dict[str, Finding] = {}

    def baseline_symbol(self, name: str) -> Symbol | None:
        if self.baseline is None:
            return None
        try:
            return self.baseline.resolve(name)
        except SymbolNotFound:
            return None

    @staticmethod
    def _label(resolver: Resolver | None, file: str) -> str:
        return f"{resolver.version if resolver else '?'}/{file}"

    def symbol(self, entry: SymbolEntry) -> Finding:
        old = Place(entry.file, entry.start, entry.end)
        base = dict(kind="symbol", name=entry.qualname, chapters=entry.chapters, old=old, uses=entry.uses)
        try:
            new = self.target.resolve(entry.qualname)
        except SymbolNotFound as exc:
            before = self.baseline_symbol(entry.qualname)
            hints = find_successors(self.target, entry.qualname, entry.file,
                                    before.normalized if before else "", entry.kind)
            return Finding(**base, status="MISSING", new=None, note=exc.reason, successors=hints)
        place = Place(new.path, new.start, new.end)
        if new.inherited and not entry.defined_in:
            return Finding(**base, status="INHERITED", new=place, note=f"now inherited from {new.defined_in}")
        if new.hash == entry.hash and new.defined_in == entry.defined_in:
            status = "SAME" if place == old else "MOVED"
            note = "" if new.raw_hash == entry.raw_hash else "comments, docstrings or layout differ"
            return Finding(**base, status=status, new=place, note=note)
        before = self.baseline_symbol(entry.qualname)
        diff = unified(before.normalized, new.normalized, self._label(self.baseline, entry.file),
                       self._label(self.target, new.path)) if before else ""
        note = f"now defined in {new.defined_in}" if new.defined_in != entry.defined_in else ""
        return Finding(**base, status="CHANGED", new=place, note=note, diff=diff)

    def excerpt(self, entry: ExcerptEntry) -> Finding:
        old = Place(entry.file, entry.start, entry.end)
        base = dict(kind="excerpt", name=f"{entry.page}: {entry.key}", chapters=(entry.page,), old=old,
                    uses=("excerpt",))
        symbol_finding = self.symbol_findings.get(entry.target)
        if symbol_finding is not None and symbol_finding.status == "INHERITED":
            # The release's lookup would find the base class's code: this class's own code is gone.
            return Finding(**base, status="INHERITED", new=None, note=symbol_finding.note,
                           successors=symbol_finding.successors)
        try:
            excerpt = build(self.target, entry.spec())
        except SymbolNotFound as exc:
            hints = symbol_finding.successors if symbol_finding else ()
            return Finding(**base, status="MISSING", new=None, note=exc.reason, successors=hints)
        except ExcerptError as exc:
            diff = symbol_finding.diff if symbol_finding else ""
            return Finding(**base, status="CHANGED", new=None, note=str(exc).split(": ", 1)[-1], diff=diff)
        place = Place(excerpt.path, excerpt.start, excerpt.end)
        if excerpt.hash == entry.hash:
            status = "SAME" if place == old else "MOVED"
            return Finding(**base, status=status, new=place)
        diff = ""
        if self.baseline is not None:
            try:
                before = build(self.baseline, entry.spec())
                diff = unified(normalize_lines(before.lines), normalize_lines(excerpt.lines),
                               self._label(self.baseline, before.path), self._label(self.target, excerpt.path))
            except (SymbolNotFound, ExcerptError):
                diff = ""
        return Finding(**base, status="CHANGED", new=place, diff=diff)

    def fact(self, entry: FactEntry) -> Finding:
        claim = Claim.parse(entry.claim)
        old = Place(entry.file, entry.line, entry.line)
        base = dict(kind="fact", name=entry.claim, chapters=(entry.page,), old=old, uses=("fact",))
        result = evaluate(self.target, claim)
        new = Place(result.path, result.line, result.line) if result.line else None
        if result.status == "true":
            return Finding(**base, status="SAME" if new == old else "MOVED", new=new)
        if result.status == "false":
            return Finding(**base, status="CHANGED", new=new,
                           note=f"claims {claim.expected_text}, torch {self.target.version} has {result.actual}")
        if result.status == "missing":
            return Finding(**base, status="MISSING", new=None, note=result.reason)
        return Finding(**base, status="UNCHECKED", new=new, note=f"not static: {result.reason}")


def verify(lock: Lock, target: Resolver, baseline: Resolver | None,
           hooks: list[tuple[str, str]]) -> Report:
    """Check a lock (plus the current stages table's ``(qualname, chapter)`` hooks) against a target tree.

    ``baseline`` is the locked release's tree; it only supplies the old code for diffs and similarity
    hints, so verify still runs (without them) when it is not at hand.
    """
    started = time.perf_counter()
    verifier = Classifier(lock, target, baseline)
    by_name = {e.qualname: e for e in lock.symbols}
    entries: list[SymbolEntry] = []
    # Hook targets first, in pipeline order, so the report reads like the walkthrough.
    seen: set[str] = set()
    for name, chapter in hooks:
        if name in seen:
            continue
        seen.add(name)
        if name in by_name:
            entries.append(by_name.pop(name))
            continue
        # A target added to the table after the lock was written: take its old place from the baseline.
        before = verifier.baseline_symbol(name)
        if before is None:
            entries.append(SymbolEntry(name, "", 0, 0, "function", "", "", chapters=(chapter,), uses=("hook",)))
        else:
            entries.append(SymbolEntry(name, before.path, before.start, before.end, before.kind, before.hash,
                                       before.raw_hash, before.defined_in, (chapter,), ("hook",)))
    entries.extend(by_name.values())
    findings = []
    for entry in entries:
        finding = verifier.symbol(entry)
        verifier.symbol_findings[entry.qualname] = finding
        findings.append(finding)
    findings.extend(verifier.excerpt(e) for e in lock.excerpts)
    findings.extend(verifier.fact(f) for f in lock.facts)
    return Report(lock.torch_version, lock.git_version, target.version, target.source.git_version,
                  target.source.origin, tuple(findings), time.perf_counter() - started)

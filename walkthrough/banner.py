"""What a page's banner says: the torch its excerpts come from, and its verify status from the lock and recorded reports."""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from walkthrough.lock import Lock
from walkthrough.verify import DRIFT

# Rows and header of the markdown that `python -m walkthrough verify --markdown` writes (walkthrough/report.py).
# The committed reports are markdown only (no torch code in the repo), so that is what the site reads.
_TARGET = re.compile(r"checked against torch (?P<version>\S+) \(git `(?P<git>[0-9a-f?]*)`\)")
_ROW = re.compile(r"^\| (?P<status>[A-Z]+) \| (?P<kind>hook|symbol|excerpt|fact) \| `(?P<name>.*?)` \|")
_KIND = {"hook": "symbol", "symbol": "symbol", "excerpt": "excerpt", "fact": "fact"}


class ReportFormatError(ValueError):
    """A file in the verify reports folder that is not a verify report."""


@dataclass(frozen=True)
class RecordedReport:
    release: str  # the file's stem, e.g. ``2.15.0``: how the page links it
    torch_version: str  # as the report says, e.g. ``2.15.0+cu132``
    statuses: dict[tuple[str, str], str]  # (symbol|excerpt|fact, name) -> SAME, MOVED, CHANGED, ...
    git: str = ""  # the checked release's commit, as the report gives it (12 hex digits)
    kinds: dict[tuple[str, str], str] | None = None  # same keys -> the row's own kind (hook, symbol, ...)

    def counts(self) -> dict[str, Counter]:
        """Statuses per row kind: ``{"hook": Counter({"MOVED": 7, ...}), "symbol": ..., ...}``."""
        counts: dict[str, Counter] = {kind: Counter() for kind in ("hook", "symbol", "excerpt", "fact")}
        for key, status in self.statuses.items():
            counts[(self.kinds or {}).get(key, key[0])][status] += 1
        return counts


@dataclass(frozen=True)
class ReleaseStatus:
    release: str
    total: int
    drifted: Counter  # CHANGED / MISSING counts among the page's entries
    unchecked: int  # entries the report does not decide: recorded before the page, or UNCHECKED facts

    @property
    def state(self) -> str:
        """``drift`` when anything drifted, ``unchecked`` when the report decides nothing of the page, else ``holds``."""
        if self.drifted:
            return "drift"
        return "unchecked" if self.unchecked == self.total else "holds"

    @property
    def text(self) -> str:
        """E.g. ``2 of 9 drifted (2 CHANGED)``, ``all 9 hold`` or ``6 hold, 3 not checked yet``."""
        if self.unchecked == self.total:
            return "not checked yet"
        checked = self.total - self.unchecked
        if self.drifted:
            what = ", ".join(f"{count} {status}" for status, count in sorted(self.drifted.items()))
            text = f"{sum(self.drifted.values())} of {self.total} drifted ({what})"
        else:
            text = f"{checked} hold" if self.unchecked else "holds" if checked == 1 else f"all {checked} hold"
        return text + (f", {self.unchecked} not checked yet" if self.unchecked else "")

    @property
    def short(self) -> str:
        """The banner's words: ``13 changed``, ``2 changed, 1 gone``, ``all 9 hold``; drift is news, not an error."""
        if not self.drifted:
            return self.text
        words = {"CHANGED": "changed", "MISSING": "gone"}
        what = ", ".join(f"{count} {words.get(status, status.lower())}" for status, count in sorted(self.drifted.items()))
        return what + (f", {self.unchecked} not checked yet" if self.unchecked else "")


@dataclass(frozen=True)
class PageStatus:
    torch_version: str
    git_version: str
    entries: int  # locked entries this page relies on
    releases: tuple[ReleaseStatus, ...]


def read_report(path: Path) -> RecordedReport:
    text = path.read_text(encoding="utf-8")
    target = _TARGET.search(text)
    if target is None:
        raise ReportFormatError(f"{path}: not a walkthrough verify report (no 'checked against torch' line)")
    statuses, kinds = {}, {}
    for line in text.splitlines():
        row = _ROW.match(line)
        if row:
            name = row["name"].replace("\\|", "|")
            key = (_KIND[row["kind"]], name)
            statuses[key] = row["status"]
            kinds[key] = row["kind"]
    return RecordedReport(path.stem, target["version"], statuses, target["git"], kinds)


def _release_key(release: str) -> tuple:
    return tuple(int(part) if part.isdigit() else part for part in re.split(r"[.+]", release))


def read_reports(folder: Path) -> tuple[RecordedReport, ...]:
    """Every ``<release>.md`` report in a folder, oldest release first (other markdown, e.g. a summary, is skipped)."""
    if not folder.is_dir():
        return ()
    paths = [p for p in folder.glob("*.md") if re.fullmatch(r"\d+(\.\d+)+", p.stem)]
    return tuple(read_report(p) for p in sorted(paths, key=lambda p: _release_key(p.stem)))


def page_entries(lock: Lock, page: str) -> tuple[tuple[str, str], ...]:
    """The locked entries a page relies on: its excerpts, facts, linked symbols and its stage's hook targets.

    A symbol used on the page only as an excerpt's target is left out: its excerpt stands for it, and an
    excerpt narrowed to a few lines often holds while the whole function around it changed.
    """
    entries = [("excerpt", f"{e.page}: {e.key}") for e in lock.excerpts if e.page == page]
    entries += [("fact", f.claim) for f in lock.facts if f.page == page]
    entries += [("symbol", s.qualname) for s in lock.symbols
                if page in s.chapters and set(s.uses) - {"excerpt"}]
    return tuple(entries)


def site_entries(lock: Lock) -> tuple[tuple[str, str], ...]:
    """Every locked entry of the site: what the front page's line counts."""
    return (tuple(("excerpt", f"{e.page}: {e.key}") for e in lock.excerpts)
            + tuple(("fact", f.claim) for f in lock.facts) + tuple(("symbol", s.qualname) for s in lock.symbols))


def page_status(lock: Lock, page: str, reports: tuple[RecordedReport, ...],
                torch_version: str, git_version: str, *, whole_site: bool = False) -> PageStatus | None:
    """None for a page without torch content (nothing of it is locked); ``whole_site``: every entry of the lock."""
    entries = site_entries(lock) if whole_site else page_entries(lock, page)
    if not entries:
        return None
    releases = []
    for report in reports:
        found = [report.statuses.get(entry) for entry in entries]
        drifted = Counter(status for status in found if status in DRIFT)
        unchecked = sum(1 for status in found if status in (None, "UNCHECKED"))
        releases.append(ReleaseStatus(report.release, len(entries), drifted, unchecked))
    return PageStatus(torch_version, git_version, len(entries), tuple(releases))

"""The lock file: where every excerpt, linked symbol, hook target and fact sat in the reference torch."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path

from tracers.tracefile.atomic import write_text_atomic
from walkthrough.excerpt import ExcerptError, ExcerptSpec, build
from walkthrough.facts import evaluate
from walkthrough.pages import PageRefs
from walkthrough.symbols import Resolver, SymbolNotFound

LOCK_FORMAT = 1
DEFAULT_LOCK = Path("docs") / "walkthrough.lock.json"
LOCK_COMMAND = "python -m walkthrough lock"


class LockError(Exception):
    """A lock that cannot be written (a reference that does not resolve) or read (bad or newer format)."""


@dataclass(frozen=True)
class SymbolEntry:
    qualname: str
    file: str
    start: int
    end: int
    kind: str
    hash: str
    raw_hash: str
    defined_in: str = ""
    chapters: tuple[str, ...] = ()
    uses: tuple[str, ...] = ()  # hook | excerpt | link


@dataclass(frozen=True)
class ExcerptEntry:
    page: str
    key: str
    target: str
    file: str
    start: int
    end: int
    hash: str
    raw_hash: str
    start_pattern: str = ""
    end_pattern: str = ""
    emphasize: tuple[str, ...] = ()
    annotations: tuple[str, ...] = ()  # the patterns only: the notes are prose, not torch facts

    def spec(self) -> ExcerptSpec:
        return ExcerptSpec(self.target, self.start_pattern, self.end_pattern, self.emphasize,
                           tuple((pattern, "") for pattern in self.annotations))


@dataclass(frozen=True)
class FactEntry:
    page: str
    claim: str
    file: str
    line: int
    value: str


@dataclass(frozen=True)
class Lock:
    torch_version: str
    git_version: str
    symbols: tuple[SymbolEntry, ...] = ()
    excerpts: tuple[ExcerptEntry, ...] = ()
    facts: tuple[FactEntry, ...] = ()
    format: int = field(default=LOCK_FORMAT)

    @property
    def base_version(self) -> str:
        return self.torch_version.split("+", 1)[0]

    def symbol(self, qualname: str) -> SymbolEntry | None:
        return next((s for s in self.symbols if s.qualname == qualname), None)


def compute_lock(resolver: Resolver, pages: list[PageRefs], hooks: list[tuple[str, str]]) -> Lock:
    """The lock for one torch tree; ``hooks`` is (qualname, chapter) for each stages-table target.

    Raises LockError listing every reference that does not hold, so a broken walkthrough is never locked.
    """
    uses: dict[str, tuple[set[str], set[str]]] = {}

    def use(name: str, chapter: str, how: str) -> None:
        chapters, hows = uses.setdefault(name, (set(), set()))
        chapters.add(chapter)
        hows.add(how)

    for name, chapter in hooks:
        use(name, chapter, "hook")
    problems: list[str] = []
    excerpts: list[ExcerptEntry] = []
    facts: list[FactEntry] = []
    for refs in pages:
        for name in refs.symbols:
            use(name, refs.page, "link")
        for spec in refs.excerpts:
            use(spec.target, refs.page, "excerpt")
            try:
                excerpt = build(resolver, spec)
            except (SymbolNotFound, ExcerptError) as exc:
                problems.append(f"{refs.page}: {exc}")
                continue
            excerpts.append(ExcerptEntry(
                refs.page, spec.key, spec.target, excerpt.path, excerpt.start, excerpt.end, excerpt.hash,
                excerpt.raw_hash, spec.start, spec.end, spec.emphasize,
                tuple(pattern for pattern, _ in spec.annotations)))
        for claim in refs.facts:
            result = evaluate(resolver, claim)
            if result.status != "true":
                detail = f"found {result.actual}" if result.actual else result.reason
                problems.append(f"{refs.page}: fact {claim.text} does not hold in torch {resolver.version}: {detail}")
                continue
            facts.append(FactEntry(refs.page, claim.text, result.path, result.line, result.actual))
    symbols: list[SymbolEntry] = []
    for name in sorted(uses):
        chapters, hows = uses[name]
        try:
            symbol = resolver.resolve(name)
        except SymbolNotFound as exc:
            problems.append(f"{', '.join(sorted(chapters))}: {exc}")
            continue
        symbols.append(SymbolEntry(name, symbol.path, symbol.start, symbol.end, symbol.kind, symbol.hash,
                                   symbol.raw_hash, symbol.defined_in, tuple(sorted(chapters)), tuple(sorted(hows))))
    if problems:
        raise LockError("; ".join(dict.fromkeys(problems)))
    excerpts.sort(key=lambda e: (e.page, e.key))
    facts.sort(key=lambda f: (f.page, f.claim))
    return Lock(resolver.source.version, resolver.source.git_version, tuple(symbols),
                tuple(dict.fromkeys(excerpts)), tuple(dict.fromkeys(facts)))


def to_json(lock: Lock) -> str:
    data = asdict(lock)
    data = {"format": data.pop("format"), **data}
    return json.dumps(data, indent=1, sort_keys=False) + "\n"


def write_lock(lock: Lock, path: Path) -> None:
    """Atomically, so an interrupted run never leaves half a lock."""
    write_text_atomic(path, to_json(lock))


def read_lock(path: Path) -> Lock:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise LockError(f"{path}: no lock file; write one with {LOCK_COMMAND}") from None
    except (OSError, ValueError) as exc:
        raise LockError(f"{path}: not a readable lock file ({exc})") from None
    fmt = data.get("format") if isinstance(data, dict) else None
    if not isinstance(fmt, int):
        raise LockError(f"{path}: not a walkthrough lock file (no format version)")
    if fmt > LOCK_FORMAT:
        raise LockError(f"{path}: lock format {fmt} is newer than this walkthrough reads ({LOCK_FORMAT}); "
                        "update the walkthrough package")
    try:
        return Lock(
            data["torch_version"], data["git_version"],
            tuple(SymbolEntry(**{**s, "chapters": tuple(s["chapters"]), "uses": tuple(s["uses"])})
                  for s in data["symbols"]),
            tuple(ExcerptEntry(**{**e, "emphasize": tuple(e["emphasize"]), "annotations": tuple(e["annotations"])})
                  for e in data["excerpts"]),
            tuple(FactEntry(**f) for f in data["facts"]),
            fmt,
        )
    except (KeyError, TypeError) as exc:
        raise LockError(f"{path}: malformed lock file ({exc})") from None


def stale_reasons(recorded: Lock, current: Lock) -> list[str]:
    """Why a recorded lock no longer matches the docs and torch tree it claims to describe; empty when fresh."""
    reasons = []
    if recorded.base_version != current.base_version:
        reasons.append(f"locked against torch {recorded.torch_version}, but the tree is torch {current.torch_version}")
    for label, old, new, key in (
        ("symbol", recorded.symbols, current.symbols, lambda e: e.qualname),
        ("excerpt", recorded.excerpts, current.excerpts, lambda e: f"{e.page}: {e.key}"),
        ("fact", recorded.facts, current.facts, lambda e: f"{e.page}: {e.claim}"),
    ):
        old_by, new_by = {key(e): e for e in old}, {key(e): e for e in new}
        for name in sorted(new_by.keys() - old_by.keys()):
            reasons.append(f"{label} {name} is not in the lock")
        for name in sorted(old_by.keys() - new_by.keys()):
            reasons.append(f"{label} {name} is locked but no longer used")
        for name in sorted(old_by.keys() & new_by.keys()):
            if old_by[name] != new_by[name]:
                reasons.append(f"{label} {name} differs from the lock")
    return reasons


def stage_hooks() -> list[tuple[str, str]]:
    """``(qualname, chapter)`` for every target of the tracers' stages table (plain data, imports nothing)."""
    from tracers.tracefile.stages import STAGE_BY_ID, all_targets

    return [(target.name, STAGE_BY_ID[target.stage].chapter) for target in all_targets()]

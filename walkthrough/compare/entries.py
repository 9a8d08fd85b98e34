"""The walkthrough's what-changed entries between two releases (verify with A's tree as the lock), by stage."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tracers.tracefile.stages import STAGES, all_targets
from walkthrough.bundle import site_sources
from walkthrough.lock import LockError, compute_lock, stage_hooks
from walkthrough.pages import PageError, scan_docs
from walkthrough.source import SourceError, TorchSource, open_source
from walkthrough.symbols import resolver_for
from walkthrough.verify import Finding, Report, verify

from .model import Entry

SHOWN = ("CHANGED", "MISSING", "INHERITED", "UNCHECKED")  # SAME and MOVED (same code, other lines) are counted


def release_tree(python: Path) -> TorchSource:
    """The torch tree a Python has installed, read in place (its package dir found without importing torch)."""
    if Path(python) == Path(sys.executable):
        return open_source("installed")
    script = "import importlib.util as u; print(list(u.find_spec('torch').submodule_search_locations)[0])"
    result = subprocess.run([str(python), "-c", script], capture_output=True, text=True, timeout=120)
    if result.returncode != 0 or not result.stdout.strip():
        raise SourceError(f"{python}: no torch package found ({result.stderr.strip()[-200:] or 'no output'})")
    return open_source(str(Path(result.stdout.strip()).parent))


def between(tree_a: TorchSource, tree_b: TorchSource) -> tuple[Report, str]:
    """Verify's findings for B against a lock computed on A: hook targets, linked symbols, excerpts and facts.

    When the walkthrough's pages do not all hold in A (it is written against the reference), only the stages'
    entry points are compared; the note says so."""
    resolver_a, hooks = resolver_for(tree_a), stage_hooks()
    sources = site_sources()
    note = ""
    try:
        pages = scan_docs(sources.docs) if sources is not None else []
        lock = compute_lock(resolver_a, pages, hooks)
    except (LockError, PageError):
        note = (f"the walkthrough's pages do not all hold in torch {tree_a.base_version}, so only the stages' entry "
                "points were compared")
        lock = compute_lock(resolver_a, [], hooks)
    return verify(lock, resolver_for(tree_b), resolver_a, hooks), note


def _stages_of(finding: Finding, stage_of_target: dict[str, str]) -> set[str]:
    if finding.name in stage_of_target:
        return {stage_of_target[finding.name]}
    return {stage.id for stage in STAGES if stage.chapter in finding.chapters}


def entry(finding: Finding) -> Entry:
    return Entry(finding.kind, finding.name, finding.status, finding.old, finding.new, finding.uses, finding.note)


def by_stage(report: Report, stages: list[str]) -> dict[str, tuple[tuple[Entry, ...], int]]:
    """For each stage asked: its changed entries (CHANGED first) and how many of its entries are unchanged."""
    stage_of_target = {target.name: target.stage for target in all_targets()}
    out: dict[str, tuple[tuple[Entry, ...], int]] = {}
    for stage in stages:
        mine = [f for f in report.findings if stage in _stages_of(f, stage_of_target)]
        shown = sorted((f for f in mine if f.status in SHOWN), key=lambda f: SHOWN.index(f.status))
        out[stage] = (tuple(entry(f) for f in shown), sum(1 for f in mine if f.status not in SHOWN))
    return out

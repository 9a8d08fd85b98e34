"""The lock file: written from pages and the stages table, read back, refused when newer, stale when drifted."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.walkthrough_fixtures import DRIVER, PIPELINE, edit, write_tree
from walkthrough.lock import (LOCK_FORMAT, LockError, compute_lock, read_lock, stage_hooks, stale_reasons,
                              write_lock)
from walkthrough.pages import scan_docs, scan_text
from walkthrough.source import open_source
from walkthrough.symbols import resolver_for

pytestmark = pytest.mark.pure

ROOT = Path(__file__).resolve().parents[2]
M = "torch._pipeline.driver"
PAGE = f'''\
See {{torch-symbol}}`{M}:helper` and {{torch-fact}}`torch._pipeline.config.recompile_cap == 8`.

```{{torch-excerpt}} {M}:entry
:start: prepared =
if options => only with options
```
'''


@pytest.fixture
def tree(tmp_path):
    return resolver_for(open_source(str(write_tree(tmp_path / "t"))))


def test_round_trip_records_every_kind(tmp_path, tree):
    lock = compute_lock(tree, [scan_text("ch", PAGE)], [(f"{M}:Compiler.run", "lowering")])
    path = tmp_path / "lock.json"
    write_lock(lock, path)
    assert read_lock(path) == lock
    data = json.loads(path.read_text())
    assert data["format"] == LOCK_FORMAT and data["torch_version"] == "1.0.0+cpu"
    assert {s["qualname"]: s["uses"] for s in data["symbols"]} == {
        f"{M}:Compiler.run": ["hook"], f"{M}:entry": ["excerpt"], f"{M}:helper": ["link"]}
    entry = next(s for s in data["symbols"] if s["qualname"] == f"{M}:entry")
    assert set(entry) >= {"file", "start", "end", "hash", "raw_hash"} and entry["file"] == PIPELINE
    assert data["excerpts"][0]["annotations"] == ["if options"]
    assert data["facts"][0] == {"page": "ch", "claim": "torch._pipeline.config.recompile_cap == 8",
                                "file": "torch/_pipeline/config.py", "line": 6, "value": "8"}


def test_staleness(tmp_path, tree):
    lock = compute_lock(tree, [scan_text("ch", PAGE)], [])
    assert stale_reasons(lock, lock) == []
    more = compute_lock(tree, [scan_text("ch", PAGE + f"{{torch-symbol}}`{M}:Cache.load`\n")], [])
    assert stale_reasons(lock, more) == [f"symbol {M}:Cache.load is not in the lock"]
    moved = write_tree(tmp_path / "moved", files={PIPELINE: "X = 1\n" + DRIVER})
    again = compute_lock(resolver_for(open_source(str(moved))), [scan_text("ch", PAGE)], [])
    assert f"symbol {M}:entry differs from the lock" in stale_reasons(lock, again)
    assert "excerpt ch: " + f"{M}:entry [start=prepared =] differs from the lock" in stale_reasons(lock, again)


def test_a_broken_walkthrough_is_never_locked(tmp_path):
    config = {"torch/_pipeline/config.py": "recompile_cap = 9\n",
              PIPELINE: edit(DRIVER, "    if options:\n        prepared.append(options)\n", "")}
    tree = resolver_for(open_source(str(write_tree(tmp_path / "t", files=config))))
    with pytest.raises(LockError) as info:
        compute_lock(tree, [scan_text("ch", PAGE)], [(f"{M}:gone", "x")])
    message = str(info.value)
    assert "annotation pattern 'if options' not found" in message
    assert "fact torch._pipeline.config.recompile_cap == 8 does not hold in torch 1.0.0+cpu: found 9" in message
    assert f"{M}:gone: torch._pipeline.driver defines no gone" in message


@pytest.mark.parametrize(("content", "message"), [
    ('{"format": 99, "symbols": []}', "lock format 99 is newer than this walkthrough reads"),
    ("[1, 2", "not a readable lock file"),
    ('{"symbols": []}', "no format version"),
    ('{"format": 1, "torch_version": "x"}', "malformed lock file"),
])
def test_unreadable_locks(tmp_path, content, message):
    path = tmp_path / "lock.json"
    path.write_text(content)
    with pytest.raises(LockError, match=message):
        read_lock(path)
    with pytest.raises(LockError, match="no lock file"):
        read_lock(tmp_path / "absent.json")


def test_committed_lock_is_fresh_for_the_installed_reference():
    """Fails after an edit to the stages table or a page: refresh with ``python -m walkthrough lock``."""
    current = compute_lock(resolver_for(open_source("installed")), scan_docs(ROOT / "docs"), stage_hooks())
    assert stale_reasons(read_lock(ROOT / "docs" / "walkthrough.lock.json"), current) == []

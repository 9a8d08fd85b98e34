"""The ranks page escapes what a merged trace says once: markup in the job's name is shown as written, never as
``&amp;lt;`` (escaped twice) and never as markup."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import ROOT
from tracers.commands import main

pytestmark = pytest.mark.pure


def _renamed(value: object, mark: str) -> object:
    """Every run name in the merged trace's metadata with ``mark`` appended."""
    if isinstance(value, dict):
        return {key: (item + mark if key in ("name", "run") and isinstance(item, str) and item.startswith("ddp")
                      else _renamed(item, mark)) for key, item in value.items()}
    if isinstance(value, list):
        return [_renamed(item, mark) for item in value]
    return value


def test_markup_in_the_job_name_is_escaped_once(tmp_path: Path):
    merged = ROOT / "docs" / "_traces" / "cpu" / "2.13.0" / "ddp-cpu-cold-ranks.json"
    data = json.loads(merged.read_text(encoding="utf-8"))
    data["otherData"] = _renamed(data["otherData"], "<b>&x")
    target = tmp_path / merged.name
    target.write_text(json.dumps(data), encoding="utf-8")
    assert main(["report", str(target), "--out", str(tmp_path / "out"), "--site", "https://example.invalid/"]) == 0
    page = next((tmp_path / "out").glob("*.html")).read_text(encoding="utf-8")
    assert "<title>ddp&lt;b&gt;&amp;x" in page
    assert "<b>&x" not in page and "&amp;lt;" not in page and "&amp;amp;" not in page

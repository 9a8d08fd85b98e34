"""The chapters' locked facts against the recorded verify report of each release (docs/verify/<release>.md)."""

from __future__ import annotations

import json
import re
from collections.abc import Collection
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def report_facts(release: str) -> dict[str, dict[str, str]]:
    """{page: {claim: status}} from a recorded verify report."""
    found: dict[str, dict[str, str]] = {}
    page = ""
    for line in (ROOT / "docs" / "verify" / f"{release}.md").read_text(encoding="utf-8").splitlines():
        if line.startswith("## "):
            page = line[3:].strip()
        match = re.match(r"\| (\w+) \| fact \| `(.+?)` \| ", line)
        if match:
            found.setdefault(page, {})[match[2].replace("\\|", "|")] = match[1]  # a table cell escapes its pipes
    return found


def assert_facts_hold(release: str, pages: Collection[str], drift: Collection[str]) -> None:
    """Each locked fact of ``pages`` is in the release's report and holds there (SAME or MOVED), but for the claims in
    ``drift``, which the pages show as drift on that release (CHANGED or MISSING)."""
    lock = json.loads((ROOT / "docs" / "walkthrough.lock.json").read_text(encoding="utf-8"))
    report = report_facts(release)
    for fact in lock["facts"]:
        if fact["page"] not in pages:
            continue
        status = report.get(fact["page"], {}).get(fact["claim"])
        assert status is not None, f"{release} report lacks {fact['page']}: {fact['claim']} (re-run verify)"
        if fact["claim"] in drift:
            assert status in ("CHANGED", "MISSING"), (release, fact["claim"], status)
        else:
            assert status in ("SAME", "MOVED"), (release, fact["claim"], status)

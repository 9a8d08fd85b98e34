"""One report model per trace: the page, the summary, the ranks and the API take it; views compute nothing."""

from __future__ import annotations

import ast
import contextlib
import inspect
import io
import importlib
from pathlib import Path

import pytest

pytest.importorskip("jinja2")

import tracers.analysis.findings as findings_module  # noqa: E402
from tracers.analysis.report_model import Report, build_report  # noqa: E402
from tracers.report.page import report_page  # noqa: E402
from tracers.terminal.summary import Style, render_report  # noqa: E402
from tracers.tracefile.chrome import load  # noqa: E402
from tracers.vocabulary.releases import REFERENCE_TORCH  # noqa: E402

pytestmark = pytest.mark.pure

ROOT = Path(__file__).resolve().parents[3]
BREAKS = ROOT / "docs" / "_traces" / "cpu" / REFERENCE_TORCH / "graph_breaks-cpu-cold.json"
RANK_LOGS = ROOT / "tests" / "data" / "tlparse" / "inputs" / "multi_rank_logs"
VIEWS = ("tracers/report", "tracers/terminal")
# The old call forms (a trace, or facts, in place of a report) still analyse for callers not yet switched;
# each allowed name is a function only those wrappers call.
OLD_CALL_FORMS = {"build_report", "headline", "parse_failure"}


@pytest.fixture
def counted(monkeypatch):
    """Every computation of findings, wherever it is looked up from."""
    calls = []
    original = findings_module.findings

    def counting(*args, **kwargs):
        calls.append(args[0])
        return original(*args, **kwargs)

    monkeypatch.setattr(findings_module, "findings", counting)
    return calls


def test_the_page_and_the_summary_of_one_trace_compute_findings_once(counted):
    report = build_report(load(BREAKS))
    page = report_page(report)
    summary = render_report(report, Style(False))
    assert len(counted) == 1
    assert "Findings" in page and "Findings" in summary
    assert isinstance(report, Report) and report.findings and report.headline in summary


def test_a_loaded_result_computes_findings_once(counted):
    import tracers

    result = tracers.load(BREAKS)
    said = (result.summary(), result._repr_html_(), result.findings, int(result.graph_breaks), int(result.graphs),
            result.graph_breaks.findings, result.speed, result.kernels, result.by_code)
    assert said[0] and len(counted) == 1


def test_four_rank_logs_compute_findings_once_per_rank(counted, tmp_path):
    from tracers.__main__ import main

    with contextlib.redirect_stderr(io.StringIO()), contextlib.redirect_stdout(io.StringIO()):
        assert main(["report", str(RANK_LOGS), "--out", str(tmp_path)]) == 0
    assert len(counted) == 4 and len({id(trace) for trace in counted}) == 4
    assert list(tmp_path.glob("*.html"))


def test_load_ranks_computes_findings_once_per_rank(counted):
    import tracers

    with pytest.warns(UserWarning):  # the logs' damage, said once
        ranks = tracers.load_ranks(RANK_LOGS)
    for result in ranks.values():
        result.summary(), result.findings, int(result.recompiles)
    assert len(ranks) == 4 and len(counted) == 4


def _imported_from_analysis(path: Path) -> list[tuple[str, str, int]]:
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("tracers.analysis"):
            found += [(node.module, alias.name, node.lineno) for alias in node.names]
        elif isinstance(node, ast.Import):
            assert not any(alias.name.startswith("tracers.analysis") for alias in node.names), path
    return found


def test_views_import_only_types_from_the_analysis():
    """The page and the terminal format the report model: from tracers.analysis they take classes (and constants),
    never a function, but for the old call forms' three (OLD_CALL_FORMS)."""
    wrong = []
    for folder in VIEWS:
        for path in sorted((ROOT / folder).rglob("*.py")):
            for module, name, line in _imported_from_analysis(path):
                value = getattr(importlib.import_module(module), name)
                if callable(value) and not inspect.isclass(value) and name not in OLD_CALL_FORMS:
                    wrong.append(f"{path.relative_to(ROOT)}:{line}: {name} from {module}")
    assert not wrong, wrong

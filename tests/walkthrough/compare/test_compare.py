"""The release comparison without a second release: recorded traces of two releases compared, noise, findings in
words, the report read back, escaping, and bad input as one line."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tracers.analysis.diff import kernels, run_counts
from tracers.analysis.findings import findings
from tracers.analysis.findings_diff import findings_diff
from tracers.analysis.spread import Spread, is_noise, timing
from tracers.analysis.trace_facts import analyze
from tracers.terminal.style import Style
from tracers.tracefile.chrome import load
from walkthrough.compare.compute import Traced, comparison, moved_stages
from walkthrough.compare.model import ComparisonFormatError, ReleaseSide, Run, TimedRow, read, to_json
from walkthrough.compare.page import render_comparison
from walkthrough.compare.summary import render

pytestmark = pytest.mark.pure

ROOT = Path(__file__).resolve().parents[3]
TRACES = ROOT / "docs" / "_traces" / "cpu"


def _traced(release: str, stem: str, copies: int = 1) -> Traced:
    path = TRACES / release / f"{stem}-cpu-cold.json"
    trace = load(path)
    runs = tuple(Run(0, str(path), "", 0.0) for _ in range(copies))
    return Traced(ReleaseSide(release, trace.info.torch_version, trace.info.torch_git_sha, "python", runs),
                  [trace] * copies)


def test_counts_and_stages_are_each_releases_own():
    a, b = _traced("2.13.0", "graph_breaks"), _traced("2.14.1", "graph_breaks")
    result = comparison("graph_breaks.py", "cpu", "cold", a, b)
    for side, traced in ((1, a), (2, b)):
        facts = analyze(traced.first)
        expected = {**run_counts(facts), "kernels": len(kernels(traced.first))}
        assert {row[0]: row[side] for row in result.counts} == expected
        assert facts.graph_breaks and expected["graph breaks"] == len(facts.graph_breaks)
        times = {row.key: (row.a if side == 1 else row.b) for row in result.stages}
        assert {stage: value.median for stage, value in times.items() if value} == facts.stage_time_ns
    assert result.a.release == "2.13.0" and result.b.release == "2.14.1"
    graphs = {graph.compile_id: graph for graph in result.graphs}
    for side, traced in (("a", a), ("b", b)):  # every kernel of the trace is in one compiled graph's code
        names = [name for graph in result.graphs for name in getattr(graph, f"{side}_kernels") or ()]
        assert sorted(set(names)) == sorted(kernels(traced.first))
    assert "0/0" in graphs


def test_a_fixed_graph_break_is_said_to_have_gone_away():
    broken, fixed = _traced("2.13.0", "graph_breaks"), _traced("2.13.0", "graph_breaks_fixed")
    changes = findings_diff(findings(broken.first), findings(fixed.first))
    gone = [change for change in changes if change.kind == "graph-break" and change.change == "went away"]
    assert gone, changes
    sentence = gone[0].sentence("before", "after")
    assert sentence.startswith("a graph break at graph_breaks.py:") and "went away under after" in sentence
    back = findings_diff(findings(fixed.first), findings(broken.first))
    assert any(change.change == "appeared" and change.kind == "graph-break" for change in back)


def test_noise_is_a_change_within_the_larger_spread():
    assert is_noise(Spread((100, 110, 120)), Spread((115, 118, 125))) is True  # 18 apart, spread 20
    assert is_noise(Spread((100, 101, 102)), Spread((150, 151, 152))) is False
    assert is_noise(Spread((100,)), Spread((300,))) is None  # one run each: no spread measured
    assert timing([None, None]) is None and timing([5, None, 7]).runs == (5, 7)
    row = TimedRow("inductor", Spread((100, 110, 120)), Spread((115, 118, 125)), 1, 1)
    assert row.noise and row.moved() == ""  # within the spread: not moved
    assert TimedRow("inductor", Spread((100, 101)), Spread((150, 151)), 1, 1).moved("x", "y").startswith("time 1.50×")
    assert TimedRow("cpp", None, Spread((5,)), 0, 1).moved("x", "y") == "ran under y only"


def test_repeated_runs_give_medians_and_the_summary_says_so():
    a, b = _traced("2.13.0", "mlp", copies=3), _traced("2.14.1", "mlp", copies=3)
    result = comparison("mlp.py", "cpu", "cold", a, b)
    assert result.repeat == 3 and not result.varied
    assert all(row.noise is not None for row in result.stages if row.a and row.b)
    text = render(result, Style(False))
    assert "3 runs under each release: times are medians" in text
    single = render(comparison("mlp.py", "cpu", "cold", _traced("2.13.0", "mlp"), _traced("2.14.1", "mlp")),
                    Style(False))
    assert "the run-to-run spread was not measured" in single
    assert not any(line.endswith("within the spread") for line in single.splitlines())  # no spread measured


def test_the_report_reads_back_the_same(tmp_path):
    result = comparison("graph_breaks.py", "cpu", "cold", _traced("2.13.0", "graph_breaks"),
                        _traced("2.14.1", "graph_breaks"))
    path = tmp_path / "comparison.json"
    path.write_text(to_json(result))
    assert read(path) == result
    moved = moved_stages(result.stages, "2.13.0", "2.14.1")
    assert all(why for _, why in moved)
    data = json.loads(path.read_text())
    data["format"] = 99
    path.write_text(json.dumps(data))
    with pytest.raises(ComparisonFormatError, match="not a release comparison"):
        read(path)


def test_everything_from_a_trace_is_escaped():
    result = comparison("<script>x.py", "cpu", "cold", _traced("2.13.0", "graph_breaks"),
                        _traced("2.14.1", "graph_breaks"))
    html = render_comparison(result)
    assert "<script>" not in html and "&lt;script&gt;x.py" in html
    for part in ("stages", "code", "counts", "findings", "changes", "graphs"):
        assert f'data-part="compare-{part}"' in html


@pytest.mark.parametrize("args, message", [
    (["--torch", "2.13.0", "--torch", "2.13.0", "x.py"], "both releases are 2.13.0"),
    (["--torch", "2.13.0", "--torch", "latest", "x.py"], "'latest': not a torch version like 2.15.0"),
    (["--torch", "2.13.0", "x.py"], "give two releases"),
    (["--torch", "2.13.0", "--torch", "2.14.1", "--repeat", "0", "x.py"], "--repeat 0"),
    (["--torch", "2.13.0", "--torch", "2.14.1", "missing.py"], "missing.py: no such script"),
    (["--torch", "2.13.0", "--torch", "2.14.1"], "give a SCRIPT to run, or -m MODULE"),
])
def test_bad_input_is_one_line_and_exit_2(tmp_path, args, message):
    (tmp_path / "x.py").write_text("print('hi')\n")
    result = subprocess.run([sys.executable, "-m", "walkthrough", "compare", *args], capture_output=True, text=True,
                            cwd=tmp_path, env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
    assert result.returncode == 2, result.stderr
    assert result.stderr.startswith("walkthrough: error: ") and message in result.stderr
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr
    assert not (tmp_path / ".venvs").exists() and not (tmp_path / "compare").exists()


def test_a_release_outside_the_supported_ones_is_one_line_before_anything_is_fetched(tmp_path):
    """issue 55: 2.99.0 went to pip first (minutes, then "no CPU build could be had"); the supported range is said
    first, nothing fetched, nothing run. A supported release pip cannot give is test_builds.py's."""
    (tmp_path / "x.py").write_text("raise SystemExit('must not run')\n")
    env = {"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin", "HOME": str(tmp_path),
           "TORCH_WALKTHROUGH_CACHE": str(tmp_path / "cache")}
    result = subprocess.run([sys.executable, "-m", "walkthrough", "compare", "--build", "cpu", "--torch", "2.13.0",
                             "--torch", "2.99.0", "x.py"], capture_output=True, text=True, cwd=tmp_path, env=env,
                            timeout=600)
    assert result.returncode == 2, result.stderr
    assert result.stderr.startswith("walkthrough: error: torch 2.99.0: not a release the tracer and walkthrough are "
                                    "checked against (supported: 2.11.0, ")
    assert result.stderr.count("\n") == 1 and "fetching" not in result.stderr
    assert sorted(path.name for path in tmp_path.iterdir()) == ["x.py"]  # no cache made, nothing here either


def test_an_out_folder_holding_other_files_is_not_removed(tmp_path):
    (tmp_path / "x.py").write_text("print('hi')\n")
    taken = tmp_path / "compare" / "x-2.13.0-vs-2.14.1"
    taken.mkdir(parents=True)
    (taken / "notes.txt").write_text("mine")
    result = subprocess.run([sys.executable, "-m", "walkthrough", "compare", "--torch", "2.13.0", "--torch", "2.14.1",
                             "x.py"], capture_output=True, text=True, cwd=tmp_path,
                            env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
    assert result.returncode == 2 and "holds other files (notes.txt)" in result.stderr
    assert (taken / "notes.txt").read_text() == "mine"

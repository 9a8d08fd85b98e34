"""Executed lines shown: marks on excerpts (walkthrough/ranlines.py, render.py) and on the personal page."""

from __future__ import annotations

import json
import re
from dataclasses import replace
from pathlib import Path

import pytest

from tests.walkthrough_fixtures import PIPELINE, write_tree
from tracers.vocabulary.releases import REFERENCE_TORCH
from tracers.report.page import render_page
from tracers.report.executed import TorchSource, installed_source, render_executed, shown_lines, why_not
from tracers.tracefile.chrome import load, write_atomic
from tracers.tracefile.events import Trace
from tracers.tracefile.stages import STAGE_ORDER, TARGET_BY_NAME
from walkthrough.excerpt import ExcerptSpec, build
from walkthrough.ranlines import RanLines, parse_trace_option, ran_lines
from walkthrough.render import render_excerpt
from walkthrough.source import open_source
from walkthrough.symbols import resolver_for

from tests.conftest import ROOT, run_python

pytestmark = pytest.mark.sphinx

MLP = ROOT / "docs" / "_traces" / "cpu" / REFERENCE_TORCH / "mlp-cpu-cold.json"
SHA = "a" * 40  # the synthetic tree's commit


def synthetic(executed: dict[str, dict[int, int]], **info) -> Trace:
    """A committed trace with its run info and executed lines replaced."""
    trace = load(MLP)
    fields = {"torch_version": "1.0.0+cpu", "torch_git_sha": SHA, "lines_recorded": True,
              "command": ["python", "-m", "tracers", "trace", "docs/examples/<ex>.py"], **info}
    return Trace(replace(trace.info, **fields), trace.spans, trace.artifacts, [], executed)


@pytest.fixture
def excerpt(tmp_path):
    resolver = resolver_for(open_source(str(write_tree(tmp_path / "tree"))))
    return build(resolver, ExcerptSpec("torch._pipeline.driver:entry", start="prepared =", trace="ex"))


# -- which lines an excerpt marks ------------------------------------------------------------------------

def test_parse_trace_option():
    assert parse_trace_option("mlp") == ("mlp", "cpu", "cold")
    assert parse_trace_option(" mlp  cuda/warm ") == ("mlp", "cuda", "warm")
    for bad in ("", "mlp cuda", "mlp gpu/cold", "mlp cpu/hot", "a b c"):
        with pytest.raises(ValueError):
            parse_trace_option(bad)


def test_only_the_excerpts_lines_are_marked_with_their_counts(excerpt):
    inside, outside = excerpt.start + 1, excerpt.start - 1
    ran = ran_lines(excerpt, synthetic({PIPELINE: {inside: 3, outside: 9}, "torch/other.py": {inside: 1}}), "ex")
    assert ran.marked and ran.counts == {inside: 3}
    assert ran.legend == "lines that ran in docs/examples/<ex>.py, cpu, torch 1.0.0+cpu"


@pytest.mark.parametrize(("info", "legend"), [
    ({"torch_version": "2.11.0+cu130"}, "ex (cpu) was recorded with torch 2.11.0+cu130, this excerpt is from "
                                        "torch 1.0.0+cpu: lines not marked"),
    ({"torch_git_sha": "b" * 40}, "at commit bbbbbbbbbbbb, this excerpt is from aaaaaaaaaaaa: lines not marked"),
    ({"lines_recorded": False}, "without executed lines (record it with --lines): lines not marked"),
])
def test_lines_are_not_marked_when_the_recording_cannot_say(excerpt, info, legend):
    ran = ran_lines(excerpt, synthetic({PIPELINE: {excerpt.start: 1}}, **info), "ex")
    assert not ran.marked and not ran.counts and ran.legend.endswith(legend)


def test_no_line_ran_says_whether_the_excerpt_was_watched(excerpt):
    watched = {"torch._pipeline.driver:entry": [PIPELINE, excerpt.start - 3, excerpt.end]}
    ran = ran_lines(excerpt, synthetic({}, target_sources=watched), "ex")
    assert ran.marked and ran.legend.endswith(": none of these lines ran")
    ran = ran_lines(excerpt, synthetic({}, target_sources={}), "ex")
    assert ran.legend.endswith("were counted (--lines-lock watches every excerpt)")


def test_render_marks_ran_lines_with_count_and_gutter_and_escapes_the_legend(excerpt):
    counts = {excerpt.start: 2, excerpt.start + 2: 7}
    html = render_excerpt(excerpt, RanLines("ran in <ex>.py", counts, True))
    marked = re.findall(r'<span class="wt-line wt-ran" title="ran (\d+)×"><span class="wt-hits">(\d+)×</span>'
                        r'<a class="wt-lineno" href="[^"]+">(\d+)</a>', html)
    assert [(int(line), int(count)) for count, shown, line in marked if count == shown] == sorted(counts.items())
    rows = excerpt.end - excerpt.start + 1
    assert html.count('<span class="wt-hits">') == rows  # an empty gutter keeps unmarked lines aligned
    assert '<div class="wt-ran-legend"><span class="wt-ran-swatch"></span>ran in &lt;ex&gt;.py</div>' in html
    plain = render_excerpt(excerpt)
    assert "wt-hits" not in plain and "wt-ran" not in plain
    note = render_excerpt(excerpt, RanLines("recorded with torch 9: lines not marked"))
    assert "wt-hits" not in note and '<div class="wt-ran-legend wt-ran-none">recorded with torch 9' in note
    # A count is a line event: where counts are shown, the page says why a line can read 4× for two runs.
    assert html.count('class="wt-ran-note"') == 1 and "line events" in html
    assert "wt-ran-note" not in note and "wt-ran-note" not in render_excerpt(excerpt, RanLines("none ran", {}, True))


# -- the personal page -------------------------------------------------------------------------------------

FUNCTION = "".join(f"    x = {n}  # <script>{n}</script>\n" for n in range(2, 21))
TREE_SOURCE = TorchSource("1.0.0+cpu", SHA, Path("unused"))


def test_why_not_compares_version_and_commit():
    trace = synthetic({})
    assert why_not(trace, TREE_SOURCE) is None
    assert "not installed" in why_not(trace, None)
    assert "installed torch is 2.0.0" in why_not(trace, replace(TREE_SOURCE, version="2.0.0"))
    assert "commit aaaaaaaaaaaa, the installed torch is at bbbbbbbbbbbb" in why_not(
        trace, replace(TREE_SOURCE, git_sha="b" * 40))


def test_long_runs_of_lines_that_did_not_run_are_folded():
    assert shown_lines(1, 20, {2, 15}) == [1, 2, 3, 4, (5, 12), 13, 14, 15, 16, 17, 18, 19, 20]
    assert shown_lines(10, 14, set()) == [10, 11, 12, 13, 14]  # a short gap stays


def test_section_shows_each_hooked_functions_ran_lines_escaped(tmp_path):
    (tmp_path / "torch").mkdir()
    (tmp_path / "torch" / "x.py").write_text("def f():\n" + FUNCTION)
    trace = synthetic({"torch/x.py": {2: 3, 15: 1}, "torch/y.py": {4: 1}},
                      target_sources={"torch.x:f": ["torch/x.py", 1, 20], "torch.x:g": ["torch/x.py", 30, 40]})
    html = render_executed(trace, replace(TREE_SOURCE, root=tmp_path))
    assert "<script>" not in html and "&lt;script&gt;2&lt;/script&gt;" in html
    assert re.findall(r'data-target="([^"]+)"', html) == ["torch.x:f"]  # g never ran
    assert re.findall(r'title="ran (\d+)×"><span class="wt-hits">\d+×</span><a class="wt-lineno" '
                      r'href="[^"]+#L(\d+)">', html) == [("3", "2"), ("1", "15")]
    assert "lines 5–12 did not run" in html and "2 lines ran, 4 line events, hottest 3×" in html
    assert "1 more line ran in other watched code" in html
    mismatch = render_executed(trace, replace(TREE_SOURCE, root=tmp_path, version="9.9.9"))
    assert "wt-ran-function" not in mismatch and "Not shown: the trace was recorded with torch 1.0.0+cpu" in mismatch
    assert render_executed(synthetic({}, lines_recorded=False), TREE_SOURCE) == ""


# -- a real recording on the installed torch ---------------------------------------------------------------

@pytest.fixture(scope="module")
def recorded(tmp_path_factory) -> Path:
    """A cheap compile (aot_eager) recorded in-process with executed lines, written as a trace file."""
    import torch

    from tracers.capture.lines import LineCounter
    from tracers.capture.session import TraceSession

    torch._dynamo.reset()
    with TraceSession(lines=LineCounter(), cache_mode="cold",
                      command=["python", "-m", "tracers", "trace", "docs/examples/ran.py"]) as session:
        torch.compile(lambda x: torch.tanh(x) - 1, backend="aot_eager")(torch.randn(3))
    torch._dynamo.reset()
    trace = session.trace
    assert trace.info.lines_recorded and trace.executed_lines, trace.info.warnings
    return write_atomic(trace, tmp_path_factory.mktemp("ran") / "ran-cpu-cold.json")


def test_personal_page_lists_the_ran_lines_of_hooked_functions_in_the_installed_torch(recorded, tmp_path):
    trace = load(recorded)
    html = render_page(trace, torch=installed_source())
    section = html[html.index('<section class="wt-trace wt-trace-lines">'):]
    path, first, last = trace.info.target_sources["torch._dynamo.convert_frame:_compile"]
    counts = {line: count for line, count in trace.executed_lines[path].items() if first <= line <= last}
    block = re.search(r'<details class="wt-ran-function" data-target="torch._dynamo.convert_frame:_compile">'
                      r".*?</details>", section, re.S)[0]
    shown = {int(line): int(count) for count, line in
             re.findall(r'title="ran (\d+)×"><span class="wt-hits">\d+×</span><a class="wt-lineno" href="[^"]+#L(\d+)"',
                        block)}
    assert shown == counts and counts
    listed = re.findall(r'<details class="wt-ran-function" data-target="([^"]+)"', section)
    assert listed[0] == "torch:compile"  # pipeline order: the stages table's first entry point leads
    stages = [TARGET_BY_NAME[target].stage for target in listed]
    assert stages == sorted(stages, key=STAGE_ORDER.__getitem__)
    result = run_python(["-m", "tracers", "report", str(recorded), "--out", str(tmp_path)])
    assert result.returncode == 0, result.stderr
    page = (tmp_path / "ran-cpu-cold.html").read_text()
    assert "<h2>Lines that ran</h2>" in page and 'data-target="torch._dynamo.convert_frame:_compile"' in page
    assert "Counts are line events" in page  # a statement over several lines can count its first line twice a run


def test_personal_page_of_a_trace_from_another_commit_says_why_not(recorded, tmp_path):
    data = json.loads(recorded.read_text())
    data["otherData"]["torch_compile_walkthrough"]["torch_git_sha"] = "f" * 40
    edited = tmp_path / "other-cpu-cold.json"
    edited.write_text(json.dumps(data))
    html = render_page(load(edited), torch=installed_source())
    assert "Not shown: the trace was recorded with torch at commit ffffffffffff" in html
    assert "wt-ran-function" not in html


# -- the directive, built for real against the installed torch ----------------------------------------------

EXCERPT = """\
```{{torch-excerpt}} torch._dynamo.convert_frame:ConvertFrameAssert.__call__
:trace: {trace}
```
"""


def excerpt_project(root: Path, page: str, traces: dict[str, Path]) -> Path:
    src = root / "src"
    for relative, source in traces.items():
        (src / "_traces" / relative).parent.mkdir(parents=True, exist_ok=True)
        (src / "_traces" / relative).write_bytes(source.read_bytes())
    (src / "conf.py").write_text("extensions = ['myst_parser', 'walkthrough']\nwalkthrough_torch = 'installed'\n"
                                 "walkthrough_stage_hooks = False\nwalkthrough_lock = ''\n"
                                 "exclude_patterns = ['_traces']\n")
    (src / "index.md").write_text("# Lines\n\n" + page)
    return src


def _release(path: Path) -> str:
    return load(path).info.torch_version.split("+")[0]


def test_excerpt_marks_the_lines_that_ran_and_notes_another_release(recorded, tmp_path):
    pytest.importorskip("myst_parser")
    from tests.walkthrough.sphinx.test_trace_directive import build as sphinx_build

    data = json.loads(recorded.read_text())
    data["otherData"]["torch_compile_walkthrough"].update(torch_version="2.11.0+cu130", device="cuda")
    old = tmp_path / "old.json"
    old.write_text(json.dumps(data))
    page = EXCERPT.format(trace="ran") + "\n" + EXCERPT.format(trace="old cuda/cold")
    src = excerpt_project(tmp_path, page, {f"cpu/{_release(recorded)}/ran-cpu-cold.json": recorded,
                                           "cuda/2.11.0/old-cuda-cold.json": old})
    out, warnings, status = sphinx_build(src)
    assert (warnings, status) == ("", 0)  # -W: a release mismatch is a note, never a warning
    html = (out / "index.html").read_text()
    first, second = html.split('<div class="wt-excerpt"')[1:]
    trace = load(recorded)
    span = re.search(r'class="wt-span">lines (\d+)–(\d+)<', first)
    start, end = int(span[1]), int(span[2])
    expected = {line: count for line, count in trace.executed_lines["torch/_dynamo/convert_frame.py"].items()
                if start <= line <= end}
    marked = {int(line): int(count) for count, line in re.findall(
        r'title="ran (\d+)×"><span class="wt-hits">\d+×</span><a class="wt-lineno" href="[^"]+">(\d+)<', first)}
    assert marked == expected and expected
    assert f"lines that ran in docs/examples/ran.py, cpu, torch {trace.info.torch_version}" in first
    assert "wt-ran" not in second.replace("wt-ran-legend wt-ran-none", "")
    assert "old (cuda) was recorded with torch 2.11.0+cu130" in second and "lines not marked" in second


@pytest.mark.parametrize(("trace", "message"), [
    ("nowhere", r"index:3: :trace: no recorded trace of 'nowhere' \(cpu, cold\): looked for .*nowhere-cpu-cold\.json"),
    ("ran gpu/cold", r"index:3: 'gpu/cold' is not DEVICE/CACHE"),
])
def test_bad_trace_option_is_one_clear_error_naming_page_and_line(recorded, tmp_path, trace, message):
    pytest.importorskip("myst_parser")
    from tests.walkthrough.sphinx.test_trace_directive import build as sphinx_build
    from walkthrough.sphinx.directives import WalkthroughError

    src = excerpt_project(tmp_path, EXCERPT.format(trace=trace), {f"cpu/{_release(recorded)}/ran-cpu-cold.json": recorded})
    with pytest.raises(WalkthroughError, match=message):
        sphinx_build(src)

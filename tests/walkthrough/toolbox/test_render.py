"""The toolbox's tables and excerpts: everything recorded is escaped, and the directives build for real in Sphinx."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest

from tracers.vocabulary.releases import REFERENCE_TORCH
from walkthrough.toolbox.detect import Evidence
from walkthrough.toolbox.recording import FORMAT_VERSION, Recording, StepCost, ToolRecord, save
from walkthrough.toolbox.render import render_costs, render_output, render_table, short_source

HOSTILE = "<script>alert('x')</script>"


def _tool(tool_id: str, name: str, wall: float, evidence: tuple[Evidence, ...] = (), status: str = "ok",
          error: str | None = None) -> ToolRecord:
    steps = () if status == "missing" else (
        StepCost("run", f"TORCH_LOGS=a&b python demo.py {HOSTILE}", True, 0, wall, wall / 2),
        StepCost("tlparse", "tlparse $OUT/trace/*.log", False, 0, 0.05, 0.04))
    return ToolRecord(tool_id, name, "environment variable", f"python demo.py # {HOSTILE}", "note <i>", status, error,
                      steps, 2048, 3 << 20, 2, (("out/<a>.txt", 10), ("b.json", 20)), evidence, ("tlparse <0.4>",))


def recording(torch_version: str = f"{REFERENCE_TORCH}+cpu") -> Recording:
    evidence = (Evidence("guards", 'tl_out/"x"/<guards>.txt', 3, f"TENSOR_MATCH {HOSTILE}\n  & more", ""),
                Evidence("break_reason", "stderr", 1, "Graph break in user code at demo.py:4", "line 4"))
    return Recording(
        FORMAT_VERSION, "docs/examples/demo.py", ("a<b",), "cpu", "CPU <model>", torch_version, "abc", "3.11.7",
        "Linux", "2026-01-02T03:04:05+00:00", "python -m walkthrough.toolbox record",
        (("break_reason", "Graph-break <reason>"), ("guards", "Guards"), ("cache", "Cache hits")),
        (_tool("plain", "plain run", 10.0, evidence[1:]),
         _tool("logs", f"TORCH_LOGS {HOSTILE}", 12.5, evidence),
         _tool("missing", "tlparse", 0.0, status="missing", error="tlparse not installed: pip install <tlparse>")),
        StepCost("run", "python demo.py", True, 0, 10.4, 5.1))


def test_every_recorded_string_is_escaped():
    data = recording()
    pages = [render_table(data, title=HOSTILE), render_costs(data),
             render_output(data, data.tools[1], files=True, title=HOSTILE)]
    for page in pages:
        assert "<script>" not in page and "<a>" not in page and "<i>" not in page and "<tlparse>" not in page
        assert "&lt;script&gt;" in page or "&lt;" in page
    table, costs, output = pages
    assert "CPU &lt;model&gt;" in table and "Graph-break &lt;reason&gt;" in table
    assert 'title="tl_out/&quot;x&quot;/&lt;guards&gt;.txt, line 3"' in table
    assert "TENSOR_MATCH &lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt;\n  &amp; more" in output
    assert "$ TORCH_LOGS=a&amp;b python demo.py &lt;script&gt;" in output and "out/&lt;a&gt;.txt" in output
    assert "not run: tlparse not installed: pip install &lt;tlparse&gt;" in costs


def test_table_marks_shown_missing_and_not_run_cells():
    table = render_table(recording())
    rows = re.findall(r"<tr><th scope=\"row\">(.*?)</th>(.*?)</tr>", table)
    cells = {title: re.findall(r'<td class="wt-tb-(\w+)"', row) for title, row in rows}
    assert cells == {"Graph-break &lt;reason&gt;": ["yes", "yes", "notrun"], "Guards": ["no", "yes", "notrun"],
                     "Cache hits": ["no", "no", "notrun"]}
    assert "line 4" in table and ">&lt;guards&gt;.txt<" in table  # the detail, and the file's short name
    narrowed = render_table(recording(), tool_ids=("logs",), feature_ids=("guards",))
    assert narrowed.count('<th scope="row">') == 1 and ">plain run<" not in narrowed


def test_costs_compare_with_the_plain_run_and_report_its_repeat():
    costs = render_costs(recording())
    assert "1.25×" in costs  # 12.5 s against 10.0 s, wall and CPU alike
    assert "tlparse 50 ms" in costs and "3.0 MB" in costs and "2 files" in costs
    assert "tlparse &lt;0.4&gt;" in costs  # the version it was recorded with
    assert "10.4 s at the end" in costs


def test_output_lists_excerpts_in_table_order_and_says_what_is_absent():
    data = recording()
    output = render_output(data, data.tools[1], feature_ids=("guards", "cache"))
    assert output.index("Guards") < output.index("Not in its output: Cache hits")
    assert "Graph break in user code" not in output  # not asked for
    full = render_output(data, data.tools[1])
    assert full.index("Graph-break &lt;reason&gt;") < full.index("<strong>Guards")


def test_short_source_names():
    assert short_source("tl_out/-_0_0_0/dynamo_graph_break_reason_1.txt") == "dynamo_graph_break_reason_1.txt"
    assert short_source("trace.json#artifacts[3:x].payload") == "trace.json#…"
    assert short_source("stderr") == "stderr"


# -- the directives in a real Sphinx build ----------------------------------------------------------------------

pytest.importorskip("sphinx")
pytest.importorskip("myst_parser")

from sphinx.application import Sphinx  # noqa: E402
from sphinx.util.docutils import docutils_namespace, patch_docutils  # noqa: E402

from tests.walkthrough_fixtures import write_tree  # noqa: E402
from walkthrough.sphinx.directives import WalkthroughError  # noqa: E402

pytestmark = pytest.mark.sphinx

PAGE = f"""\
# Toolbox

```{{toolbox-table}} demo
:caption: {HOSTILE}
```

```{{toolbox-costs}} demo
```

```{{toolbox-output}} demo
:tool: logs
:files:
```
"""


def build(root: Path, page: str, data: Recording, conf: str = "") -> tuple[Path, str, int]:
    src = root / "src"
    tree = write_tree(root / "torch-tree", files={"torch/__init__.py": ""})
    src.mkdir(parents=True)
    release = data.torch_version.split("+")[0]
    save(data, src / "_toolbox" / release / "demo-cpu.json")
    (src / "conf.py").write_text(
        "extensions = ['myst_parser', 'walkthrough.toolbox.directive']\n"
        f"walkthrough_torch = {str(tree)!r}\nwalkthrough_stage_hooks = False\nwalkthrough_lock = ''\n{conf}")
    (src / "index.md").write_text(page)
    out, warnings = root / "html", io.StringIO()
    with patch_docutils(str(src)), docutils_namespace():
        app = Sphinx(str(src), str(src), str(out), str(root / "doctrees"), "html", status=io.StringIO(),
                     warning=warnings, freshenv=True, warningiserror=True)
        app.build()
    return out, warnings.getvalue(), app.statuscode


def test_directives_render_the_recording_escaped(tmp_path):
    out, warnings, status = build(tmp_path, PAGE, recording())
    assert (warnings, status) == ("", 0)
    html = (out / "index.html").read_text()
    assert "<script>alert" not in html and "&lt;script&gt;alert" in html
    assert html.count('class="wt-tb-table"') == 1 and html.count("wt-tb-costs") == 1
    assert "TENSOR_MATCH &lt;script&gt;" in html and "out/&lt;a&gt;.txt" in html
    assert (out / "_static" / "toolbox.css").is_file() and "toolbox.css" in html


@pytest.mark.parametrize("page, message", [
    ("```{toolbox-output} demo\n:tool: nope\n```\n", r"index.md:\d+: :tool: nope; the recording has plain, logs"),
    ("```{toolbox-table} other\n```\n", r"no toolbox recording of 'other' on cpu"),
    ("```{toolbox-table} demo\n:features: guards, typo\n```\n", r":features: unknown typo"),
])
def test_directive_errors_name_the_page_and_line(tmp_path, page, message):
    with pytest.raises(WalkthroughError, match=message):
        build(tmp_path, page, recording())


def test_a_recording_from_another_release_builds_with_a_warning(tmp_path):
    _, warnings, status = build(tmp_path, "```{toolbox-table} demo\n```\n", recording("2.11.0+cu130"))
    assert status == 1 and "recorded with torch 2.11.0+cu130, not the reference" in warnings
    # ... unless the site declares that release for the device, as it does for recorded traces.
    _, warnings, status = build(tmp_path / "declared", "```{toolbox-table} demo\n```\n", recording("2.11.0+cu130"),
                                conf="extensions.append('walkthrough.sphinx.traces')\n"
                                     "walkthrough_trace_versions = {'cpu': '2.11.0'}\n")
    assert (warnings, status) == ("", 0)

"""The torch-trace directive, built for real in small Sphinx projects: tabs, options, downloads, links, versions."""

from __future__ import annotations

import io
import json
import re
import shutil
from pathlib import Path

import pytest

pytest.importorskip("sphinx")
pytest.importorskip("myst_parser")
pytest.importorskip("sphinx_design")

from sphinx.application import Sphinx  # noqa: E402
from sphinx.util.docutils import docutils_namespace, patch_docutils  # noqa: E402

from tests.walkthrough_fixtures import write_tree  # noqa: E402
from tracers.vocabulary.releases import REFERENCE_TORCH  # noqa: E402
from tracers.report.folding import TRANSLATOR  # noqa: E402
from tracers.tracefile.chrome import load  # noqa: E402
from walkthrough.sphinx.directives import WalkthroughError  # noqa: E402

pytestmark = pytest.mark.sphinx

ROOT = Path(__file__).resolve().parents[3]
TRACES = ROOT / "docs" / "_traces"
CUDA_RELEASE = "2.11.0"  # the release the GPU machine records CUDA traces with
# A torch tree that defines two of the recorded targets, so their spans get source links and no others do.
CONVERT_FRAME = '''\
class ConvertFrame:
    def __call__(self, frame):
        return frame


def _compile(code):
    return code
'''


def make_project(root: Path, pages: dict[str, str], versions: dict[str, str] | None = None,
                 traces: dict[str, Path] | None = None) -> Path:
    """A MyST/rST project with its own _traces folder: ``traces`` maps a path in it to a file to copy."""
    src = root / "src"
    tree = write_tree(root / "torch-tree", files={"torch/_dynamo/__init__.py": "",
                                                  "torch/_dynamo/convert_frame.py": CONVERT_FRAME,
                                                  # a module named like the regions' pseudo-module
                                                  "user.py": "def warmup():\n    pass\n"})
    (src / "_traces").mkdir(parents=True)
    for relative, source in (traces or {}).items():
        target = src / "_traces" / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(source, target)
    (src / "conf.py").write_text(
        "extensions = ['myst_parser', 'sphinx_design', 'walkthrough', 'walkthrough.sphinx.traces']\n"
        f"walkthrough_torch = {str(tree)!r}\n"
        "walkthrough_stage_hooks = False\n"
        "walkthrough_lock = ''\n"
        "exclude_patterns = ['_traces']\n"
        f"walkthrough_trace_versions = {versions or {}!r}\n"
    )
    for name, text in pages.items():
        (src / name).parent.mkdir(parents=True, exist_ok=True)
        (src / name).write_text(text)
    return src


def build(src: Path) -> tuple[Path, str, int]:
    """Build as the site does, with -W: the exit status is 1 when anything warned."""
    out = src.parent / "html"
    warnings = io.StringIO()
    with patch_docutils(str(src)), docutils_namespace():  # as sphinx-build does: registrations end with the build
        app = Sphinx(str(src), str(src), str(out), str(src.parent / "doctrees"), "html", status=io.StringIO(),
                     warning=warnings, freshenv=True, warningiserror=True)
        app.build()
    return out, warnings.getvalue(), app.statuscode


MLP = {f"cpu/{REFERENCE_TORCH}/mlp-cpu-cold.json": TRACES / "cpu" / REFERENCE_TORCH / "mlp-cpu-cold.json",
       f"cuda/{CUDA_RELEASE}/mlp-cuda-cold.json": TRACES / "cuda" / CUDA_RELEASE / "mlp-cuda-cold.json"}

INDEX = """\
# Traces

```{toctree}
chapters/02-frame-evaluation
rst
```

```{torch-trace} mlp
```

```{torch-trace} mlp
:device: cpu
:cache: cold
:parts: counts, artifacts
:artifacts: dynamo_output_graph, guards
:compile: 0/0
:caption: The MLP's <first> compile
```

```{torch-trace} mlp
:device: cuda
:parts: tree
:open: lowering
```
"""
RST = """\
In reStructuredText
===================

.. torch-trace:: mlp
   :parts: timeline
"""


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    src = make_project(tmp_path_factory.mktemp("site"), {
        "index.md": INDEX, "rst.rst": RST, "chapters/02-frame-evaluation.md": "# Frames\n\nText.\n",
    }, versions={"cuda": CUDA_RELEASE}, traces=MLP)
    out, warnings, status = build(src)
    assert (warnings, status) == ("", 0)
    return out


def blocks(html: str) -> list[str]:
    """The HTML of each trace block on a page, in order."""
    starts = [match.start() for match in re.finditer(r'<div class="wt-trace docutils container">', html)]
    return [html[start:end] for start, end in zip(starts, [*starts[1:], len(html)])]


def test_default_is_cpu_and_cuda_tabs_with_every_part(site):
    html = (site / "index.html").read_text()
    labels = re.findall(r'data-sync-id="(\w+)"[^>]*>\s*(\w+)</label>', html)
    assert labels == [("cpu", "CPU"), ("cuda", "CUDA")]
    first, cuda = blocks(html)[:2]
    for block in (first, cuda):
        assert [part for part in re.findall(r'data-part="(\w+)"', block)][:4] == ["timeline", "tree", "counts",
                                                                                   "artifacts"]
    assert f"torch {REFERENCE_TORCH}+cpu" in first and "wt-not-reference" not in first
    assert "torch 2.11.0+cu130 · not the reference" in cuda and "wt-not-reference" in cuda  # shown, not warned


def test_options_select_device_parts_artifacts_compile_and_caption(site):
    second = blocks((site / "index.html").read_text())[2]
    assert re.findall(r'data-part="(\w+)"', second) == ["counts", "artifacts"]
    assert "The MLP&#x27;s &lt;first&gt; compile" in second
    names = re.findall(r'class="wt-artifact-name">([\w]+)</code>', second)
    assert names == ["dynamo_output_graph", "dynamo_cpp_guards_str"]
    assert re.findall(r'class="wt-compile" data-compile="([^"]*)"', second) == ["0/0"]


def test_open_stages_and_a_single_device_without_tabs(site):
    html = (site / "index.html").read_text()
    third = blocks(html)[3]
    assert "mlp-cuda-cold.json" in third and re.findall(r'data-part="(\w+)"', third) == ["tree"]
    opened = re.findall(r'<details class="wt-node" data-span="(\d+)" open>', third)
    closed = re.findall(r'<details class="wt-node" data-span="(\d+)">', third)
    trace = json.loads((TRACES / "cuda" / CUDA_RELEASE / "mlp-cuda-cold.json").read_text())
    stage = {event["args"]["id"]: event["cat"] for event in trace["traceEvents"] if event.get("ph") == "X"}
    assert opened and closed
    assert all(stage[int(span)] != "guards" for span in opened)
    assert html.count('class="sd-tab-set') == 1  # only the default (both) directive makes tabs


def test_download_copies_the_json_and_hints_perfetto(site):
    html = (site / "index.html").read_text()
    links = re.findall(r'href="(_downloads/[^"]+)"', html)
    assert {Path(link).name for link in links} == {"mlp-cpu-cold.json", "mlp-cuda-cold.json"}
    for link in links:
        assert json.loads((site / link).read_text())["otherData"]  # the trace itself, byte for byte a trace
    assert html.count("https://ui.perfetto.dev") == len(links)


def test_chapter_links_only_to_pages_that_exist_and_source_links_where_torch_resolves(site):
    html = (site / "index.html").read_text()
    chapters = set(re.findall(r'href="(chapters/[^"#]+)"', html))
    assert chapters == {"chapters/02-frame-evaluation.html"}  # the frame stage's page; the others are unwritten
    sources = set(re.findall(r'href="(https://github.com/pytorch/pytorch/[^"]+)"', html))
    base = "https://github.com/pytorch/pytorch/blob/" + "a" * 40 + "/torch/_dynamo/convert_frame.py"
    assert sources == {f"{base}#L2-L3", f"{base}#L6-L7"}  # ConvertFrame.__call__ and _compile, nothing else


def test_rst_pages_get_the_same_tabs(site):
    html = (site / "rst.html").read_text()
    assert 'data-sync-id="cpu"' in html and 'data-sync-id="cuda"' in html
    # One bar per span, except calls too short to draw apart, which share one, and inlined calls (a translator
    # Dynamo nested in another), drawn within their outermost translator's bar.
    shared = sum(int(n) - 1 for n in re.findall(r"<title>(\d+) calls too short to draw apart", html))
    spans = [span for path in MLP.values() for span in load(path).spans]
    by_id = {(span.thread_id, span.id): span for span in spans}
    nested = sum(span.target == TRANSLATOR and by_id.get((span.thread_id, span.parent)) is not None
                 and by_id[(span.thread_id, span.parent)].target == TRANSLATOR for span in spans)
    assert html.count("<rect") + shared == len(spans) - nested
    assert '<a href="chapters/02-frame-evaluation.html">' in html


def _edited(tmp_path: Path, version: str) -> Path:
    data = json.loads((TRACES / "cpu" / REFERENCE_TORCH / "mlp-cpu-cold.json").read_text())
    data["otherData"]["torch_compile_walkthrough"]["torch_version"] = version
    path = tmp_path / "edited.json"
    path.write_text(json.dumps(data))
    return path


def test_a_trace_from_another_release_warns_unless_declared(tmp_path):
    edited = _edited(tmp_path, "2.9.0+cpu")
    page = {"index.md": "# T\n\n```{torch-trace} old\n:device: cpu\n```\n"}
    traces = {"cpu/2.9.0/old-cpu-cold.json": edited}
    out, warnings, status = build(make_project(tmp_path / "a", page, traces=traces))
    assert status == 1  # -W: the build fails
    assert re.search(r"index\.md:3: WARNING: trace old-cpu-cold\.json \(cpu\) was recorded with torch 2\.9\.0\+cpu, "
                     r"not the reference .*\[walkthrough\.trace_version\]", warnings), warnings
    assert "torch 2.9.0+cpu · not the reference" in (out / "index.html").read_text()
    out, warnings, status = build(make_project(tmp_path / "b", page, versions={"cpu": "2.9.0"}, traces=traces))
    assert (warnings, status) == ("", 0) and "not the reference" in (out / "index.html").read_text()


def test_user_regions_get_no_source_link(tmp_path):
    data = json.loads((TRACES / "cpu" / REFERENCE_TORCH / "mlp-cpu-cold.json").read_text())
    first = next(event for event in data["traceEvents"] if event.get("ph") == "X")
    region = {**first, "name": "warmup", "cat": "user",
              "args": {"id": 9999, "target": "user:warmup", "stage": "user", "thread_id": first["tid"], "depth": 0}}
    data["traceEvents"].append(region)
    path = tmp_path / "regions.json"
    path.write_text(json.dumps(data))
    page = {"index.md": "# T\n\n```{torch-trace} regions\n:device: cpu\n:parts: tree\n```\n"}
    out, warnings, status = build(make_project(tmp_path, page, traces={f"cpu/{REFERENCE_TORCH}/regions-cpu-cold.json": path}))
    html = (out / "index.html").read_text()
    row = re.search(r'data-span="9999">(.*?)</div>', html, re.S)[1]
    assert "warmup" in row and "Your code" in row and "href" not in row
    assert "convert_frame.py#L" in html  # torch's own targets in the same tree still link


@pytest.mark.parametrize(("page", "traces", "message"), [
    ("```{torch-trace} nowhere\n```\n", {}, r"index\.md:3: no recorded trace of 'nowhere' \(cold\)"),
    ("```{torch-trace} mlp\n:device: cpu\n:cache: warm\n```\n", MLP, r"index\.md:3: no recorded trace of 'mlp' \(warm\)"),
    ("```{torch-trace} broken\n:device: cpu\n```\n", "corrupt", r"index\.md:3: .*broken-cpu-cold\.json: not valid JSON"),
    ("```{torch-trace} damaged\n:device: cpu\n```\n", "damaged", r"index\.md:3: .*damaged-cpu-cold\.json: trace file is damaged"),
    ("```{torch-trace} mlp\n:parts: tree, flames\n```\n", MLP, r"index\.md:3: :parts: unknown part\(s\) flames"),
    ("```{torch-trace} mlp\n:open: lowring\n```\n", MLP, r"index\.md:3: :open: unknown stage id\(s\) lowring"),
    ("```{torch-trace} mlp\n:artifacts: graph, gards\n```\n", MLP, r"index\.md:3: no artifact kind or name 'gards'"),
    ("```{torch-trace} mlp\n:compile: 0/7\n```\n", MLP, r"index\.md:3: no compile '0/7' in this trace \(it has 0/0\)"),
])
def test_bad_input_is_one_clear_error_naming_page_and_line(tmp_path, page, traces, message):
    if traces == "corrupt":
        broken = tmp_path / "broken.json"
        broken.write_text('{"traceEvents": [')
        traces = {f"cpu/{REFERENCE_TORCH}/broken-cpu-cold.json": broken}
    elif traces == "damaged":  # this tool's trace whose events are gone (a field of the wrong type is left out)
        data = json.loads(MLP[f"cpu/{REFERENCE_TORCH}/mlp-cpu-cold.json"].read_text())
        data["traceEvents"] = {"not": "a list"}
        damaged = tmp_path / "damaged.json"
        damaged.write_text(json.dumps(data))
        traces = {f"cpu/{REFERENCE_TORCH}/damaged-cpu-cold.json": damaged}
    src = make_project(tmp_path, {"index.md": "# T\n\n" + page}, traces=traces)
    with pytest.raises(WalkthroughError, match=message):
        build(src)

"""The stage diff as HTML (tracers/report/diff.py) and the torch-trace-diff directive in a small Sphinx project."""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

import pytest

from tracers.analysis.diff import diff
from tracers.vocabulary.releases import REFERENCE_TORCH
from tracers.report.options import Links
from tracers.report.diff import Side, kernel_kinds, render_diff, side_names
from tracers.tracefile.chrome import load

pytestmark = pytest.mark.sphinx

ROOT = Path(__file__).resolve().parents[3]
TRACES = ROOT / "docs" / "_traces"
CUDA_RELEASE = "2.11.0"
CPU_COLD = TRACES / "cpu" / REFERENCE_TORCH / "mlp-cpu-cold.json"
CUDA_COLD = TRACES / "cuda" / CUDA_RELEASE / "mlp-cuda-cold.json"
CUDA_WARM = TRACES / "cuda" / CUDA_RELEASE / "mlp-cuda-warm.json"


def rendered(path_a: Path, path_b: Path, links: Links = Links(), **kwargs) -> str:
    a, b = load(path_a), load(path_b)
    names = side_names(a.info, b.info)
    return render_diff(diff(a, b), Side(names[0], a.info, path_a.name), Side(names[1], b.info, path_b.name),
                       links, **kwargs)


def rows(html: str) -> dict[str, str]:
    """stage id -> which side it ran on (both, a, b)."""
    return dict(re.findall(r'<tr data-stage="(\w+)" data-ran="(\w+)">', html))


def test_cpu_vs_cuda_marks_codegen_stages_targets_and_kernels_by_side():
    html = rendered(CPU_COLD, CUDA_COLD)
    ran = rows(html)
    assert ran["cpp"] == "a" and ran["triton"] == "b" and ran["frame"] == "both"
    cpp_row = re.search(r'<tr data-stage="cpp".*?</tr>', html)[0]
    assert "only in CPU" in cpp_row and "only in CUDA" not in cpp_row  # the empty CUDA cell says where it ran
    triton_row = re.search(r'<tr data-stage="triton".*?</tr>', html)[0]
    assert "only in CUDA" in triton_row and "only in CPU" not in triton_row
    only = dict(re.findall(r'data-side="(\w)"><strong>ran only in \w+</strong><ul>(.*?)</ul>', html, re.S))
    assert re.findall(r'data-target="([^"]+)"', only["a"]) == ["torch._inductor.codegen.cpp:CppScheduling.codegen_node"]
    assert "torch._inductor.codegen.triton:TritonKernel.codegen_kernel" in only["b"]
    kernels = dict(re.findall(r'data-side="(\w)" data-kernels="(\d+)"', html))
    result = diff(load(CPU_COLD), load(CUDA_COLD))
    assert kernels == {"a": str(len(result.kernels_a)), "b": str(len(result.kernels_b))} and result.kernels_a
    assert f"({len(result.kernels_a)} cpp_fused_*)" in html and f"({len(result.kernels_b)} triton_*)" in html
    assert "torch 2.11.0+cu130" in html and f"torch {REFERENCE_TORCH}" in html  # each side's release


def test_bars_share_one_scale_and_times_match_the_diff():
    html = rendered(CPU_COLD, CUDA_COLD)
    result = diff(load(CPU_COLD), load(CUDA_COLD))
    times = [int(ns) for ns in re.findall(r'data-ns="(\d+)"', html)]
    expected = [ns for row in result.stages for ns in (row.a_ns, row.b_ns) if ns is not None]
    assert times == expected
    widths = [float(width) for width in re.findall(r'class="wt-diff-bar" style="width:([\d.]+)%', html)]
    assert max(widths) == 70.0 and len(widths) == len(times)  # the longest stage, of either side, is the full bar


def test_cold_vs_warm_on_one_device_is_named_by_cache():
    html = rendered(CUDA_COLD, CUDA_WARM)
    assert "CUDA cold vs CUDA warm" in html
    counts = dict(re.findall(r'<tr data-count="([^"]+)"( class="wt-diff-differs")?', html))
    result = diff(load(CUDA_COLD), load(CUDA_WARM))
    for what, count_a, count_b in result.counts:
        assert bool(counts[what]) == (count_a != count_b)
    assert any(a != b for _, a, b in result.counts)  # the warm run hit a cache the cold one never used


def test_a_trace_against_itself_has_no_one_sided_rows():
    html = rendered(CPU_COLD, CPU_COLD)
    assert set(rows(html).values()) == {"both"} and "only in" not in html.replace("ran only in", "")
    assert "Both sides generated the same kernels." in html


def test_chapter_and_source_links_only_where_given():
    links = Links(chapter_url=lambda stage: f"chapters/{stage}.html" if stage == "cpp" else None,
                  source_url=lambda target: "https://src/x#L1" if target.endswith("codegen_node") else None)
    html = rendered(CPU_COLD, CUDA_COLD, links)
    assert set(re.findall(r'href="(chapters/[^"]+)"', html)) == {"chapters/cpp.html"}
    item = re.search(r'<li data-target="torch._inductor.codegen.cpp:CppScheduling.codegen_node".*?</li>', html)[0]
    assert 'href="https://src/x#L1"' in item and 'href="chapters/cpp.html"' in item
    assert 'href="chapters/triton.html"' not in html


def test_everything_from_the_traces_is_escaped():
    a, b = load(CPU_COLD), load(CUDA_COLD)
    evil = "<script>alert(1)</script>"
    a.info = replace(a.info, device_name=evil, torch_version=evil, cache_mode=evil)
    result = diff(a, b)
    result = replace(result, only_a=(f"m:{evil}",), kernels_a=(f"cpp_fused_{evil}",), counts=((evil, 1, 2),))
    html = render_diff(result, Side(evil, a.info, evil, evil), Side("B", b.info), title=evil, caption=evil)
    assert "<script>" not in html and html.count("&lt;script&gt;") >= 8


def test_names_and_kernel_kinds():
    a, b = load(CPU_COLD).info, load(CUDA_COLD).info
    assert side_names(a, b) == ("CPU", "CUDA")
    assert side_names(b, replace(b, cache_mode="warm")) == ("CUDA cold", "CUDA warm")
    assert side_names(a, replace(a, torch_version="2.14.0")) == (f"CPU {a.torch_version}", "CPU 2.14.0")
    assert kernel_kinds(("cpp_fused_a", "triton_poi_b", "triton_red_c")) == "1 cpp_fused_*, 2 triton_*"
    assert kernel_kinds(()) == "none"


# -- the directive, built for real ------------------------------------------------------------------------

@pytest.fixture(scope="module")
def sphinx_tools():
    """tests/walkthrough/sphinx/test_trace_directive.py's project builder (it skips without Sphinx, MyST or sphinx-design)."""
    from tests.walkthrough.sphinx import test_trace_directive as test_trace_directive
    return test_trace_directive


TRACE_FILES = {f"cpu/{REFERENCE_TORCH}/mlp-cpu-cold.json": CPU_COLD,
               f"cuda/{CUDA_RELEASE}/mlp-cuda-cold.json": CUDA_COLD,
               f"cuda/{CUDA_RELEASE}/mlp-cuda-warm.json": CUDA_WARM}
INDEX = """\
# Diffs

```{toctree}
chapters/11-cpp-codegen
```

```{torch-trace-diff} mlp
```

```{torch-trace-diff} mlp
:a: cuda/cold
:b: cuda/warm
:caption: The <second> run hits the caches
```
"""


def project(tools, root: Path, page: str, traces=TRACE_FILES, versions=None) -> Path:
    src = tools.make_project(root, {"index.md": page, "chapters/11-cpp-codegen.md": "# C++\n\nText.\n"},
                             versions={"cuda": CUDA_RELEASE} if versions is None else versions, traces=traces)
    conf = src / "conf.py"
    conf.write_text(conf.read_text().replace("'walkthrough.sphinx.traces'", "'walkthrough.sphinx.trace_diff'"))
    return src


def test_directive_renders_both_diffs_with_chapter_links(sphinx_tools, tmp_path):
    out, warnings, status = sphinx_tools.build(project(sphinx_tools, tmp_path, INDEX))
    assert (warnings, status) == ("", 0)
    html = (out / "index.html").read_text()
    diffs = html.split('<div class="wt-trace wt-trace-diff">')[1:]
    assert len(diffs) == 2
    assert "CPU vs CUDA" in diffs[0] and "CUDA cold vs CUDA warm" in diffs[1]
    assert "mlp-cpu-cold.json" in diffs[0] and "mlp-cuda-warm.json" in diffs[1]
    assert rows(diffs[0])["cpp"] == "a"
    assert "The &lt;second&gt; run hits the caches" in diffs[1]
    # only the chapter that exists is linked, through the builder's relative URL
    assert set(re.findall(r'href="(chapters/[^"#]+)"', html)) == {"chapters/11-cpp-codegen.html"}
    assert "torch-trace-chapter:" not in html
    assert "trace.css" in html  # the renderer's stylesheet comes with the directive


def test_an_undeclared_release_warns_like_torch_trace(sphinx_tools, tmp_path):
    out, warnings, status = sphinx_tools.build(project(sphinx_tools, tmp_path, INDEX, versions={}))
    assert status == 1
    assert re.search(r"index\.md:7: WARNING: trace mlp-cuda-cold\.json \(cuda\) was recorded with torch 2\.11\.0",
                     warnings), warnings


@pytest.mark.parametrize(("page", "message"), [
    ("```{torch-trace-diff} mlp\n:a: cpu/warm\n```\n",
     r"index\.md:3: no recorded trace of 'mlp' \(cpu, warm\) for side A: looked for .*mlp-cpu-warm\.json"),
    ("```{torch-trace-diff} nowhere\n```\n", r"index\.md:3: no recorded trace of 'nowhere' \(cpu, cold\)"),
    ("```{torch-trace-diff} mlp\n:b: gpu/cold\n```\n", r"index\.md:3: :b: 'gpu/cold' is not DEVICE/CACHE"),
    ("```{torch-trace-diff} mlp\n:a: cpu\n```\n", r"index\.md:3: :a: 'cpu' is not DEVICE/CACHE"),
])
def test_bad_input_is_one_clear_error_naming_page_and_line(sphinx_tools, tmp_path, page, message):
    from walkthrough.sphinx.directives import WalkthroughError

    with pytest.raises(WalkthroughError, match=message):
        sphinx_tools.build(project(sphinx_tools, tmp_path, "# T\n\n" + page))



def test_compiles_table_has_a_row_per_compile_id():
    html = rendered(CPU_COLD, CUDA_COLD)
    result = diff(load(CPU_COLD), load(CUDA_COLD))
    assert re.findall(r'<tr data-compile="([^"]+)"', html) == [row.compile_id for row in result.compiles]
    assert result.compiles and all(row.a and row.b for row in result.compiles)  # the same program on both

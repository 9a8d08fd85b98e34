"""The torch-measure directive, built for real in small Sphinx projects: table, charts, tabs, escaping, versions."""

from __future__ import annotations

import io
import re
from dataclasses import replace
from pathlib import Path

import pytest

pytest.importorskip("sphinx")
pytest.importorskip("myst_parser")
pytest.importorskip("sphinx_design")

from sphinx.application import Sphinx  # noqa: E402
from sphinx.util.docutils import docutils_namespace, patch_docutils  # noqa: E402

from tracers.vocabulary.releases import REFERENCE_TORCH  # noqa: E402
from tracers.measure.measurement import Measurement, Run, Settings, Samples, summarize, write_atomic  # noqa: E402
from tracers.measure.plots import KINDS, write_plots  # noqa: E402
from walkthrough.sphinx.measurements import find_measurement, machine_line  # noqa: E402

from tests.walkthrough.sphinx.test_trace_directive import make_project  # noqa: E402

pytestmark = pytest.mark.sphinx

HOSTILE = "<script>alert(1)</script> & co"


def _timing(median: float) -> Samples:
    return Samples(median, median * 0.9, median * 1.2, median * 0.8, 4, (median,) * 3)


def measurement(device: str, torch_version: str, error: str = "") -> Measurement:
    """A small measurement made of runs, through the same summary the command uses."""
    settings = Settings("inductor", ("eager", "default"), (1, 256), 3, 2, False)
    runs = [Run("eager", 1, "cold", first_call_s=0.01, warmup_s=(1e-4,) * 2, steady=_timing(1e-4),
                peak_memory_bytes=300_000_000),
            Run("default", 1, "cold", first_call_s=9.0, warmup_s=(5e-5,) * 2, steady=_timing(5e-5),
                peak_memory_bytes=400_000_000),
            Run("eager", 256, "cold", first_call_s=0.02, warmup_s=(1e-2,) * 2, steady=_timing(1e-2),
                peak_memory_bytes=310_000_000)]
    runs.append(Run("default", 256, "cold", error=error, phase="first call") if error else
                Run("default", 256, "cold", first_call_s=11.0, warmup_s=(1e-3,) * 2, steady=_timing(1e-3),
                    peak_memory_bytes=410_000_000))
    machine = {"torch_version": torch_version, "torch_git_sha": "f" * 40, "python": "3.12.1",
               "platform": "Linux x86_64", "cpu": f"CPU {HOSTILE}", "cpu_count": 2, "torch_threads": 2,
               "load_average": [0.5, 0.4, 0.3]}
    if device == "cuda":
        machine.update(device_name=f"GPU {HOSTILE}", cuda="13.0", triton="3.6.0")
    return Measurement("mlp", "docs/examples/mlp.py", device, machine, settings, tuple(runs),
                       summarize(runs, settings.modes, settings.batch_sizes),
                       status="partial" if error else "complete", started="2026-02-03T04:05:06+00:00")


def write(folder: Path, item: Measurement) -> Path:
    path = folder / item.device / item.machine["torch_version"].split("+")[0] / f"{item.example}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(replace(item, plots=write_plots(item, path)), path)
    return path


def build(src: Path) -> tuple[Path, str, int]:
    out = src.parent / "html"
    warnings = io.StringIO()
    with patch_docutils(str(src)), docutils_namespace():
        app = Sphinx(str(src), str(src), str(out), str(src.parent / "doctrees"), "html", status=io.StringIO(),
                     warning=warnings, freshenv=True, warningiserror=True)
        app.build()
    return out, warnings.getvalue(), app.statuscode


def project(root: Path, page: str, items: list[Measurement], versions: dict[str, str] | None = None) -> Path:
    src = make_project(root, {"index.md": page}, versions=versions)
    with (src / "conf.py").open("a") as conf:
        conf.write("extensions.append('walkthrough.sphinx.measurements')\nexclude_patterns.append('_measure')\n")
    for item in items:
        write(src / "_measure", item)
    return src


PAGE = """\
# Measured

```{torch-measure} mlp
```

```{torch-measure} mlp
:device: cpu
:plots: speedup, memory
:caption: Only <two> charts
```
"""


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    items = [measurement("cpu", f"{REFERENCE_TORCH}+cpu"), measurement("cuda", "2.11.0+cu130", error="OOM <&>")]
    src = project(tmp_path_factory.mktemp("measure"), PAGE, items, versions={"cuda": "2.11.0"})
    out, warnings, status = build(src)
    assert (warnings, status) == ("", 0)
    return out


def _blocks(html: str) -> list[str]:
    starts = [m.start() for m in re.finditer(r'<div class="wt-measure docutils container">', html)]
    return [html[start:end] for start, end in zip(starts, [*starts[1:], len(html)])]


def test_both_devices_in_tabs_each_with_machine_table_charts_and_download(site):
    html = (site / "index.html").read_text()
    assert re.findall(r'data-sync-id="(\w+)"[^>]*>\s*(\w+)</label>', html) == [("cpu", "CPU"), ("cuda", "CUDA")]
    cpu, cuda, single = _blocks(html)
    for block, device in ((cpu, "cpu"), (cuda, "cuda")):
        images = re.findall(r'<img alt="([^"]*)" class="wt-measure-plot" src="(_images/[^"]+)"', block)
        # Sphinx numbers same-named images apart (mlp-steady.svg, mlp-steady1.svg): each tab has its own.
        assert [re.sub(r"\d*\.svg$", "", Path(src).name) for _, src in images] == [f"mlp-{kind}" for kind in KINDS]
        for _, src in images:
            assert f"mlp on {device.upper()} (" in (site / src).read_text()
        assert "<table" in block and "time per call" in block
        assert re.search(r'href="_downloads/[^"]+/mlp\.json"', block)
    assert "Measured on CPU, CPU &lt;script&gt;alert(1)&lt;/script&gt; &amp; co" in cpu
    assert "torch 2.13.0+cpu (git ffffffffffff), 2 cores, 2 torch threads" in cpu
    assert "Measured on CUDA, GPU &lt;script&gt;" in cuda and "Triton 3.6.0" in cuda
    assert "<script>alert" not in html


def test_a_partial_measurement_says_which_runs_failed(site):
    cpu, cuda, _ = _blocks((site / "index.html").read_text())
    assert "This measurement is partial" in cuda and "failed in first call: OOM &lt;&amp;&gt;" in cuda
    assert "This measurement is" not in cpu
    assert ">never<" not in cpu and "2.00×" in cpu and "10.00×" in cpu


def test_one_device_without_tabs_and_chosen_charts(site):
    html = (site / "index.html").read_text()
    single = _blocks(html)[2]
    assert html.count('class="sd-tab-set') == 1
    assert [Path(src).name for src in re.findall(r'class="wt-measure-plot" src="([^"]+)"', single)] == [
        "mlp-speedup.svg", "mlp-memory.svg"]
    assert "Only &lt;two&gt; charts" in single


def test_machine_line_is_plain_text():
    line = machine_line(measurement("cuda", "2.11.0+cu130"))
    assert line.startswith(f"Measured on CUDA, GPU {HOSTILE} — torch 2.11.0+cu130 (git ffffffffffff), CUDA 13.0")
    assert "on 2026-02-03; load average 0.5 when it started" in line
    one = measurement("cpu", "2.13.0+cpu")
    one = replace(one, settings=replace(one.settings, threads=1))
    assert "2 cores, 1 torch thread, set for the runs, Python 3.12.1" in machine_line(one)


def test_the_reference_release_is_preferred(tmp_path):
    for release in ("2.11.0", REFERENCE_TORCH, "2.20.0"):
        write(tmp_path, measurement("cpu", release))
    assert find_measurement(tmp_path, "mlp", "cpu", REFERENCE_TORCH).release == REFERENCE_TORCH
    assert find_measurement(tmp_path, "mlp", "cpu", "9.9.9").release == "2.20.0"
    assert find_measurement(tmp_path, "mlp", "cuda", REFERENCE_TORCH) is None


@pytest.mark.parametrize(("page", "items", "message"), [
    ("```{torch-measure} mlp\n```\n", [], "no measurement of 'mlp'"),
    ("```{torch-measure} mlp\n:plots: pie\n```\n", ["cpu"], ":plots: unknown kind 'pie'"),
    ("```{torch-measure} mlp\n:device: cuda\n```\n", ["cpu"], "no measurement of 'mlp'"),
])
def test_mistakes_stop_the_build_with_the_page_and_line(tmp_path, page, items, message):
    src = project(tmp_path, f"# M\n\n{page}", [measurement(d, f"{REFERENCE_TORCH}+cpu") for d in items])
    with pytest.raises(Exception, match=re.escape(message)) as error:
        build(src)
    assert "index.md:3" in str(error.value)


def test_a_measurement_from_an_undeclared_release_warns(tmp_path):
    src = project(tmp_path, "# M\n\n```{torch-measure} mlp\n```\n", [measurement("cuda", "2.11.0+cu130")])
    _, warnings, status = build(src)
    assert status == 1 and "measurement mlp.json (cuda) was" in warnings and "2.11.0" in warnings


def test_a_damaged_file_names_itself(tmp_path):
    src = project(tmp_path, "# M\n\n```{torch-measure} mlp\n```\n", [measurement("cpu", f"{REFERENCE_TORCH}+cpu")])
    path = next((src / "_measure").glob("cpu/*/mlp.json"))
    path.write_text(path.read_text().replace('"format": "torch-measure/1"', '"format": "x"'))
    with pytest.raises(Exception, match="mlp.json: not a measurement file"):
        build(src)

"""Chapter 17's recorded compiled-vs-eager run: an example declares ``--vs-eager --profile`` for ``python -m tracers
record``, its recording carries the runtime section, and the torch-trace directive renders that section's tables
from the file."""

from __future__ import annotations

import html as html_lib
import re

import pytest

from tracers.analysis.findings import findings
from tracers.analysis.speed import speed_of
from tracers.commands.record import DECLARABLE, declared_options
from tracers.tracefile.chrome import load
from tracers.tracefile.speed import SpeedRecord
from tracers.vocabulary.durations import duration
from tracers.vocabulary.releases import REFERENCE_TORCH

from tests.conftest import ROOT, run_python

pytestmark = pytest.mark.torch

EXAMPLE = ROOT / "docs" / "examples" / "speed.py"
RECORDED = ROOT / "docs" / "_traces" / "cpu" / REFERENCE_TORCH / "speed-cpu-cold.json"
CHAPTER = ROOT / "docs" / "chapters" / "17-measuring.md"


def test_an_example_declares_its_options_in_a_comment_line(tmp_path):
    assert declared_options(EXAMPLE) == ["--vs-eager", "--profile"]
    assert declared_options(ROOT / "docs" / "examples" / "mlp.py") == []
    script = tmp_path / "x.py"
    script.write_text("# tracers-record: --profile\n# tracers-record: --profile --out /elsewhere\n")
    with pytest.raises(ValueError, match=r"allows --vs-eager, --profile, not --out /elsewhere"):
        declared_options(script)
    script.write_text('TEXT = """\n# tracers-record:--vs-eager\n"""\n  # tracers-record: --profile\n')
    assert declared_options(script) == ["--vs-eager"]  # a marker starts its line; an indented one is not one
    assert set(DECLARABLE) == {"--vs-eager", "--profile"}


def test_record_traces_an_example_with_the_options_it_declares(tmp_path):
    script = tmp_path / "timed.py"
    script.write_text("# tracers-record: --vs-eager --profile\nimport torch\n"
                      "f = torch.compile(lambda x: x * 2 + 1, backend='aot_eager')\n"
                      "for _ in range(30):\n    f(torch.ones(4))\n")
    code = ("import sys; from pathlib import Path; from tracers.commands.record import record; "
            f"sys.exit(record([{str(script)!r}], 'cpu', Path({str(tmp_path / 'traces')!r})))")
    result = run_python(["-c", code])
    assert result.returncode == 0, result.stderr
    written = list((tmp_path / "traces" / "cpu").glob("*/timed-cpu-cold.json"))
    assert len(written) == 1
    record = SpeedRecord.from_json(load(written[0]).info.runtime)
    assert record.eager is not None and record.eager.status == "ok"  # --vs-eager: the compile-off run
    assert [function.calls for function in record.compiled.functions] == [30] and record.profiles  # --profile


def test_an_unknown_declared_option_fails_that_example_only(tmp_path):
    script = tmp_path / "bad.py"
    script.write_text("# tracers-record: --nproc 8\n")
    code = ("import sys; from pathlib import Path; from tracers.commands.record import record; "
            f"sys.exit(record([{str(script)!r}], 'cpu', Path({str(tmp_path / 'traces')!r})))")
    result = run_python(["-c", code])
    assert result.returncode == 1 and "not recorded: " in result.stderr and "not --nproc 8" in result.stderr
    assert not (tmp_path / "traces" / "cpu").exists() or not list((tmp_path / "traces" / "cpu").rglob("*.json"))


def test_the_committed_recording_has_what_the_chapter_says_of_it():
    trace = load(RECORDED)
    speed = speed_of(trace)
    assert trace.info.device == "cpu" and speed.eager_status == "ok"
    assert [(f.name, f.calls) for f in speed.functions] == [("scale_shift", 500), ("Block", 40)]
    assert all(f.eager_ns and f.compiled_ns for f in speed.functions)
    block = next(profile for profile in speed.profiles if profile.name == "Block")
    assert any(line.line and "torch.tanh" in line.line.code for line in block.lines)  # the fused GELU, by line
    # The chapter calls the helper slower than eager on the machine that recorded it: the recording must say so.
    assert [f for f in findings(trace) if f.kind == "slower-than-eager" and "`scale_shift`" in f.what]
    assert "{torch-trace} speed" in CHAPTER.read_text()


# -- the directive, built for real ------------------------------------------------------------------------

@pytest.fixture(scope="module")
def sphinx_tools():
    """tests/walkthrough/sphinx/test_trace_directive.py's project builder (it skips without Sphinx, MyST or sphinx-design)."""
    from tests.walkthrough.sphinx import test_trace_directive as test_trace_directive
    return test_trace_directive


PAGE = """\
# Speed

```{torch-trace} speed
:parts: runtime
:caption: compiled <vs> eager
```
"""


def test_the_directive_renders_the_runtime_tables_from_the_recording(sphinx_tools, tmp_path):
    src = sphinx_tools.make_project(tmp_path, {"index.md": PAGE},
                                    traces={f"cpu/{REFERENCE_TORCH}/speed-cpu-cold.json": RECORDED})
    out, warnings, status = sphinx_tools.build(src)
    assert (warnings, status) == ("", 0)
    page = (out / "index.html").read_text()
    speed = speed_of(load(RECORDED))
    assert "Speed by your code" in page and "compiled &lt;vs&gt; eager" in page
    assert f"torch {load(RECORDED).info.torch_version}" in page  # which torch and device recorded it
    assert re.findall(r'<label class="sd-tab-label"[^>]*>\s*(\w+)', page) in (["CPU"], [])  # no CUDA tab without a file
    for function in speed.functions:
        row = re.search(rf'<tr[^>]*data-part="{function.headline.part}"><td[^>]*><code>{function.name}</code>.*?</tr>',
                        page, re.S)[0]
        assert duration(function.eager_ns) in html_lib.unescape(row) and duration(function.compiled_ns) in html_lib.unescape(row)
    block = next(profile for profile in speed.profiles if profile.name == "Block")
    assert "Kernel time by your line: <code>Block</code>" in page
    top = block.lines[0]
    assert html_lib.escape(top.line.code, quote=False) in page if top.line else "no user line recorded" in page


def test_an_op_called_once_per_line_is_split_among_its_lines_and_said_so():
    """The block's two Linear layers are one extern record (``addmm`` twice): each line made one call of it."""
    from tracers.report.speed import render_runtime

    trace = load(RECORDED)
    block = next(profile for profile in speed_of(trace).profiles if profile.name == "Block")
    shares = [(line.line.code, share) for line in block.lines if line.line for share in line.kernels
              if share.name.endswith("addmm")]
    assert len(shares) == 2 and {code for code, _ in shares} >= {"h = self.up(self.norm(x))"}
    assert [(share.launches_per_call, share.shared) for _, share in shares] == [(1.0, 2), (1.0, 2)]
    assert "(its time split evenly among 2 lines)" in render_runtime(trace)

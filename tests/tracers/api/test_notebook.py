"""``%load_ext tracers`` and ``%%trace`` in a real notebook, executed by a real IPython kernel (nbclient)."""

from __future__ import annotations

import json
import sys

import pytest

pytestmark = pytest.mark.torch

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")

CELLS = [
    "%load_ext tracers",
    "import torch\n"
    "def scale(x):\n"
    "    x = x * 2\n"
    "    print('half way')\n"
    "    return x.sin()\n"
    "compiled = torch.compile(scale, backend='aot_eager')",
    "%%trace --name scale --as t\ncompiled(torch.ones(4))",
    "print(int(t.graph_breaks), int(t.compiles), t.breaks[0].at.text, t.finished)",
    "%%trace --cache hot\ncompiled(torch.ones(4))",
    "%%trace --quiet --as failed\nraise RuntimeError('cell failed')",
    "print(failed.trace.info.status, failed.trace.info.error)",
    "print(t.breaks[0].at); print(t.findings[0].where)",
]


@pytest.fixture(scope="module")
def executed(tmp_path_factory: pytest.TempPathFactory):
    """The notebook after a kernel ran it: this Python, found through a kernel spec of its own."""
    root = tmp_path_factory.mktemp("notebook")
    spec_dir = root / "jupyter" / "kernels" / "tracers-test"
    spec_dir.mkdir(parents=True)
    (spec_dir / "kernel.json").write_text(json.dumps({
        "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "tracers test", "language": "python"}))
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(source) for source in CELLS])
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("JUPYTER_PATH", str(root / "jupyter"))
        client = nbclient.NotebookClient(notebook, kernel_name="tracers-test", timeout=300, allow_errors=True,
                                         resources={"metadata": {"path": str(root)}})
        client.execute()
    return notebook


def _outputs(notebook, index: int, kind: str) -> list[dict]:
    return [output for output in notebook.cells[index].outputs if output.output_type == kind]


def _stdout(notebook, index: int) -> str:
    return "".join(output.text for output in _outputs(notebook, index, "stream") if output.name == "stdout")


def test_the_traced_cell_runs_as_usual_and_shows_the_trace_page(executed) -> None:
    assert _stdout(executed, 2) == "half way\n"  # the cell's own output is untouched
    value, shown = _outputs(executed, 2, "execute_result")
    assert value.data["text/plain"].startswith("tensor([")  # its value too, as IPython shows it
    html = shown.data["text/html"]
    assert html.startswith('<div class="wt-inline"><style>')
    assert '<span class="wt-trace-title">scale</span>' in html
    assert "Failed to trace builtin operator" in html  # the break's reason, on the page
    # The block opens with its findings: the break's cause, at the cell's line.
    assert html.index('data-part="findings"') < html.index('data-part="timeline"')
    assert "graph break: Failed to trace builtin operator" in html
    assert "<script" not in html and "src=" not in html


def test_the_result_is_kept_for_later_cells(executed) -> None:
    assert _stdout(executed, 3) == "1 2 print('half way') True\n"


def test_a_bad_flag_is_one_line_and_runs_nothing(executed) -> None:
    assert _stdout(executed, 4).startswith("%%trace: invalid --cache 'hot'; choose from cold, warm; usage: %%trace ")
    assert _outputs(executed, 4, "execute_result") == [] and _outputs(executed, 4, "error") == []


def test_a_failing_cell_shows_its_error_and_the_trace_says_so(executed) -> None:
    (error,) = _outputs(executed, 5, "error")
    assert error.ename == "RuntimeError"
    assert _outputs(executed, 5, "execute_result") == []  # --quiet: no page
    assert _stdout(executed, 6) == "error RuntimeError: cell failed\n"


def test_a_cell_s_line_is_said_as_cell_and_line(executed) -> None:
    """issue 55: a break in a notebook was placed at ipykernel's temporary file (``2712937181.py:4``); the notebook's
    own words are its execution count and the line in the cell (the def is cell 2's, the print its line 4)."""
    assert _stdout(executed, 7) == "cell 2, line 4 `print('half way')`\ncell 2, line 4\n"

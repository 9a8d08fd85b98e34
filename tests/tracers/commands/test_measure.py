"""`python -m tracers measure`: bad input in one line (exit 2), a real run with aot_eager, a crashing example."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest
import torch

from tracers.__main__ import main
from tracers.measure.measurement import load

from tests.conftest import run_python

pytestmark = pytest.mark.torch

TINY = '''\
import torch


def build(batch_size):
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.GELU(), torch.nn.Linear(16, 8))
    model.requires_grad_(False)
    return model, (torch.randn(batch_size, 8),)


if __name__ == "__main__":
    raise SystemExit("measured examples are imported, not run")
'''

CRASHING = '''\
import torch


def build(batch_size):
    if batch_size > 2:
        raise ValueError(f"no model for batch size {batch_size} <&>")
    return torch.nn.Identity(), (torch.ones(batch_size),)
'''


@pytest.fixture
def tiny(tmp_path):
    path = tmp_path / "tiny.py"
    path.write_text(TINY)
    return path


@pytest.mark.parametrize(("arguments", "message"), [
    (["missing.py"], "missing.py: cannot read it"),
    (["notes.txt"], "notes.txt: not a Python file"),
    (["--batch-sizes", "1,x", "{tiny}"], "--batch-sizes: 'x' is not a positive whole number"),
    (["--batch-sizes", "0", "{tiny}"], "--batch-sizes: '0' is not a positive whole number"),
    (["--modes", "fastest", "{tiny}"], "--modes: unknown mode 'fastest'"),
    (["--modes", "reduce-overhead", "{tiny}"], "--modes: reduce-overhead records CUDA graphs and needs --device cuda"),
    (["--backend", "aot_eager", "--modes", "max-autotune-no-cudagraphs", "{tiny}"],
     "max-autotune-no-cudagraphs is a mode of the inductor backend, not of --backend aot_eager"),
    (["--backend", "no_such_backend", "{tiny}"], "--backend: unknown backend 'no_such_backend'"),
    (["--repeats", "0", "{tiny}"], "--repeats: 0 is too few"),
    (["--warmup", "-1", "{tiny}"], "--warmup: -1 is negative"),
    (["--threads", "-2", "{tiny}"], "--threads: -2 is negative"),
    (["--out", "{tiny}/under-a-file", "{tiny}"], "under-a-file/cpu/"),
])
def test_bad_input_is_one_line_and_exit_2(tiny, capsys, arguments, message):
    argv = ["measure", *(argument.format(tiny=tiny) for argument in arguments)]
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert captured.err.startswith("measure: ") and message in captured.err
    assert captured.err.count("\n") == 1 and not captured.out


def test_an_example_without_build_is_refused(tmp_path, capsys):
    script = tmp_path / "plain.py"
    script.write_text("def main():\n    pass\n")
    assert main(["measure", str(script)]) == 2
    assert "no top-level build(batch_size) function" in capsys.readouterr().err
    script.write_text("def build(:\n")
    assert main(["measure", str(script)]) == 2
    assert "plain.py:1: syntax error" in capsys.readouterr().err


@pytest.mark.skipif(torch.cuda.is_available(), reason="a GPU is there")
def test_cuda_without_a_gpu_is_refused(tiny, capsys):
    assert main(["measure", "--device", "cuda", str(tiny)]) == 2
    assert "--device cuda: no CUDA GPU is available" in capsys.readouterr().err


def test_a_real_run_writes_the_numbers_and_the_charts(tiny, tmp_path):
    out = tmp_path / "out"
    result = run_python(["-m", "tracers", "measure", "--backend", "aot_eager", "--batch-sizes", "4,2",
                         "--repeats", "3", "--warmup", "1", "--no-warm", "--out", str(out), str(tiny)])
    assert result.returncode == 0, result.stderr
    folder = out / "cpu" / torch.__version__.split("+")[0]
    measurement = load(folder / "tiny.json")
    assert measurement.status == "complete" and measurement.example == "tiny"
    assert measurement.settings.batch_sizes == (2, 4) and measurement.settings.modes == ("eager", "default")
    assert measurement.machine["torch_version"] == torch.__version__
    assert measurement.machine["torch_git_sha"] == torch.version.git_version
    assert [(r.mode, r.batch_size, r.cache) for r in measurement.runs] == [
        ("eager", 2, "cold"), ("default", 2, "cold"), ("eager", 4, "cold"), ("default", 4, "cold")]
    for run in measurement.runs:
        assert run.ok and run.first_call_s > 0 and len(run.warmup_s) == 1 and not run.recompiled
        assert len(run.steady.samples_s) == 3 and run.steady.min_s <= run.steady.median_s
        # Compiled runs time eager beside them, block for block; eager's own run has no pair.
        assert (run.eager_steady is not None) is (run.mode != "eager")
        assert run.peak_memory_bytes > run.baseline_memory_bytes > 0 and run.memory_kind == "peak RSS"
        assert run.graphs == (0 if run.mode == "eager" else 1)  # compiled once, never again while timed
    for result_row in measurement.results:
        assert result_row.speedup > 0 and result_row.steady_s > 0
        assert (result_row.eager_paired_s is not None) is (result_row.mode != "eager")
    assert {plot.kind for plot in measurement.plots} == {"steady", "speedup", "first-call", "break-even", "memory"}
    for plot in measurement.plots:
        ET.parse(folder / plot.file)
    assert "[4/4] default · batch 4 · cold … ok: first call" in result.stderr
    assert result.stdout.splitlines()[0].startswith("batch  mode")


def test_a_crashing_example_still_leaves_its_partial_results(tmp_path):
    script = tmp_path / "crash.py"
    script.write_text(CRASHING)
    out = tmp_path / "out"
    result = run_python(["-m", "tracers", "measure", "--backend", "aot_eager", "--batch-sizes", "3", "--repeats",
                         "2", "--no-warm", "--out", str(out), str(script)])
    assert result.returncode == 1
    assert "measure: eager at batch size 3 (cold) failed in build: ValueError: no model for batch size 3 <&>" \
        in result.stderr
    assert "Traceback" not in result.stderr
    folder = out / "cpu" / torch.__version__.split("+")[0]
    measurement = load(folder / "crash.json")
    assert measurement.status == "partial"
    assert [run.phase for run in measurement.runs] == ["build", "build"]
    assert all(run.import_s is not None and run.first_call_s is None for run in measurement.runs)
    assert len(measurement.plots) == 5 and all((folder / plot.file).is_file() for plot in measurement.plots)


def test_an_example_that_cannot_be_imported_stops_after_one_run(tmp_path):
    script = tmp_path / "broken.py"
    script.write_text("import no_such_module_here\n\n\ndef build(batch_size):\n    pass\n")
    out = tmp_path / "out"
    result = run_python(["-m", "tracers", "measure", "--batch-sizes", "1,2", "--no-warm", "--out", str(out),
                         str(script)])
    assert result.returncode == 1
    assert "cannot be imported; the remaining runs would fail the same way" in result.stderr
    measurement = load(next(out.glob("cpu/*/broken.json")))
    (run,) = measurement.runs
    assert run.phase == "import" and run.error == "ModuleNotFoundError: No module named 'no_such_module_here'"

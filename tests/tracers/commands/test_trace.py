"""The trace command: bad input gets one clear line and the right exit code; nothing the script does is changed."""

from __future__ import annotations

import json
import signal

import pytest

from tracers.tracefile.chrome import load

from tests.conftest import EXAMPLES, ROOT, SCRIPTS, run_python, run_trace

pytestmark = pytest.mark.torch


def _one_line(stderr: str) -> str:
    lines = [line for line in stderr.splitlines() if line.strip()]
    assert len(lines) == 1, stderr
    assert "Traceback" not in stderr
    return lines[0]


def test_missing_script(tmp_path):
    run = run_trace(tmp_path / "nope.py", tmp_path / "out")
    assert run.returncode == 2
    assert _one_line(run.stderr) == f"trace: {tmp_path / 'nope.py'}: no such file"
    assert run.trace_path is None


def test_directory_instead_of_script(tmp_path):
    run = run_trace(tmp_path, tmp_path / "out")
    assert run.returncode == 2
    assert "is a directory" in _one_line(run.stderr)


def test_syntax_error(tmp_path):
    run = run_trace(SCRIPTS / "syntax_error.py", tmp_path)
    plain = run_python([str(SCRIPTS / "syntax_error.py")])
    assert run.returncode == plain.returncode == 1
    assert _one_line(run.stderr).startswith(f"trace: {SCRIPTS / 'syntax_error.py'}:1: SyntaxError")


def test_unwritable_out_dir(tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    run = run_trace(SCRIPTS / "exits.py", blocker / "traces", script_args=("0",))
    assert run.returncode == 2
    assert _one_line(run.stderr).startswith(f"trace: --out {blocker / 'traces'}: cannot write there")


def test_cuda_without_a_gpu(tmp_path):
    import torch

    if torch.cuda.is_available():
        pytest.skip("this machine has a GPU")
    run = run_trace(EXAMPLES / "mlp.py", tmp_path, "--device", "cuda")
    assert run.returncode == 2
    assert _one_line(run.stderr).startswith("trace: --device cuda: no CUDA GPU is available")


@pytest.mark.parametrize("code", [0, 3])
def test_script_runs_as_main_with_its_argv_and_keeps_its_exit_code(tmp_path, code):
    run = run_trace(SCRIPTS / "exits.py", tmp_path, script_args=(str(code), "--flag"))
    plain = run_python([str(SCRIPTS / "exits.py"), str(code), "--flag"])
    assert run.returncode == plain.returncode == code
    assert run.stdout == plain.stdout == f"argv: ['{code}', '--flag']\nname: __main__\n"
    info = run.trace().info
    assert (info.status, info.exit_code) == (("ok", 0) if code == 0 else ("exit", code))


def test_script_that_raises_shows_its_own_traceback_and_leaves_a_partial_trace(tmp_path):
    run = run_trace(SCRIPTS / "raises.py", tmp_path)
    plain = run_python([str(SCRIPTS / "raises.py")])
    assert run.returncode == plain.returncode == 1
    traceback_part = run.stderr.split("torch.compile trace")[0]
    assert traceback_part.startswith("Traceback (most recent call last):")
    assert 'raises.py", line 14, in <module>' in traceback_part
    assert "ValueError: the script's own failure" in traceback_part
    assert "tracers" not in traceback_part and "runpy" not in traceback_part
    trace = run.trace()
    assert trace.info.status == "error"
    assert trace.info.error == "ValueError: the script's own failure"
    assert any(span.target.endswith(":_compile") for span in trace.spans), "work before the crash is kept"


@pytest.mark.parametrize("signal_name,status", [("SIGINT", "interrupted"), ("SIGTERM", "terminated")])
def test_signal_mid_compile_leaves_a_valid_partial_trace_and_the_same_exit_status(tmp_path, signal_name, status):
    run = run_trace(SCRIPTS / "interrupted.py", tmp_path, script_args=(signal_name,))
    plain = run_python([str(SCRIPTS / "interrupted.py"), signal_name])
    signum = getattr(signal, signal_name)
    assert run.returncode == plain.returncode == -signum
    assert run.stdout == plain.stdout == "before compile\n"
    assert "Traceback" not in run.stderr
    assert f"the partial trace was written to {run.trace_path}" in run.stderr
    trace = run.trace()
    assert trace.info.status == status
    # The signal arrived inside the backend: the steps around it ended with the exception.
    backend_calls = [s for s in trace.spans if s.target.endswith("OutputGraph.call_user_compiler")]
    assert backend_calls and backend_calls[0].error in ("KeyboardInterrupt", "Terminated")


def test_tracer_does_not_change_what_the_program_prints(graph_breaks):
    plain = run_python([str(EXAMPLES / "graph_breaks.py"), "aot_eager"])
    assert graph_breaks.returncode == plain.returncode == 0
    assert graph_breaks.stdout == plain.stdout
    assert graph_breaks.stdout.splitlines()[-1].count(" ") == 1  # the two results


def test_summary_reports_tree_breaks_recompiles_and_where_the_file_went(graph_breaks):
    stderr = graph_breaks.stderr
    summary = stderr[stderr.index("torch.compile trace"):]
    assert "\033[" not in summary  # no colour off a terminal
    assert "Stage tree" in summary and "ConvertFrameAssert.__call__" in summary
    assert "Graph breaks 4" in summary and "Recompiles 3" in summary
    assert "graph_breaks.py:10: Failed to trace builtin operator" in summary
    assert "the size of `x` changed (dimension 0: 16 before, now 32)" in summary  # torch's guard failure, in words
    assert f"Written {graph_breaks.trace_path}" in summary
    assert f"Written {graph_breaks.trace_path.with_suffix('.html')}" in summary


def test_no_code_and_quiet(tmp_path):
    run = run_trace(EXAMPLES / "graph_breaks.py", tmp_path, "--quiet", "--no-code", script_args=("aot_eager",))
    assert run.returncode == 0
    assert run.stderr.strip().splitlines()[-2:] == [str(run.trace_path), str(run.trace_path.with_suffix(".html"))]
    assert "Stage tree" not in run.stderr


def test_help_documents_every_option():
    result = run_python(["-m", "tracers", "trace", "--help"])
    assert result.returncode == 0
    for option in ("--device", "--cache", "--out", "--no-code", "--quiet", "SCRIPT", "ARGS"):
        assert option in result.stdout


def test_record_traces_each_example_into_the_versioned_folder(tmp_path):
    script = tmp_path / "tiny.py"
    script.write_text("import torch\nprint(torch.compile(lambda x: x + 1, backend='eager')(torch.ones(2)))\n")
    code = (
        "import sys; from pathlib import Path; from tracers.commands.record import record; "
        f"sys.exit(record([{str(script)!r}], 'cpu', Path({str(tmp_path / 'traces')!r})))"
    )
    result = run_python(["-c", code])
    assert result.returncode == 0, result.stderr
    assert "[1/1]" in result.stderr and " ok (" in result.stderr
    written = list((tmp_path / "traces" / "cpu").glob("*/tiny-cpu-cold.json"))
    assert len(written) == 1
    assert load(written[0]).info.cache_mode == "cold"
    assert json.loads(written[0].read_text())["traceEvents"]


def test_record_warm_primes_the_caches_with_one_untraced_run_first(tmp_path):
    runs = tmp_path / "runs.txt"
    script = tmp_path / "tiny.py"
    script.write_text(
        "import os, torch\n"
        f"open({str(runs)!r}, 'a').write(os.environ['TORCHINDUCTOR_CACHE_DIR'] + '\\n')\n"
        "print(torch.compile(lambda x: x + 1, backend='eager')(torch.ones(2)))\n"
    )
    code = (
        "import sys; from pathlib import Path; from tracers.commands.record import record; "
        f"sys.exit(record([{str(script)!r}], 'cpu', Path({str(tmp_path / 'traces')!r}), cache='warm'))"
    )
    result = run_python(["-c", code])
    assert result.returncode == 0, result.stderr
    priming, traced = runs.read_text().splitlines()
    assert priming == traced, "both runs share one cache dir"
    written = list((tmp_path / "traces" / "cpu").glob("*/tiny-cpu-warm.json"))
    assert len(written) == 1 and load(written[0]).info.cache_mode == "warm"


def test_record_refuses_an_empty_example_dir(tmp_path):
    result = run_python(["-m", "tracers", "record"], cwd=tmp_path)
    assert result.returncode == 2
    assert _one_line(result.stderr) == "record: no examples found in docs/examples/"



@pytest.mark.parametrize("command", [["trace", "--out", "OUT", str(SCRIPTS / "exits.py"), "0"], ["record"]])
def test_a_python_without_torch_gets_one_line(tmp_path, command):
    argv = [str(tmp_path) if part == "OUT" else part for part in command]
    code = f"import sys; sys.modules['torch'] = None; from tracers.__main__ import main; sys.exit(main({argv!r}))"
    result = run_python(["-c", code], cwd=ROOT)
    assert result.returncode == 2
    line = _one_line(result.stderr)
    assert "torch is not importable in this Python" in line


def test_no_page_writes_only_the_trace(tmp_path):
    run = run_trace(SCRIPTS / "exits.py", tmp_path, "--no-page", script_args=("0",))
    assert run.returncode == 0
    assert [p.name for p in tmp_path.iterdir()] == ["exits-cpu-cold.json"]


def test_a_trace_that_cannot_be_written_is_one_line_and_keeps_the_scripts_status(tmp_path):
    code = (
        "import errno, sys, tracers.commands.trace_run as tc, tracers.report.save as save\n"
        "from tracers.capture.options import TraceOptions\n"
        "def full(trace, path, **options): raise OSError(errno.ENOSPC, 'No space left on device')\n"
        "save.write_atomic = full\n"
        f"sys.exit(tc.run_trace(TraceOptions(script={str(SCRIPTS / 'exits.py')!r}, args=['4'], out={str(tmp_path)!r})))\n"
    )
    result = run_python(["-c", code])
    assert result.returncode == 4
    assert _one_line(result.stderr) == f"trace: cannot write {tmp_path / 'exits-cpu-cold.json'}: No space left on device"

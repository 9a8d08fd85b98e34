"""Traced scripts that end oddly: the trace and the exit status agree with the script, and the tracer's own work
survives what the script did (issue 52, item 7)."""

from __future__ import annotations

import json
import sys
import textwrap
from pathlib import Path

import pytest

from tests.conftest import ROOT, run_python
from tracers.tracefile.chrome import load

pytestmark = pytest.mark.torch

COMPILE = """\
import torch

@torch.compile(backend="aot_eager")
def f(x):
    return x + 1

f(torch.ones(2))
"""


def _script(tmp_path: Path, body: str, name: str = "odd.py") -> Path:
    script = tmp_path / "scripts" / name
    script.parent.mkdir(parents=True, exist_ok=True)
    script.write_text(COMPILE + textwrap.dedent(body), encoding="utf-8")
    return script


def _trace(script: Path, out: Path, *args: str, cwd: Path = ROOT):  # noqa: ANN202 - subprocess.CompletedProcess
    return run_python(["-m", "tracers", "trace", "--out", str(out), str(script), *args], cwd=cwd)


def _written(out: Path, stem: str = "odd") -> Path:
    return out / f"{stem}-cpu-cold.json"


def test_os_exit_in_an_atexit_handler_is_the_traces_status(tmp_path: Path) -> None:
    script = _script(tmp_path, "import atexit, os\natexit.register(lambda: os._exit(7))\n")
    run, plain = _trace(script, tmp_path / "out"), run_python([str(script)])
    assert run.returncode == plain.returncode == 7, run.stderr[-2000:]
    info = load(_written(tmp_path / "out")).info
    assert (info.status, info.exit_code) == ("exit", 7)
    assert "an atexit handler ended the process with os._exit(7)" in run.stderr
    assert "exit 7" in (tmp_path / "out" / "odd-cpu-cold.html").read_text(encoding="utf-8")  # the page says it too


@pytest.mark.parametrize("closing", ["sys.stderr.close()", "os.close(2)"])
def test_a_script_that_closes_its_stderr_keeps_its_exit_status_and_its_trace(tmp_path: Path, closing: str) -> None:
    script = _script(tmp_path, f"import os, sys\n{closing}\n")
    run, plain = _trace(script, tmp_path / "out"), run_python([str(script)])
    assert run.returncode == plain.returncode == 0, run.stderr[-2000:]
    info = load(_written(tmp_path / "out")).info
    assert (info.status, info.exit_code) == ("ok", 0)


def test_a_lowered_recursion_limit_leaves_the_tracer_its_own(tmp_path: Path) -> None:
    script = _script(tmp_path, "import sys\nsys.setrecursionlimit(60)\nimport atexit\n"
                               "atexit.register(lambda: print('limit', sys.getrecursionlimit()))\n")
    run = _trace(script, tmp_path / "out")
    assert run.returncode == 0 and "RecursionError" not in run.stderr, run.stderr[-2000:]
    assert run.stdout.strip() == "limit 60"  # the script's own code still sees the limit it set
    assert (tmp_path / "out" / "odd-cpu-cold.html").exists()


def test_a_forked_child_ending_normally_writes_no_trace_and_renames_nothing(tmp_path: Path) -> None:
    script = _script(tmp_path, """\
        import os
        pid = os.fork()
        if pid == 0:
            print("child done", flush=True)
            raise SystemExit(0)
        os.waitpid(pid, 0)
        print("parent done")
        """)
    run = _trace(script, tmp_path / "out")
    assert run.returncode == 0, run.stderr[-2000:]
    assert run.stdout.splitlines() == ["child done", "parent done"]
    assert sorted(path.name for path in (tmp_path / "out").iterdir() if not path.name.startswith(".")) == [
        "odd-cpu-cold.html", "odd-cpu-cold.json"]
    assert "belongs to another run" not in run.stderr
    assert load(_written(tmp_path / "out")).info.status == "ok"


def test_an_out_folder_replaced_by_a_file_says_where_the_trace_went(tmp_path: Path) -> None:
    out = tmp_path / "out"
    script = _script(tmp_path, """\
        import shutil, sys
        shutil.rmtree(sys.argv[1])
        open(sys.argv[1], "w").write("a file now")
        """)
    run = _trace(script, out, str(out))
    assert run.returncode == 0 and "Traceback" not in run.stderr, run.stderr[-2000:]
    [line] = [line for line in run.stderr.splitlines() if "is no longer a folder" in line]
    assert line.startswith(f"trace: --out {out} is no longer a folder") and "the trace went to " in line
    elsewhere = Path(line.split("the trace went to ", 1)[1].removesuffix(" instead"))
    assert load(_written(elsewhere)).info.status == "ok" and out.read_text() == "a file now"


def test_a_script_that_execs_another_program_leaves_its_trace_and_that_programs_status(tmp_path: Path) -> None:
    script = _script(tmp_path, f"""\
        import os
        os.execv({sys.executable!r}, [{sys.executable!r}, "-c", "print('the new program'); raise SystemExit(3)"])
        """)
    run = _trace(script, tmp_path / "out")
    assert run.returncode == 3, run.stderr[-2000:]  # the exec'd program's own
    assert run.stdout.strip() == "the new program"
    info = load(_written(tmp_path / "out")).info
    assert info.status == "exec" and info.exit_code is None
    assert "replaced itself with another program (os.execv(" in info.error


def test_a_json_py_beside_the_script_is_said_never_pip_install_json(tmp_path: Path) -> None:
    script = _script(tmp_path, "import json\nprint('mine' if hasattr(json, 'helper') else 'stdlib')\n")
    (script.parent / "json.py").write_text("def helper():\n    return 1\n", encoding="utf-8")
    # run from the script's folder with python -m, which puts that folder first on the tracer's own path too
    run = _trace(script, tmp_path / "out", cwd=script.parent)
    assert run.returncode == 0 and "Traceback" not in run.stderr, run.stderr[-2000:]
    assert "pip install json" not in run.stderr
    # the tracer imported Python's json before the script ran: said, as plain python would give the script its own
    [note] = [line for line in run.stderr.splitlines() if line.startswith("trace: note: ")]
    assert "(json)" in note and "plain python would import its own files" in note
    assert any("(json)" in warning for warning in load(_written(tmp_path / "out")).info.warnings)


def test_report_from_a_folder_holding_a_json_py_reads_with_pythons_json(tmp_path: Path) -> None:
    (tmp_path / "json.py").write_text("raise ImportError('not this one')\n", encoding="utf-8")
    trace = ROOT / "docs" / "_traces" / "cpu" / "2.13.0" / "frame_cache-cpu-cold.json"
    result = run_python(["-m", "tracers", "report", str(trace), "--out", str(tmp_path / "page")], cwd=tmp_path)
    assert result.returncode == 0 and "Traceback" not in result.stderr, result.stderr[-2000:]
    assert json.loads(json.dumps(result.stdout.strip())) == str(tmp_path / "page" / "frame_cache-cpu-cold.html")


def test_the_scripts_globals_live_until_the_process_exits_as_without_the_tracer(tmp_path: Path) -> None:
    """Python frees __main__'s objects as it shuts down, after the trace is written; the tracer holds them as long
    (a DDP model freed as the run returns would join gloo's threads with the GIL held). The ``__del__`` is a function
    of other globals, so nothing but the script's globals holds the object."""
    script = tmp_path / "held.py"
    script.write_text(textwrap.dedent("""\
        import sys
        free = eval("lambda self: print('freed', __import__('os').path.exists(TRACE), flush=True)", {"TRACE": sys.argv[1]})
        kept = type("Held", (), {"__del__": free})()
        """), encoding="utf-8")
    out = tmp_path / "out"
    result = run_python(["-m", "tracers", "trace", "--out", str(out), "--no-page", "--quiet", str(script),
                         str(out / "held-cpu-cold.json")])
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == ["freed True"], result.stdout


@pytest.mark.pure
def test_a_fault_in_the_tracers_own_analysis_keeps_the_trace_and_says_one_line():
    """A KeyError in the findings (blind round 10's session: two constants of one name) must not lose the run: the
    trace is saved without page or findings, and one line says why."""
    from tracers.commands.trace_run import _analysed

    report, fault = _analysed(object(), None, True)  # no trace at all: the analysis fails on its first look
    assert report is None and fault.startswith("tracer fault: the findings could not be made (AttributeError: ")
    assert "the trace is kept without them (please report it)" in fault and "\n" not in fault
    assert _analysed(object(), None, False) == (None, None)  # nothing asked for: nothing analysed

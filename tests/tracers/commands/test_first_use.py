"""The first commands a newcomer types: help that reads right in a terminal, under the name typed, and a note
when an argument after the script is one of the tracer's own options."""

from __future__ import annotations

import sys

import pytest

from tracers.__main__ import main as trace_main
from walkthrough.__main__ import main as walkthrough_main

from tests.conftest import run_python

pytestmark = pytest.mark.torch


@pytest.mark.parametrize("main, script, first", [(trace_main, "torch-compile-trace", "trace my_script.py"),
                                                 (walkthrough_main, "torch-compile-walkthrough", "open")])
def test_help_speaks_plain_text_under_the_console_script_s_name(main, script, first, monkeypatch, capsys):
    monkeypatch.setattr(sys, "argv", [f"/venv/bin/{script}", "--help"])
    with pytest.raises(SystemExit) as done:
        main()
    shown = capsys.readouterr().out
    assert done.value.code == 0
    assert shown.startswith(f"usage: {script} ") and f"  {script} {first}" in shown  # how to start, runnable as shown
    assert "``" not in shown and "python -m" not in shown


def test_trace_help_says_where_its_options_go(monkeypatch, capsys):
    monkeypatch.setattr(sys, "argv", ["/venv/bin/torch-compile-trace"])
    with pytest.raises(SystemExit):
        trace_main(["trace", "--help"])
    shown = " ".join(capsys.readouterr().out.split())
    assert "The tracer's options go before SCRIPT (or -m MODULE): everything after it is the script's own." in shown


def test_options_after_the_script_go_to_it_with_a_one_line_note(tmp_path):
    script = tmp_path / "crashes.py"
    script.write_text("import sys\nprint(sys.argv[1:])\n")
    run = run_python(["-m", "tracers", "trace", "--no-page", "--out", str(tmp_path / "out"), str(script),
                      "--device", "cuda", "--cache=warm", "--epochs", "1"])
    assert run.returncode == 0, run.stderr
    assert "['--device', 'cuda', '--cache=warm', '--epochs', '1']" in run.stdout  # the script got them, as designed
    notes = [line for line in run.stderr.splitlines() if line.startswith("trace: note:")]
    assert notes == [f"trace: note: --device cuda --cache=warm came after {script}, so the script gets them; for the "
                     f"tracer, put them before the script: python -m tracers trace --device cuda --cache=warm "
                     f"{script} ..."]
    assert (tmp_path / "out" / "crashes-cpu-cold.json").is_file()  # traced with the defaults: cpu, cold

    plain = run_python(["-m", "tracers", "trace", "--no-page", "--quiet", "--out", str(tmp_path / "out"), str(script),
                        "--epochs", "1"])
    assert plain.returncode == 0 and "note" not in plain.stderr


@pytest.mark.parametrize("words, line", [
    (["trac", "x.py"], "python -m tracers: invalid COMMAND 'trac' (did you mean trace?); choose from trace, record, "),
    (["trace", "--cache", "hot", "x.py"], "python -m tracers trace: invalid --cache 'hot'; choose from cold, warm"),
    (["trace", "--nproc"], "python -m tracers trace: argument --nproc: expected one argument (--help lists the "),
])
def test_a_mistyped_command_or_value_is_one_line_not_the_usage_block(words, line):
    """issue 55: argparse's usage block for a bad choice or a missing value is one line, as a mistyped option is."""
    result = run_python(["-m", "tracers", *words])
    assert result.returncode == 2 and result.stdout == ""
    assert len(result.stderr.splitlines()) == 1 and result.stderr.startswith(line), result.stderr


def test_the_note_for_options_after_a_module_keeps_its_dash_m():
    """issue 55: the note for tracer options after ``-m MODULE`` said the module's name alone, as if it were a script,
    and its command to type instead dropped the ``-m``."""
    from tracers.commands.trace import _trace_parser, misplaced_note, options_after_script, split_module

    ours, module, module_args = split_module(["trace", "--quiet", "-m", "pkg.train", "--device", "cuda", "--lr", "1"])
    assert (ours, module, module_args) == (["trace", "--quiet"], "pkg.train", ["--device", "cuda", "--lr", "1"])
    misplaced = options_after_script(module_args, _trace_parser()[1])
    assert misplaced == ["--device cuda"]
    assert misplaced_note(misplaced, f"-m {module}") == (
        "note: --device cuda came after -m pkg.train, so the module gets it; for the tracer, put it before -m: "
        "python -m tracers trace --device cuda -m pkg.train ...")
    assert misplaced_note(["--cache=warm"], "crashes.py").startswith(
        "note: --cache=warm came after crashes.py, so the script gets it; for the tracer, put it before the script: ")

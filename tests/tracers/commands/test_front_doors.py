"""Every front door gives the same answer (issue 42): report's summary for a trace as for a log, inputs told
apart by what they are, a suggestion for a mistyped option, and a page asked to open with no browser here."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tracers.commands import browser, main
from tracers.commands.inputs import not_a_trace
from tracers.commands.parsing import unrecognized_line

from tests.conftest import ROOT, run_python

pytestmark = pytest.mark.pure

TRACE = ROOT / "docs" / "_traces" / "cpu" / "2.13.0" / "mlp-cpu-cold.json"
LOG = ROOT / "tests" / "data" / "tlparse" / "inputs" / "simple.log.gz"


def test_report_of_a_trace_file_prints_the_summary_a_log_gets(tmp_path):
    from_trace = run_python(["-m", "tracers", "report", str(TRACE), "--out", str(tmp_path / "t")])
    from_log = run_python(["-m", "tracers", "report", str(LOG), "--out", str(tmp_path / "l")])
    assert from_trace.returncode == 0 == from_log.returncode, from_trace.stderr + from_log.stderr
    page = tmp_path / "t" / "mlp-cpu-cold.html"
    assert from_trace.stdout.strip() == str(page)  # stdout: the page's path alone, for scripts
    for result in (from_trace, from_log):  # stderr: the one summary, findings first, its pages named last
        assert "Findings" in result.stderr and "Graphs " in result.stderr and "Written " in result.stderr
    assert f"Written {page}" in from_trace.stderr


def test_top_level_help_says_report_reads_torch_trace_logs():
    result = run_python(["-m", "tracers", "--help"])
    line = next(line for line in result.stdout.splitlines() if line.strip().startswith("report"))
    assert "TORCH_TRACE" in line


@pytest.mark.parametrize("name,content,said", [
    ("app.log", b"2024-01-01 INFO starting\nserver ready\n",
     "not a TORCH_TRACE log (no dedicated_log_torch_trace records)"),
    ("blob.bin", bytes(range(256)) * 8, "not a trace file (binary data, not JSON)"),
    ("blob.json", b"\x89PNG\r\n\x1a\n" + bytes(200), "not a trace file (binary data, not JSON)"),
    ("notes.md", b"# notes\nnothing here\n", "not a trace file (text that is not JSON)"),
])
def test_an_input_that_is_not_json_is_named_for_what_it_is(tmp_path, name, content, said):
    path = tmp_path / name
    path.write_bytes(content)
    result = run_python(["-m", "tracers", "report", str(path)])
    assert result.returncode == 2
    assert said in result.stderr and "expected a trace this tool wrote" in result.stderr
    assert "not valid JSON" not in result.stderr and len(result.stderr.strip().splitlines()) == 1
    diffed = run_python(["-m", "tracers", "diff", str(path), str(TRACE)])
    assert diffed.returncode == 2 and said in diffed.stderr and "not valid JSON" not in diffed.stderr


def test_json_cut_short_is_still_said_to_be_truncated(tmp_path):
    cut = tmp_path / "cut.json"
    cut.write_bytes(TRACE.read_bytes()[:500])
    assert not_a_trace(cut) is None  # it is JSON's business to say: "not valid JSON (truncated or corrupt?)"


@pytest.mark.parametrize("argv,option,meant", [
    (["trace", "--vs-eagr", "x.py"], "--vs-eagr", "--vs-eager"),
    (["report", "x.json", "--opne"], "--opne", "--open"),
    (["merge", "d", "--quite"], "--quite", "--quiet"),
    (["diff", "a.json", "b.json", "--no-such-thing"], "--no-such-thing", None),
    (["record", "--devcie", "cpu"], "--devcie", "--device"),
    (["measure", "--batch-size", "2", "--devcie", "cpu", "x.py"], "--devcie", "--device"),
])
def test_a_mistyped_option_is_one_line_with_a_suggestion_and_exit_2(capsys, argv, option, meant):
    with pytest.raises(SystemExit) as exited:
        main(argv)
    assert exited.value.code == 2
    err = capsys.readouterr().err.strip()
    expected = f"unrecognized option {option}" + (f" (did you mean {meant}?)" if meant else "")
    assert err.splitlines() == [f"python -m tracers: {expected}"] or err.endswith(expected), err


def test_the_suggestion_comes_from_the_parser_s_own_options():
    assert unrecognized_line(["--vs-eagr"], ["--vs-eager", "--open"]) == \
        "unrecognized option --vs-eagr (did you mean --vs-eager?)"
    assert unrecognized_line(["--out=x"], ["--out", "--open"]) == "unrecognized option --out=x".split("=")[0] + \
        " (did you mean --out?)"
    assert unrecognized_line(["stray"], ["--open"]) is None  # not an option: argparse's own message stands


def test_the_cell_magic_and_the_toolbox_say_a_mistake_in_one_line_as_the_commands_do(capsys):
    """issue 55: ``%%trace`` and ``python -m walkthrough.toolbox`` gave argparse's own words (the toolbox its whole
    usage block) for a bad value, command or option; they name the closest one, as the commands do."""
    from tracers.api.magic import _parser
    from tracers.vocabulary.usage import UsageError
    from walkthrough.toolbox.__main__ import main as toolbox_main

    for words, line in ((["--cache", "hot"], "invalid --cache 'hot'; choose from cold, warm; usage: %%trace "),
                        (["--qiuet"], "unrecognized option --qiuet (did you mean --quiet?); usage: %%trace ")):
        with pytest.raises(UsageError) as said:
            _parser().parse_args(words)
        assert str(said.value).startswith(line), str(said.value)
    for words, line in ((["recrod"], "invalid COMMAND 'recrod' (did you mean record?); choose from record, tools"),
                        (["record", "--tols", "x"], "unrecognized option --tols (did you mean --tools?)")):
        with pytest.raises(SystemExit) as exited:
            toolbox_main(words)
        err = capsys.readouterr().err
        assert exited.value.code == 2 and err.splitlines() == [f"python -m walkthrough.toolbox: {line}"], err


def test_report_open_with_no_browser_prints_the_path_and_a_line_scripts_match(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(browser.webbrowser, "open", lambda url: False)
    status = main(["report", str(TRACE), "--out", str(tmp_path), "--open"])
    out, err = capsys.readouterr()
    assert status == browser.NO_BROWSER != 0
    assert out.strip() == str(tmp_path / "mlp-cpu-cold.html")
    assert err.strip().splitlines()[-1].startswith("no browser: printed the path instead")
    monkeypatch.setattr(browser.webbrowser, "open", lambda url: True)
    assert main(["report", str(TRACE), "--out", str(tmp_path), "--open"]) == 0


FD2_WRITER = r"""
import os, sys
from tracers.commands.noise import ProfilerNoiseFiltered
with ProfilerNoiseFiltered():
    os.write(2, b"USDT:2026-11-28 02:38:04 23861:23861 SyncActivityProfilerHandler.cpp:52] profiler_start\n")
    print("script: progress 1/2", file=sys.stderr, flush=True)
    os.write(2, b"half a line, ")
    os.write(2, b"then its end\n")
    os.write(2, b"USDT: my own marker\n")
    os.write(2, b"USDT:2026-11-28 02:38:04 23861:23861 SyncActivityProfilerHandler.cpp:59] profiler_stop\n")
    print("script: done", file=sys.stderr, flush=True)
    print("to stdout", flush=True)
    os.write(2, b"no newline at the end")
print("after", file=sys.stderr)
"""


def test_profiler_lines_are_filtered_and_the_script_s_own_pass_unchanged():
    done = subprocess.run([sys.executable, "-c", FD2_WRITER], capture_output=True, cwd=ROOT, timeout=60,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 0, done.stderr
    assert done.stderr == (b"script: progress 1/2\nhalf a line, then its end\nUSDT: my own marker\n"
                           b"script: done\nno newline at the endafter\n")
    assert done.stdout == b"to stdout\n"


def test_profiler_lines_pass_when_not_profiling():
    code = FD2_WRITER.replace("ProfilerNoiseFiltered()", "ProfilerNoiseFiltered(enabled=False)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, cwd=ROOT, timeout=60,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.stderr.count(b"] profiler_st") == 2


def test_a_typed_word_holding_an_escape_sequence_is_shown_in_the_usage_line(capsys):
    for argv in (["report", "x.json", "--opne\x1b[2J"], ["report", "x.json", "stray\x1b]0;owned\x07"]):
        with pytest.raises(SystemExit) as exited:
            main(argv)
        err = capsys.readouterr().err
        assert exited.value.code == 2 and "\x1b" not in err and "\x07" not in err and "\\x1b" in err, err


def test_the_walkthrough_s_error_line_shows_a_typed_path_s_escape_sequence():
    result = run_python(["-m", "walkthrough", "verify", "--against", "/no/such\x1b[2J"])
    assert result.returncode == 2 and "\x1b" not in result.stderr and "/no/such\\x1b[2J" in result.stderr

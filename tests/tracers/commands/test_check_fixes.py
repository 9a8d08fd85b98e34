"""trace --check-fixes (issue 53): each fix the tracer can apply run in a fresh process of its own, and said beside
its fix: a decoding loop's dynamic=False, torch's nonzero hint that crashes at a later .tolist(), a logging setting
that silences the logger, a hook guard that makes a late hook run; the re-run's failures (crash, timeout, changed
output, Ctrl-C) said as such; report shows the checks made and runs nothing."""

from __future__ import annotations

import dataclasses

import pytest

from tracers.analysis.finding_type import Finding, Remedy
from tracers.analysis.fix_checks import Counts, FixCheck, output_change, verdict
from tracers.commands import trace_fix_checks
from tracers.tracefile.chrome import load

from tests.conftest import EXAMPLES, ROOT, run_python, side_by_side

PROGRAMS = ROOT / "tests" / "programs" / "fix_checks"
# One site for the trace and its report, whatever is built in the checkout meanwhile (build/html would be chosen).
_SITE = ("--site", "https://walkthrough.example/")


@pytest.fixture(scope="module")
def checked(tmp_path_factory) -> dict:
    """Each program traced once with --check-fixes (the script runs 1 + fixes times, aot_eager); the site's
    late_hook.py example through the Python API, tracers.check_fixes (the same command underneath)."""
    import tracers

    out = tmp_path_factory.mktemp("check-fixes")

    def check(name: str) -> tuple:
        result = run_python(["-m", "tracers", "trace", "--check-fixes", "--no-page", "--out", str(out), *_SITE,
                             str(PROGRAMS / f"{name}.py")])
        return result, load(out / f"{name}-cpu-cold.json"), out / f"{name}-cpu-cold.json"

    runs = side_by_side({name: lambda name=name: check(name) for name in ("decode_static", "select_logged")})
    runs["late_hook"] = (tracers.check_fixes(EXAMPLES / "late_hook.py", out=out), None, out / "late_hook-cpu-cold.json")
    return runs


def _checks(trace) -> dict[str, dict]:
    return {check["fix"]["name"] + ("" if not check["fix"].get("drop") else ":drop"): check
            for check in trace.info.fix_checks}


@pytest.mark.torch
def test_dynamic_false_is_checked_with_its_recompiles_before_and_after(checked):
    result, trace, _ = checked["decode_static"]
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("ids [[")  # the script's own output passes through, once
    dropped = _checks(trace)["dynamic:drop"]
    # works, or helps where the fixed run compiled markedly longer: a timing, which a loaded machine can move
    assert dropped["verdict"] in ("works", "helps") and dropped["gone"]
    assert dropped["before"]["recompiles"] == 4 and dropped["after"]["recompiles"] < 4
    assert dropped["before"]["eager_calls"] == 3 and dropped["after"]["eager_calls"] == 0
    assert "checking fix 1 of 2: `dynamic` left out of torch.compile at decode_static.py:21" in result.stderr
    assert f"check  `dynamic` left out of torch.compile at decode_static.py:21: {dropped['verdict']}: " in result.stderr


@pytest.mark.torch
def test_a_hint_that_crashes_is_said_as_worse_with_its_line_and_a_silenced_logger_as_changed_output(checked):
    result, trace, _ = checked["select_logged"]
    assert result.returncode == 0, result.stderr
    checks = _checks(trace)
    crash = checks["torch._dynamo.config.capture_dynamic_output_shape_ops"]
    assert crash["verdict"] == "worse" and crash["exit_code"] == 1 and "(at select_logged.py:16)" in crash["error"]
    logged = checks["logger.info"]
    assert logged["verdict"] == "changed the output" and logged["output"]["lost"] == 2
    assert logged["output"]["first"].startswith("INFO picked")
    # the log lines are the program's own: the run with compile off prints them too, so the change is no mending
    assert "once with compile off" in result.stderr and not logged["note"]


@pytest.mark.torch
def test_the_hook_guard_fix_works_through_the_python_api_and_its_output_change_is_what_it_means(checked, tmp_path):
    import tracers

    result = checked["late_hook"][0]
    (check,) = result.fix_checks.values()
    assert check.fix["name"] == "torch._dynamo.config.skip_nnmodule_hook_guards"
    assert check.verdict in ("works", "helps")  # helps where the fixed run compiled markedly longer: a timing
    assert check.output["first"].startswith("hook applied: False")  # now it is
    finding = next(finding for finding in result.findings if finding.kind == "hook-ignored")
    assert [pair[1] for pair in result.report.checks_for(finding)] == [check]
    with pytest.raises(tracers.api.CheckFixesFailed, match="no trace was written"):
        tracers.check_fixes(tmp_path / "missing.py", out=tmp_path)


@pytest.mark.torch
def test_report_of_a_checked_trace_shows_the_checks_and_runs_nothing(checked, tmp_path):
    result = run_python(["-m", "tracers", "report", str(checked["decode_static"][2]), "--out", str(tmp_path / "page"),
                         *_SITE])
    assert result.returncode == 0, result.stderr
    verdict = _checks(checked["decode_static"][1])["dynamic:drop"]["verdict"]  # works or helps: a timing
    assert f"check  `dynamic` left out of torch.compile at decode_static.py:21: {verdict}" in result.stderr
    assert not result.stdout.count("ids [[")  # report runs nothing
    assert _findings(result.stderr) == _findings(checked["decode_static"][0].stderr)  # trace and report: the same
    page = next((tmp_path / "page").glob("*.html")).read_text()
    assert "wt-check-good" in page and "left out of torch.compile" in page


def _findings(stderr: str) -> list[str]:
    """The summary's findings block, as printed."""
    lines = stderr.splitlines()
    start = next(index for index, line in enumerate(lines) if line.startswith("Findings"))
    end = next(index for index, line in enumerate(lines) if line.startswith("Stage tree"))
    return lines[start:end]


@pytest.mark.torch
def test_a_run_past_its_time_limit_is_stopped_and_said_to_have_timed_out(tmp_path):
    result = run_python(["-m", "tracers", "trace", "--check-fixes", "--fix-timeout", "15", "--no-page", "--out",
                         str(tmp_path), str(PROGRAMS / "slow_when_captured.py")])
    assert result.returncode == 0, result.stderr
    (check,) = load(tmp_path / "slow_when_captured-cpu-cold.json").info.fix_checks
    assert check["fix"]["name"] == "torch._dynamo.config.capture_scalar_outputs"
    assert check["verdict"] == "timed out" and "stopped after 15 s" in check["note"]


BEFORE = Counts(graphs=4, graph_breaks=0, recompiles=4, eager_calls=3, compile_s=1.0)


@pytest.mark.pure
def test_the_verdicts_put_a_crash_a_timeout_and_a_changed_output_first():
    same = output_change(["a 1"], ["a 1"])
    after = Counts(2, 0, 1, 0, 0.5)
    assert verdict(BEFORE, after, 0, 1, same, True, True) == "worse"
    assert verdict(BEFORE, None, 0, None, same, False, False) == "timed out"
    assert verdict(BEFORE, after, 0, 0, output_change(["a 1", "b"], ["a 1"]), True, True) == "changed the output"
    assert verdict(BEFORE, after, 0, 0, output_change(["a 1", "b"], ["a 1"]), True, True, changes_output=True) \
        == "works"
    assert verdict(BEFORE, after, 0, 0, same, False, True) == "helps"
    assert verdict(BEFORE, BEFORE, 0, 0, same, False, True) == "does nothing"
    assert verdict(BEFORE, BEFORE, 0, 0, same, False, False) == "not applied"


@pytest.mark.pure
def test_calls_back_in_compiled_code_help_though_more_versions_compile_for_them():
    same = output_change(["a 1"], ["a 1"])
    raised_limit = Counts(graphs=12, graph_breaks=0, recompiles=11, eager_calls=0, compile_s=2.0)
    assert verdict(BEFORE, raised_limit, 0, 0, same, False, True) == "helps"
    traded = Counts(graphs=2, graph_breaks=6, recompiles=1, eager_calls=3, compile_s=0.5)  # 3 recompiles for 6 breaks
    assert verdict(BEFORE, traded, 0, 0, same, False, True) == "does nothing"


@pytest.mark.pure
def test_a_break_fewer_with_a_graph_more_is_the_break_moved_on_and_helps_nothing():
    """capture_scalar_outputs at a line that also prints: the .item() break goes, the print breaks a graph later."""
    same = output_change(["a 1"], ["a 1"])
    before = Counts(graphs=3, graph_breaks=5, recompiles=2, eager_calls=11, compile_s=37.3)
    moved = Counts(graphs=4, graph_breaks=4, recompiles=2, eager_calls=11, compile_s=5.5)  # the first run was loaded
    assert verdict(before, moved, 0, 0, same, False, True) == "does nothing"
    gone = Counts(graphs=3, graph_breaks=4, recompiles=2, eager_calls=11, compile_s=5.5)
    assert verdict(before, gone, 0, 0, same, False, True) == "helps"


@pytest.mark.pure
def test_a_worse_run_that_ended_as_the_first_says_why_it_is_worse_not_that_it_ended_otherwise():
    dearer = FixCheck({}, "setting:allow_rnn", "worse", exit_code=0,
                      before={"graphs": 2, "graph_breaks": 3, "recompiles": 1, "eager_calls": 12, "compile_s": 1.32},
                      after={"graphs": 5, "graph_breaks": 8, "recompiles": 6, "eager_calls": 12, "compile_s": 3.53})
    assert dearer.said.startswith("worse: it compiled more, and markedly longer") and "ended otherwise" not in dearer.said
    failed = FixCheck({}, "setting:x", "worse", exit_code=1, error="ValueError at train.py:3")
    assert failed.said.startswith("worse: the program failed (exit 1): ValueError at train.py:3")


@pytest.mark.pure
def test_a_fix_that_compiles_more_versions_and_markedly_longer_is_worse_though_its_finding_went():
    same = output_change(["a 1"], ["a 1"])
    before = Counts(graphs=4, graph_breaks=4, recompiles=2, eager_calls=0, compile_s=16.7)
    captured = Counts(graphs=5, graph_breaks=1, recompiles=3, eager_calls=0, compile_s=26.3)  # the item break's hint
    assert verdict(before, captured, 0, 0, same, True, True) == "worse"
    cheaper = Counts(graphs=5, graph_breaks=1, recompiles=3, eager_calls=0, compile_s=17.0)  # not markedly dearer
    assert verdict(before, cheaper, 0, 0, same, True, True) == "works"


@pytest.mark.pure
def test_numbers_that_vary_between_runs_do_not_count_as_a_changed_output():
    first, control, fixed = ["loss 0.123", "done"], ["loss 0.456", "done"], ["loss 0.789", "done"]
    assert output_change(first, fixed).lost == 1
    change = output_change(first, fixed, control)
    assert change.same and change.numbers_vary
    assert output_change(first, ["loss 0.7"], control).lost == 1  # a line lost is lost, numbers or not


@pytest.mark.pure
def test_a_check_reads_back_from_a_trace_and_refuses_a_wrong_shape():
    check = FixCheck({"kind": "setting"}, "k", "works", before={"recompiles": 4}, after={"recompiles": 0})
    assert FixCheck.from_json(check.as_json()) == check
    assert FixCheck.from_json({"key": "k", "verdict": "great"}) is None
    assert FixCheck.from_json({"key": "k", "verdict": "works", "before": {"recompiles": "x"}}).before == {}
    hostile = FixCheck.from_json({"key": "k", "verdict": "changed the output", "gone": "yes",
                                  "output": {"lost": "2", "added": -1, "first": 7, "numbers_vary": "no", "x": 1}})
    assert hostile.output == {} and not hostile.gone and hostile.said == "changed the output"  # nothing false said
    assert "recompiles 4 → 0" in check.said


@pytest.mark.pure
def test_ctrl_c_during_the_fixes_keeps_the_checks_made_so_far(monkeypatch, tmp_path):
    """The second fix's run is interrupted: the first's check is kept, the trace is written, nothing raises."""
    trace_path = ROOT / "docs" / "_traces" / "cpu" / "2.13.0" / "late_hook-cpu-cold.json"
    copied = tmp_path / "late_hook-cpu-cold.json"
    copied.write_bytes(trace_path.read_bytes())
    finding = Finding("recompile", "x", 1, ("0/1",), 0.0,
                      remedies=(Remedy("setting", "torch._dynamo.config.capture_scalar_outputs", True),
                                Remedy("setting", "torch._dynamo.config.specialize_int", True)))
    monkeypatch.setattr(trace_fix_checks, "fixes_to_check",
                        lambda found: [(finding, remedy) for remedy in finding.remedies])
    calls = []

    def fake_run(argv, timeout, echo=True):
        calls.append(argv)
        if len(calls) == 2:
            raise KeyboardInterrupt
        return trace_fix_checks._Ran(0, [], [])

    monkeypatch.setattr(trace_fix_checks, "_run_captured", fake_run)
    handed = trace_fix_checks.Handed(str(copied), [str(copied)], None, 1)
    options = trace_fix_checks.TraceOptions(script="late_hook.py", args=[], page=False, quiet=True)
    trace_fix_checks._check_all(handed, options, trace_fix_checks._Ran(0, [], []), 60.0, tmp_path)
    checks = load(copied).info.fix_checks
    assert len(calls) == 2 and len(checks) == 1 and checks[0]["verdict"] == "not applied"


@pytest.mark.pure
def test_pythons_warnings_and_torchs_log_lines_are_no_output_of_the_programs():
    from tracers.commands.trace_fix_checks import _programs_stderr

    stderr = ["/venv/lib/transformers/modeling_utils.py:1208: FutureWarning: `past_key_values` as a tuple is deprecated",
              "  warnings.warn(",
              "W1204 01:07:54.650000 4170 torch/_dynamo/convert_frame.py:1994] [2/8] hit config.recompile_limit (8)",
              "step 3 loss 0.25",
              "    an indented line of the program's own"]
    assert _programs_stderr(stderr) == ["step 3 loss 0.25", "    an indented line of the program's own"]


@pytest.mark.pure
def test_a_worse_run_whose_breaks_went_does_not_say_no_call_came_back():
    rnn = FixCheck({}, "setting:allow_rnn", "worse", exit_code=0,
                   before={"graphs": 3, "graph_breaks": 3, "recompiles": 2, "eager_calls": 0, "compile_s": 1.05},
                   after={"graphs": 4, "graph_breaks": 0, "recompiles": 3, "eager_calls": 0, "compile_s": 20.9})
    assert rnn.said.startswith("worse: it compiled more, and markedly longer;") and "brought back" not in rnn.said


@pytest.mark.pure
def test_a_fix_markedly_dearer_to_compile_for_nothing_gained_is_worse_and_close_times_are_said_as_noise():
    """Blind round 10: dynamic=True for a generate() loop compiled 2.6 times longer and changed nothing else ("does
    nothing" then); one run's 40.2 s against 40.3 s read as a verdict while paired runs differed by a third."""
    same = output_change(["a 1"], ["a 1"])
    before = Counts(graphs=4, graph_breaks=0, recompiles=3, eager_calls=0, compile_s=4.78)
    dearer_only = Counts(graphs=4, graph_breaks=0, recompiles=3, eager_calls=0, compile_s=12.4)
    assert verdict(before, dearer_only, 0, 0, same, False, True) == "worse"
    said = FixCheck({}, "compile-argument:dynamic", "worse", exit_code=0, before=dataclasses.asdict(before),
                    after=dataclasses.asdict(dearer_only)).said
    assert said.startswith("worse: it compiled markedly longer, and nothing it was for improved")
    close = FixCheck({}, "compile-argument:dynamic", "works", exit_code=0, before={"compile_s": 40.2},
                     after={"compile_s": 40.3}, gone=True)
    assert "within run-to-run noise" in close.said
    apart = FixCheck({}, "compile-argument:dynamic", "works", exit_code=0, before={"compile_s": 4.0},
                     after={"compile_s": 1.0}, gone=True)
    assert "noise" not in apart.said


@pytest.mark.pure
def test_a_fix_that_removes_its_finding_at_the_price_of_more_breaks_says_so():
    """Blind round 10: the hook guards back on restored the hook's output and tripled the breaks and recompiles."""
    costly = FixCheck({}, "setting:skip_nnmodule_hook_guards", "works", exit_code=0, gone=True,
                      before={"graph_breaks": 2, "recompiles": 1}, after={"graph_breaks": 7, "recompiles": 6})
    assert "the finding is gone; at a price: more breaks or recompiles than before" in costly.said
    clean = FixCheck({}, "setting:x", "works", exit_code=0, gone=True, before={"recompiles": 1},
                     after={"recompiles": 0})
    assert "at a price" not in clean.said

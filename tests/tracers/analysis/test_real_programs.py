"""Per-compile rows on real-shaped programs (resets, a custom backend, explain, a data-dependent module, -m),
checked against what torch itself handed a counting backend, what explain reported, and torch's counters."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import pytest

from tracers.analysis.trace_facts import CompileFacts, TraceFacts, analyze
from tracers.report.counts import render_counts
from tracers.tracefile.chrome import load
from tracers.tracefile.compile_identity import qualified, split
from tracers.tracefile.events import Trace

from tests.conftest import ROOT, run_python

pytestmark = pytest.mark.torch

PROGRAMS = Path(__file__).resolve().parents[2] / "programs"


@dataclass(frozen=True)
class TracedProgram:
    returncode: int
    stdout: str
    stderr: str
    trace: Trace
    truth: dict

    @property
    def facts(self) -> TraceFacts:
        return analyze(self.trace)

    def rows(self) -> dict[str, CompileFacts]:
        return {facts.compile_id: facts for facts in self.facts.compiles}


def _trace(tmp_path: Path, target: list[str], trace_name: str, program_args: tuple[str, ...] = (),
           cwd: Path = PROGRAMS) -> TracedProgram:
    truth = tmp_path / "truth.json"
    result = run_python(["-m", "tracers", "trace", "--no-page", "--out", str(tmp_path), *target, *program_args],
                        env={"GROUND_TRUTH": str(truth)}, cwd=cwd)
    path = tmp_path / f"{trace_name}-cpu-cold.json"
    assert path.exists(), result.stderr
    return TracedProgram(result.returncode, result.stdout, result.stderr, load(path),
                         json.loads(truth.read_text()) if truth.exists() else {})


@pytest.fixture(scope="module")
def tutorial(tmp_path_factory: pytest.TempPathFactory) -> TracedProgram:
    return _trace(tmp_path_factory.mktemp("tutorial"), [str(PROGRAMS / "tutorial_resets.py")], "tutorial_resets")


@pytest.fixture(scope="module")
def explained(tmp_path_factory: pytest.TempPathFactory) -> TracedProgram:
    return _trace(tmp_path_factory.mktemp("explain"), [str(PROGRAMS / "explained.py")], "explained")


@pytest.fixture(scope="module")
def gated(tmp_path_factory: pytest.TempPathFactory) -> TracedProgram:
    return _trace(tmp_path_factory.mktemp("gated"), [str(PROGRAMS / "gated_module.py")], "gated_module")


@pytest.fixture(scope="module")
def as_module(tmp_path_factory: pytest.TempPathFactory) -> TracedProgram:
    return _trace(tmp_path_factory.mktemp("module"), ["-m", "compile_pkg.train"], "compile_pkg.train",
                  ("--steps", "2", "--exit-code", "5"))


def _line_of(program: str, marker: str) -> str:
    """``file:line`` of the line carrying ``marker`` (a comment in the program), so no line number is written here."""
    lines = (PROGRAMS / program).read_text().splitlines()
    number = next(index for index, line in enumerate(lines, 1) if marker in line)
    return f"{Path(program).name}:{number}"


def assert_rows_match_backend(program: TracedProgram) -> None:
    """Every compile the backend saw is one row with its graphs and ops, and there is no other row."""
    expected: dict[str, list[int]] = {}
    for graph in program.truth["graphs"]:
        expected.setdefault(qualified(graph["compile_id"], graph["resets"]), []).append(graph["ops"])
    rows = program.rows()
    with_graphs = {compile_id: row for compile_id, row in rows.items() if row.graphs}
    assert sorted(with_graphs) == sorted(expected)
    for compile_id, ops in expected.items():
        assert rows[compile_id].graphs == len(ops), compile_id
        assert rows[compile_id].op_count == ops[-1], compile_id


def assert_totals_agree(program: TracedProgram) -> None:
    check = program.trace.info.totals_check
    assert check is not None and check["skipped"] is None
    assert check["mismatches"] == []
    assert check["tracer"] == check["torch"]
    facts = program.facts
    assert check["tracer"]["graphs"] == facts.graph_count
    assert check["tracer"]["graph_breaks"] == len(facts.graph_breaks)


def test_tutorial_each_compile_is_its_own_row_across_resets(tutorial):
    assert tutorial.returncode == 0, tutorial.stderr
    assert tutorial.trace.info.resets == 2
    assert [span.target for span in tutorial.trace.spans].count("torch._dynamo:reset") == 2
    assert_rows_match_backend(tutorial)
    rows = tutorial.rows()
    assert rows["0/0"].frame.startswith("foo (tutorial_resets.py:")
    assert rows["r1:0/0"].frame.startswith("bar (tutorial_resets.py:")
    assert [split(compile_id)[0] for compile_id in rows] == sorted(split(compile_id)[0] for compile_id in rows)
    # bar's three graphs are bar itself and the two resume functions after its break.
    assert sum(row.graphs for compile_id, row in rows.items() if compile_id.startswith("r1:")) == 3


def test_tutorial_called_from_lines_belong_to_their_compile(tutorial):
    rows = tutorial.rows()
    assert rows["0/0"].user_frame == _line_of("tutorial_resets.py", "# call: foo")
    assert rows["r1:0/0"].user_frame == _line_of("tutorial_resets.py", "# call: bar")
    assert rows["r2:0/0"].user_frame == _line_of("tutorial_resets.py", "# call: module")
    assert rows["r2:1/0"].user_frame == _line_of("tutorial_resets.py", "# call: sequential")


def test_tutorial_graph_break_is_tied_to_the_compile_after_the_reset(tutorial):
    (graph_break,) = tutorial.facts.graph_breaks
    assert graph_break.compile_id == "r1:0/0"
    assert graph_break.location.endswith(_line_of("tutorial_resets.py", "if b.sum() < 0").split(":")[1])
    assert all(artifact.compile_id is None or artifact.compile_id.startswith(("0/", "r1:", "r2:"))
               for artifact in tutorial.trace.artifacts)
    assert {artifact.compile_id for artifact in tutorial.trace.artifacts if artifact.kind == "graph"} \
        == set(tutorial.rows())


def test_wrapper_frames_name_the_module_they_wrap(tutorial):
    rows = tutorial.rows()
    assert rows["r2:0/0"].frame.startswith("MyModule.forward (tutorial_resets.py:")
    # torch.compile wraps torch's own modules in a pass-through frame; the row names the model first.
    sequential = rows["r2:1/0"].frame
    assert sequential.startswith("Sequential.forward (container.py:")
    assert " via inner (external_utils.py:" in sequential


def test_summary_and_page_show_reset_ids_and_the_check(tutorial):
    assert "r1:0/0" in tutorial.stderr and "r2:1/0" in tutorial.stderr
    assert "2 Dynamo resets" in tutorial.stderr
    assert "totals agree with torch's own counters" in tutorial.stderr
    page = render_counts(tutorial.facts, tutorial.trace.info)
    assert 'data-compile="r1:0/0"' in page and 'data-compile="0/0"' in page
    assert "reset Dynamo 2 times" in page


def test_tutorial_totals_agree_with_torch(tutorial):
    assert_totals_agree(tutorial)


def test_explain_compiles_match_explain_itself(explained):
    assert explained.returncode == 0, explained.stderr
    assert explained.trace.info.resets == 2  # explain resets Dynamo before and after itself
    rows = explained.rows()
    during = [row for compile_id, row in rows.items() if compile_id.startswith("r1:")]
    assert sum(row.graphs for row in during) == explained.truth["graph_count"]
    # explain lists call_function nodes only; a row's ops are Dynamo's graph_op_count, which counts method
    # and module calls too. The program calls functions only, so the two agree there.
    assert [row.op_count for row in during if row.graphs] == explained.truth["ops_per_graph"]
    breaks = [brk for brk in explained.facts.graph_breaks if brk.compile_id.startswith("r1:")]
    assert len(breaks) == explained.truth["graph_break_count"]
    # The program's own compile before explain keeps its plain ids.
    assert rows["0/0"].frame.startswith("scaled (explained.py:")
    assert rows["0/0"].user_frame == _line_of("explained.py", "# call: compiled")
    assert_totals_agree(explained)


def test_data_dependent_module_breaks_and_recompiles(gated):
    assert gated.returncode == 0, gated.stderr
    assert_rows_match_backend(gated)
    rows = gated.rows()
    # The compiled frame is the outer decorator; the row names the forward beneath both decorators.
    assert rows["0/0"].frame.startswith("Gate.forward (gated_module.py:")
    assert " via outer_wrapper (gated_module.py:" in rows["0/0"].frame
    assert rows["0/0"].user_frame == _line_of("gated_module.py", "# call: first shape")
    # The break inside the innermost frame makes Dynamo restart each enclosing frame with a break of its own
    # (outer decorator 0/*, inner decorator 1/*, forward 2/*), and the new shape recompiles all three.
    assert rows["1/0"].frame.startswith("Gate.forward (gated_module.py:")
    assert " via inner_wrapper (gated_module.py:" in rows["1/0"].frame
    assert " via " not in rows["2/0"].frame
    recompiles = {recompile.compile_id: recompile for recompile in gated.facts.recompiles}
    assert sorted(recompiles) == ["0/1", "1/1", "2/1"]
    assert all(any("size" in reason for reason in recompile.reasons) for recompile in recompiles.values())
    assert rows["0/1"].user_frame == _line_of("gated_module.py", "# call: second shape")
    assert {brk.compile_id for brk in gated.facts.graph_breaks} == {"0/0", "0/1", "1/0", "1/1", "2/0", "2/1"}
    assert_totals_agree(gated)


def test_module_runs_as_python_dash_m_would(as_module):
    assert as_module.returncode == 5
    started = next(line for line in as_module.stdout.splitlines() if line.startswith("started as"))
    assert started == (f"started as __main__ from {PROGRAMS / 'compile_pkg' / 'train.py'} "
                       "with ['--steps', '2', '--exit-code', '5']")
    assert_rows_match_backend(as_module)
    assert as_module.rows()["0/0"].frame.startswith("block (layers.py:")
    assert as_module.trace.info.command[-6:] == ["-m", "compile_pkg.train", "--steps", "2", "--exit-code", "5"]
    assert_totals_agree(as_module)


def test_missing_module_is_one_line(tmp_path):
    result = run_python(["-m", "tracers", "trace", "--out", str(tmp_path), "-m", "no_such_package.train"],
                        cwd=PROGRAMS)
    assert result.returncode == 1
    assert result.stderr.strip() == "trace: No module named no_such_package"
    assert not list(tmp_path.iterdir())


def test_module_options_after_the_module_are_the_modules(tmp_path):
    """``--out`` after the module name belongs to the module (argparse there rejects it), as with python -m."""
    result = run_python(["-m", "tracers", "trace", "--quiet", "--no-page", "--out", str(tmp_path),
                         "-m", "compile_pkg.train", "--out", "elsewhere"], cwd=PROGRAMS)
    assert result.returncode == 2  # the module's argparse error
    assert "unrecognized arguments: --out elsewhere" in result.stderr
    assert (tmp_path / "compile_pkg.train-cpu-cold.json").exists()


def test_nox_trace_session_passes_dash_m():
    noxfile = (ROOT / "noxfile.py").read_text()
    assert '"tracers", "trace", *session.posargs' in noxfile

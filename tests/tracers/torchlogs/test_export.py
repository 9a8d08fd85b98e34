"""torch.export's records in TORCH_TRACE logs, from a real run: said in one line, counted, never analysed as compiles."""

from __future__ import annotations

import html
from pathlib import Path

import pytest

from tests.conftest import run_python
from tracers.vocabulary.exported import export_line, no_problems_in_compiles

pytestmark = pytest.mark.torch

PROGRAM = Path(__file__).resolve().parents[2] / "programs" / "export_and_compile.py"
FAKE_KERNEL = "torch.ops.tracers_test.double.default has no fake kernel"
NOT_ANALYSED = "export's own content is not analysed here (tlparse --export shows it)"


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The program under TORCH_DTRACE (TORCH_TRACE plus export's records): {"mixed": the log with the compile and
    the export, "draft": draft_export's own log}."""
    where = tmp_path_factory.mktemp("export-logs")
    result = run_python([str(PROGRAM)], env={"TORCH_DTRACE": str(where / "logs"),
                                             "TORCHINDUCTOR_CACHE_DIR": str(where / "cache")})
    assert result.returncode == 0, result.stderr[-3000:]
    found = {}
    for log in (where / "logs").iterdir():
        found["mixed" if "dynamo_start" in log.read_text(encoding="utf-8") else "draft"] = log
    assert set(found) == {"mixed", "draft"}
    return found


def _report(path: Path, out: Path) -> tuple[str, str]:
    """``report``'s terminal text and its page."""
    result = run_python(["-m", "tracers", "report", str(path), "--out", str(out)])
    assert result.returncode == 0 and "Traceback" not in result.stderr, result.stderr
    return result.stderr, Path(result.stdout.strip()).read_text(encoding="utf-8")


def _export_lines(text: str) -> list[str]:
    """The lines about the export part (not the head, which names the log's kind)."""
    return [line.strip() for line in text.splitlines()
            if "torch.export" in line and not line.startswith("torch.export log — ")]


def test_a_log_with_a_compile_and_an_export(logs: dict[str, Path], tmp_path: Path) -> None:
    """The compile is analysed as in any log; the export part is counted in one line, not taken for a compile."""
    said, page = _report(logs["mixed"], tmp_path)
    assert "0/0     <lambda> (export_and_compile.py:" in said and "Graphs 1" in said
    lines = _export_lines(said)
    assert len(lines) == 1 and lines[0].startswith("It also holds torch.export records: 1 exported program (")
    assert "none of the problems tlparse --export lists" in lines[0] and NOT_ANALYSED in lines[0]
    assert "No problems found: 1 graph" in said and "older torch" not in said
    assert html.escape(lines[0]) in page


def test_draft_exports_own_log(logs: dict[str, Path], tmp_path: Path) -> None:
    """draft_export's log: an export and nothing else, with the op it found without a fake kernel."""
    said, page = _report(logs["draft"], tmp_path)
    lines = _export_lines(said)
    assert len(lines) == 1, said
    assert lines[0].startswith("This log is from torch.export, not torch.compile: 1 exported program")
    assert f"1 problem torch.export met: {FAKE_KERNEL}" in lines[0]
    assert not [line for line in ("Nothing was compiled", "No problems found", "Graphs 0") if line in said + page]
    assert html.escape(lines[0]) in page
    head = next(line for line in said.splitlines() if line.startswith(("torch.export log", "torch.compile trace")))
    # issue 54: a finished export with a problem was headed "torch.compile trace … — ok"
    assert head.startswith("torch.export log — ") and head.endswith("— 1 export problem"), head


def test_compiles_clean_beside_an_export_problem(logs: dict[str, Path], tmp_path: Path) -> None:
    """The two logs of the run joined into one (as a log collector joins a process's logs): the compile's clean
    headline speaks for the compiles only, since the export part had a problem."""
    joined = tmp_path / "joined.log"
    joined.write_text(logs["mixed"].read_text(encoding="utf-8") + logs["draft"].read_text(encoding="utf-8"),
                      encoding="utf-8")
    said, page = _report(joined, tmp_path / "out")
    assert "No problems found in the compiles: 1 graph" in said and "No problems found:" not in said
    assert "No problems found in the compiles: 1 graph" in page and "No problems found:" not in page
    assert "2 exported programs" in _export_lines(said)[0] and FAKE_KERNEL in _export_lines(said)[0]


def test_the_run_directory_and_markup_in_a_log(logs: dict[str, Path], tmp_path: Path) -> None:
    """Both logs as a directory: draft_export's says what it is; an op name with markup (a hand-edited log) is
    escaped on the page."""
    directory = tmp_path / "logs"
    directory.mkdir()
    (directory / logs["mixed"].name).write_text(logs["mixed"].read_text(encoding="utf-8"), encoding="utf-8")
    draft = logs["draft"].read_text(encoding="utf-8").replace("tracers_test.double.default", "<b>op</b>")
    assert "<b>op</b>" in draft  # in the record's own line: no payload md5 to keep
    (directory / logs["draft"].name).write_text(draft, encoding="utf-8")
    said, page = _report(directory, tmp_path / "out")
    assert f"{logs['draft'].name}: This log is from torch.export" in said and "torch.ops.<b>op</b>" in said
    assert "torch.ops.&lt;b&gt;op&lt;/b&gt; has no fake kernel" in page and "<b>op</b>" not in page


@pytest.mark.parametrize("export", [
    {"programs": "2", "records": [1], "problems": 5, "problem_count": True},
    {"programs": -1, "started": 10 ** 30, "records": {"guard_added": "x"}, "problems": ["a", {"kind": 3}],
     "problem_count": 2},
    {},
])
def test_the_line_from_a_damaged_trace_file(export: dict) -> None:
    """A trace file read back may hold anything where the export part is: still one line, never a traceback."""
    line = export_line(export)
    assert line.startswith("This log is from torch.export") and line.endswith("(tlparse --export shows it).")
    assert no_problems_in_compiles("  No problems found: 1 graph", export).startswith("  No problems found")

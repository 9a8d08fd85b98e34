"""Damage read for what it is (issue 54 item 4): a lost region end is no run still going, a whole last record
without its newline is read, and payload lines a copy trimmed are no damage."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from tests.tracers.torchlogs.test_messy import _record, _region, compile_log
from tracers.torchlogs.load import load_logs
from tracers.torchlogs.records import DAMAGED, NO_FINAL_NEWLINE, TRIMMED, TRUNCATED, BLANK

pytestmark = pytest.mark.pure

_FRAME = (0, 0)


def _write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "dedicated_log_torch_trace_x1.log"
    path.write_text(text, encoding="utf-8")
    return path


def _damaged(record: str, old: str, new: str) -> str:
    """The record with its payload edited after its md5 was written."""
    assert old in record
    return record.replace(old, new, 1)


def _cpp_log(damage: tuple[str, str] | None) -> str:
    """A compile whose C++ build (compile_file) ends, then a later region and the compile's end."""
    end_build = _region("E", "compile_file", 1_000_600.0, "0/0", _FRAME)
    if damage:
        end_build = _damaged(end_build, *damage)
    return "".join([
        _region("B", "dynamo", 1_000_000.0, "0/0", _FRAME),
        _region("B", "compile_file", 1_000_100.0, "0/0", _FRAME),
        end_build,
        _region("B", "build_guards", 1_000_700.0, "0/0", _FRAME),
        _region("E", "build_guards", 1_000_800.0, "0/0", _FRAME),
        _record({"compilation_metrics": {"co_name": "f", "co_filename": "/srv/prog.py", "co_firstlineno": 1},
                 "frame_id": 0, "frame_compile_id": 0, "attempt": 0}),
        _region("E", "dynamo", 1_001_000.0, "0/0", _FRAME),
    ])


def _spans(tmp_path: Path, text: str):
    loaded = load_logs(_write(tmp_path, text))
    trace = loaded.logs[0].trace
    return loaded, trace, {span.target.split(":", 1)[1]: span for span in trace.spans}


def test_an_unreadable_region_end_is_no_run_still_going(tmp_path: Path) -> None:
    """compile_file's end event damaged past parsing: the log is whole, so the run finished; the region ends where
    its lost end stood (before the next region), and what came after it is not its child."""
    loaded, trace, spans = _spans(tmp_path, _cpp_log(('"ph": "E"', '"ph: "E"')))
    assert loaded.logs[0].problems.counts[DAMAGED] == 1
    assert trace.info.status == "ok" and not any(span.unfinished for span in trace.spans)
    build, guards = spans["compile_file"], spans["build_guards"]
    assert build.end_ns == 1_000_700_000 and build.end_ns <= guards.start_ns  # not the 0.9 ms to the log's end
    assert guards.parent == spans["dynamo"].id and guards.depth == 1


def test_a_damaged_event_whose_fields_stand_whole_is_read(tmp_path: Path) -> None:
    """A damaged payload that still says its phase, name and time is that event (only its md5 is off)."""
    _, trace, spans = _spans(tmp_path, _cpp_log(('"cat": "dynamo_timed"', '"cat": "dynamo_tim\\u00"')))
    assert trace.info.status == "ok" and spans["compile_file"].end_ns == 1_000_600_000


def test_a_log_cut_inside_a_region_is_still_running(tmp_path: Path) -> None:
    """The other side: a log whose end is torn stays a run that did not finish, its open region unfinished."""
    text = _cpp_log(None)
    cut = text[:text.index('"ph": "E"') + 6]  # torn inside compile_file's end record
    loaded, trace, spans = _spans(tmp_path, cut)
    assert loaded.logs[0].problems.counts[TRUNCATED] == 1
    assert trace.info.status == "running" and spans["compile_file"].unfinished


def test_a_whole_json_last_record_without_its_newline_is_read(tmp_path: Path) -> None:
    """The last record edited (md5 off) and without its final newline, its payload whole JSON: read, counted as
    damaged, not dropped as truncated; the same record cut short is dropped as truncated."""
    traces = json.dumps({"triton_kernel": ["  File \"x.py\", line 1"]})
    last = _damaged(_record({"artifact": {"name": "inductor_provenance_tracking_kernel_stack_traces",
                                          "encoding": "json"}}, traces), "line 1", "line 2").rstrip("\n")
    loaded, trace, _ = _spans(tmp_path, compile_log() + last)
    counts = loaded.logs[0].problems.counts
    assert counts[DAMAGED] == 1 and counts[NO_FINAL_NEWLINE] == 1 and not counts[TRUNCATED]
    assert "inductor_provenance_tracking_kernel_stack_traces" in {artifact.name for artifact in trace.artifacts}
    assert trace.info.status == "ok"
    loaded, trace, _ = _spans(tmp_path, compile_log() + last[:-8])
    assert loaded.logs[0].problems.counts[TRUNCATED] == 1
    assert "inductor_provenance_tracking_kernel_stack_traces" not in {artifact.name for artifact in trace.artifacts}


def _program_record(payload: str) -> str:
    return _record({"exported_program": {}}, payload)


def test_payload_lines_a_copy_trimmed_are_no_damage(tmp_path: Path) -> None:
    """A payload's empty lines written as a tab and spaces, trimmed to nothing by a copy (no line keeps trailing
    whitespace): read as empty lines of its payload, said as trimmed, not as damage nor as blank lines."""
    program = "ExportedProgram:\n    def forward(self, x):\n        a = x.item()\n        \n        return a"
    record = _program_record(program).replace("\n\t        \n", "\n\n")
    loaded, trace, _ = _spans(tmp_path, compile_log() + record + _record({"str": ["/srv/other.py", 9]}))
    counts = loaded.logs[0].problems.counts
    assert counts[TRIMMED] == 1 and not counts[DAMAGED] and not counts[BLANK]
    [exported] = [artifact for artifact in trace.artifacts if artifact.name == "exported_program"]
    assert "a = x.item()\n\n        return a" in (exported.payload or "")


def test_a_blank_line_in_a_payload_that_kept_its_spaces_is_damage(tmp_path: Path) -> None:
    """The other side: where a payload line still ends in spaces, no copy trimmed the log: a blank line inside
    it is damage, as before."""
    program = "ExportedProgram:\n    x = 1   \n        \n    y = 2"
    record = _program_record(program).replace("\n\t        \n", "\n\n")
    loaded, _, _ = _spans(tmp_path, compile_log() + record)
    counts = loaded.logs[0].problems.counts
    assert counts[DAMAGED] == 1 and not counts[TRIMMED]


def test_blank_lines_between_records_are_still_blank_lines(tmp_path: Path) -> None:
    text = compile_log().replace("\nV1125", "\n\n\nV1125", 1)
    loaded, _, _ = _spans(tmp_path, text)
    counts = loaded.logs[0].problems.counts
    assert counts[BLANK] == 2 and not counts[TRIMMED] and not counts[DAMAGED]

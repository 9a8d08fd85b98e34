"""Wrong-typed fields in a TORCH_TRACE log: counted and left out alike whether the log's name has a rank or not
(issue 52, item 4), and compile ids that are not torch's never make compiles of their own (item 5)."""

from __future__ import annotations

import gzip
import json
import re
from pathlib import Path

import pytest

from tests.conftest import ROOT, run_python
from tracers.analysis.trace_facts import analyze
from tracers.torchlogs.convert import BAD_COMPILE_ID, WRONG_TYPE
from tracers.torchlogs.load import load_logs

pytestmark = pytest.mark.pure

# tlparse's own test input: a real rank-0 log of two compiles (0/0 and its recompile 0/1)
SEED = ROOT / "tests" / "data" / "tlparse" / "graph_exec_order_tests" / "dedicated_log_torch_trace_rank_0_a74od7a1.log.gz"
HEADER = re.compile(r"^(\S+ \S+ \d+ \S+\] )(\{.*)$")
RANK_NAME, PLAIN_NAME = "dedicated_log_torch_trace_rank_0_ab12.log", "dedicated_log_torch_trace_ab12.log"


def _mutated(where: Path, name: str, change) -> Path:  # noqa: ANN001 - change(metadata) edits a record's header
    """The seed log with ``change`` applied to each record's metadata (headers carry no md5: payloads stay intact)."""
    lines = []
    for line in gzip.open(SEED, "rt", encoding="utf-8").read().split("\n"):
        match = HEADER.match(line)
        if match:
            metadata = json.loads(match[2])
            change(metadata)
            line = match[1] + json.dumps(metadata)
        lines.append(line)
    where.mkdir(parents=True, exist_ok=True)
    (where / name).write_text("\n".join(lines), encoding="utf-8")
    return where


def _metric(key: str, value: object):  # noqa: ANN202
    def change(metadata: dict) -> None:
        if "compilation_metrics" in metadata:
            if key == "attempt":  # torch puts the attempt beside the record, not inside it
                metadata[key] = value
            else:
                metadata["compilation_metrics"][key] = value
    return change


WRONG = {"attempt as text": ("attempt", "0"), "fail_reason as an object": ("fail_reason", {"a": 1}),
         "restart time as a list": ("dynamo_time_before_restart_s", [1])}


@pytest.mark.parametrize("name", [RANK_NAME, PLAIN_NAME], ids=["rank-named", "plain"])
@pytest.mark.parametrize("case", sorted(WRONG))
def test_a_wrong_typed_field_is_counted_and_left_out_on_every_path(tmp_path: Path, case: str, name: str) -> None:
    key, value = WRONG[case]
    logs = _mutated(tmp_path / "logs", name, _metric(key, value))
    result = run_python(["-m", "tracers", "report", str(logs), "--out", str(tmp_path / "out")])
    assert result.returncode == 0 and "Traceback" not in result.stderr, result.stderr[-2000:]
    assert "records with a field of the wrong type (the field left out" in result.stderr, result.stderr
    loaded = load_logs(logs)
    trace = loaded.logs[0].trace
    assert trace.info.from_log["problems"][WRONG_TYPE] == 2  # the two compiles' metrics records
    assert all(key not in artifact.metadata for artifact in trace.artifacts if artifact.kind == "metrics")
    assert [c.compile_id for c in analyze(trace).compiles] == ["0/0", "0/1"]


@pytest.mark.parametrize("frame_id", [True, [0], "0/0", -7, 10 ** 30], ids=repr)
def test_a_frame_id_that_is_not_torchs_makes_no_compile_of_its_own(tmp_path: Path, frame_id: object) -> None:
    def change(metadata: dict) -> None:
        if "frame_id" in metadata:
            metadata["frame_id"] = frame_id

    logs = _mutated(tmp_path, RANK_NAME, change)
    trace = load_logs(logs).logs[0].trace
    problems = trace.info.from_log["problems"]
    assert problems[BAD_COMPILE_ID] > 0, problems
    facts = analyze(trace)
    # the compiles the timed regions name, as in the log unchanged: no ``True/0``, no reset, no phantom frame
    assert [c.compile_id for c in facts.compiles] == ["0/0", "0/1"]
    assert trace.info.resets == 0
    assert {a.compile_id for a in trace.artifacts} <= {"0/0", "0/1", None}

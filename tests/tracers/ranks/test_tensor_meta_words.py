"""Inductor's output metadata compared graph by graph: only the values that differ, under the graph they belong to
(issue 54, item 7: equal values were shown as the difference, another compile's ops labelled 0/0)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.tracers.ranks.rank_logs import compile_log
from tracers.ranks.log_comparison import tensor_meta
from tracers.torchlogs.load import load_logs

pytestmark = pytest.mark.pure

META = {"artifact": {"name": "inductor_runtime_and_tensor_meta", "encoding": "json"}}
WAIT = {"name": "torch.ops._c10d_functional.wait_tensor.default", "estimated_runtime_ns": 0}


def _op(name: str, *outputs: tuple[str | None, list[int]]) -> dict:
    return {"name": name, "estimated_runtime_ns": 10.0,
            "outputs": [{"shape": shape, "stride": [1] * len(shape), "dtype": dtype} for dtype, shape in outputs]}


def _log(rank: int, graphs: dict[str, list[dict]]) -> str:
    return "".join(compile_log(rank, 1.7e15 + index * 1e4, cid, extra=((META, json.dumps({"ops": ops})),))
                   for index, (cid, ops) in enumerate(graphs.items()))


def _traces(tmp_path: Path, logs: dict[int, str]) -> dict:
    for rank, text in logs.items():
        (tmp_path / f"dedicated_log_torch_trace_rank_{rank}_ab12.log").write_text(text, encoding="utf-8")
    return {log.rank: log.trace for log in load_logs(tmp_path).logs}


def test_only_the_differing_values_are_said_under_their_own_graph(tmp_path: Path) -> None:
    same = [_op("extern_kernels.mm", ("float16", [8, 8])), {**WAIT, "outputs": [{"shape": [], "dtype": None}]}]
    later = [_op("op1", ("float16", [8, 8]))]
    traces = _traces(tmp_path, {
        0: _log(0, {"0/0": same, "0/1": later}),
        1: _log(1, {"0/0": [*same[:1], WAIT], "0/1": later}),  # a wait without outputs: no tensor either way
        2: _log(2, {"0/1": [_op("op1", ("float32", [8, 1]), ("float16", [8, 8]))]}),  # no record for 0/0
    })
    found = tensor_meta(traces, lambda cid: None)
    assert found.compile_id == "0/1"
    assert found.said == "op 1 of graph 0/1 (`op1`) outputs float16[8, 8] on ranks 0, 1 and float32[8, 1]; " \
                         "float16[8, 8] on rank 2"
    assert found.detail == (found.said,)


def test_other_ops_are_said_as_other_kernels_and_equal_graphs_say_nothing(tmp_path: Path) -> None:
    ops = [_op("extern_kernels.mm", ("float16", [8, 8])), _op("op1", ("float16", [8, 8]))]
    traces = _traces(tmp_path, {0: _log(0, {"0/0": ops}), 1: _log(1, {"0/0": ops}),
                                2: _log(2, {"0/0": [ops[0], _op("op1_op2", ("float16", [8, 8]))]})})
    found = tensor_meta(traces, lambda cid: None)
    assert found.said == "op 2 of graph 0/0 is `op1` on ranks 0, 1 and `op1_op2` on rank 2"
    assert "other fusions or kernels" in found.why
    assert tensor_meta({rank: traces[rank] for rank in (0, 1)}, lambda cid: None) is None

"""Messy TORCH_TRACE input: truncated and corrupt records, gzip, foreign files, older logs, rank dirs, nothing readable."""

from __future__ import annotations

import gzip
import hashlib
import json
from pathlib import Path

import pytest

from tests.conftest import run_python
from tracers.analysis.trace_facts import analyze
from tracers.torchlogs.load import LogError, load_logs
from tracers.torchlogs.records import Problems, read_records

pytestmark = pytest.mark.pure


def _record(metadata: dict, payload: str | None = None, pid: int = 4242) -> str:
    """One record as torch's trace formatter writes it (torch/_logging/_internal.py, TorchLogsFormatter)."""
    if payload is not None:
        metadata = {**metadata, "has_payload": hashlib.md5(payload.encode()).hexdigest()}
    line = f"V1125 14:43:24.891000 {pid} torch/_dynamo/utils.py:2350] {json.dumps(metadata)}"
    return line + ("".join(f"\n\t{part}" for part in payload.split("\n")) if payload is not None else "") + "\n"


def _region(phase: str, name: str, ts_us: float, compile_id: str | None, frame: tuple[int, int] | None) -> str:
    ids = {"frame_id": frame[0], "frame_compile_id": frame[1], "attempt": 0} if frame else {}
    event = {"name": name, "ts": ts_us, "args": {"compile_id": str(compile_id)}, "ph": phase,
             "cat": "dynamo_timed", "tid": 0, "pid": 0}
    return _record({"chromium_event": {}, **ids}, json.dumps(event, indent=0))


def compile_log(rank: int | None = None, op_count: int = 3, version: bool = True, pid: int = 4242) -> str:
    """A small log of one frame compile: regions, version, frame start, graph, guards, metrics."""
    frame = (0, 0)
    extra = {"rank": rank} if rank is not None else {}
    ids = {"frame_id": 0, "frame_compile_id": 0, "attempt": 0, **extra}
    parts = [_region("B", "dynamo", 1_000_000.0, "0/0", frame)]
    if version:
        parts.append(_record({"artifact": {"name": "torch_version", "encoding": "json"}, **extra},
                             json.dumps({"pytorch_version": "2.11.0", "commit": "abc123"})))
    parts += [
        _record({"str": ["/srv/app/prog.py", 0]}),
        _record({"dynamo_start": {"stack": [{"line": 3, "name": "<module>", "filename": 0, "loc": "f(x)"},
                                            {"line": 1, "name": "f", "filename": 0}]}, **ids}),
        _region("B", "bytecode_tracing", 1_000_100.0, "0/0", frame),
        _region("E", "bytecode_tracing", 1_000_900.0, "0/0", frame),
        _record({"dynamo_output_graph": {"sizes": {"l_x_": [4]}}, **ids}, "class GraphModule(torch.nn.Module):\n    ..."),
        _region("B", "build_guards", 1_001_000.0, "0/0", frame),
        _record({"dynamo_cpp_guards_str": {}, **ids}, "TREE_GUARD_MANAGER:\n+- RootGuardManager"),
        _region("E", "build_guards", 1_001_500.0, "0/0", frame),
        _record({"compilation_metrics": {"co_name": "f", "co_filename": "/srv/app/prog.py", "co_firstlineno": 1,
                                         "graph_op_count": op_count, "guard_count": 5}, **ids}),
        _region("E", "dynamo", 1_002_000.0, "0/0", frame),
    ]
    return "".join(parts).replace(" 4242 ", f" {pid} ")


def test_a_clean_log_gives_spans_artifacts_and_the_compile_table(tmp_path: Path) -> None:
    (tmp_path / "dedicated_log_torch_trace_ab12.log").write_text(compile_log(), encoding="utf-8")
    loaded = load_logs(tmp_path)
    assert loaded.warning() is None and not loaded.ranked
    trace = loaded.logs[0].trace
    assert [(s.target, s.stage, s.depth) for s in trace.spans] == [
        ("dynamo_timed:dynamo", "frame", 0), ("dynamo_timed:bytecode_tracing", "bytecode", 1),
        ("dynamo_timed:build_guards", "guards", 1)]
    assert trace.spans[0].duration_ns == 2_000_000 and all(not s.unfinished for s in trace.spans)
    facts = analyze(trace)
    [compile_] = facts.compiles
    assert (compile_.compile_id, compile_.frame, compile_.graphs, compile_.op_count, compile_.guard_count) == \
        ("0/0", "f (prog.py:1)", 1, 3, 5)
    assert compile_.user_frame == "prog.py:3"
    assert trace.info.torch_version == "2.11.0" and trace.info.from_log["written_by"] == "torch 2.11.0 (abc123)"
    assert trace.info.status == "ok" and trace.info.clock == {"perf_ns": 0, "wall_ns": 0}


def test_truncated_last_record_and_a_corrupt_line_are_counted_not_raised(tmp_path: Path) -> None:
    text = compile_log()
    lines = text.splitlines(keepends=True)
    boundary = [index for index, line in enumerate(lines) if line.startswith("V")][3]
    lines.insert(boundary, "V1125 14:43:24.891000 4242 torch/x.py:1] {not json\n\tits payload\n")
    cut = "".join(lines)[:-40]  # the log ends inside the last region's payload
    (tmp_path / "dedicated_log_torch_trace_cut.log").write_text(cut, encoding="utf-8")
    loaded = load_logs(tmp_path)
    warning = loaded.warning()
    assert warning is not None and "1 corrupt line" in warning and "1 truncated record" in warning
    assert warning.startswith("dedicated_log_torch_trace_cut.log: ") and "at line " in warning  # a note a line
    trace = loaded.logs[0].trace
    assert trace.spans[0].unfinished and trace.info.status == "running"  # "dynamo" never ended in the log
    assert analyze(trace).compiles[0].graphs == 1


def test_a_payload_that_does_not_match_its_hash_is_counted_and_still_read(tmp_path: Path) -> None:
    """A hand-edited payload: tlparse counts it and still uses it; so does the reader, once."""
    path = tmp_path / "dedicated_log_torch_trace_x.log"
    path.write_text(compile_log().replace("RootGuardManager", "RootGuardManagerX"), encoding="utf-8")
    problems = Problems()
    records = [record for record in read_records(path, problems) if "dynamo_cpp_guards_str" in record.metadata]
    assert problems.counts == {"damaged payload": 1}
    assert len(records) == 1 and records[0].damaged and "RootGuardManagerX" in records[0].payload


def test_gzip_logs_and_an_older_torch_without_some_record_kinds(tmp_path: Path) -> None:
    older = compile_log(version=False)
    with gzip.open(tmp_path / "dedicated_log_torch_trace_old.log.gz", "wt", encoding="utf-8") as stream:
        stream.write(older)
    loaded = load_logs(tmp_path / "dedicated_log_torch_trace_old.log.gz")
    assert loaded.warning() == ("dedicated_log_torch_trace_old.log.gz: no torch_version records "
                                "(an older torch, or cut short)")
    assert loaded.logs[0].trace.info.torch_version == "unknown"
    assert analyze(loaded.logs[0].trace).compiles[0].op_count == 3


def test_a_gzip_cut_short_is_a_truncated_record(tmp_path: Path) -> None:
    data = gzip.compress(compile_log().encode())
    path = tmp_path / "dedicated_log_torch_trace_cut.log.gz"
    path.write_bytes(data[: len(data) * 2 // 3])
    loaded = load_logs(path)
    assert "truncated record" in (loaded.warning() or "")


def test_rank_logs_are_merged_with_divergence_and_foreign_files_named(tmp_path: Path) -> None:
    (tmp_path / "dedicated_log_torch_trace_rank_0_aa.log").write_text(compile_log(rank=0), encoding="utf-8")
    (tmp_path / "dedicated_log_torch_trace_rank_1_bb.log").write_text(compile_log(rank=1, op_count=4), encoding="utf-8")
    (tmp_path / "notes.txt").write_text("hello", encoding="utf-8")
    loaded = load_logs(tmp_path)
    assert loaded.ranked and [log.rank for log in loaded.logs] == [0, 1]
    assert loaded.warning() == "1 foreign file ignored (notes.txt)"
    result = run_python(["-m", "tracers", "report", str(tmp_path), "--out", str(tmp_path / "out")])
    assert result.returncode == 0, result.stderr
    assert "report: warning: 1 foreign file ignored (notes.txt)" in result.stderr
    assert "Traceback" not in result.stderr and "TORCH_TRACE logs written by torch 2.11.0" in result.stderr
    merged = tmp_path / "out" / f"{tmp_path.name}-ranks.json"
    assert merged.exists() and Path(result.stdout.strip()) == merged.with_suffix(".html")
    # the same report again sees its own outputs in the directory as its own, not as foreign files
    again = run_python(["-m", "tracers", "report", str(tmp_path)])
    assert again.returncode == 0 and again.stderr.count("foreign file") == 1, again.stderr


@pytest.mark.parametrize("content", [None, "just some text\n", "\x00\x01binary"])
def test_a_directory_with_nothing_readable_is_exit_2_in_one_line(tmp_path: Path, content: str | None) -> None:
    if content is not None:
        (tmp_path / "dedicated_log_torch_trace_zz.log").write_text(content, encoding="utf-8")
        (tmp_path / "other.csv").write_text("a,b\n", encoding="utf-8")
    with pytest.raises(LogError):
        load_logs(tmp_path)
    result = run_python(["-m", "tracers", "report", str(tmp_path)])
    assert result.returncode == 2 and result.stderr.count("\n") == 1 and "Traceback" not in result.stderr
    assert result.stderr.startswith("report: ")


def test_the_python_api_loads_a_log_ranks_and_says_damage_as_a_warning(tmp_path: Path) -> None:
    import tracers

    (tmp_path / "dedicated_log_torch_trace_rank_0_aa.log").write_text(compile_log(rank=0), encoding="utf-8")
    result = tracers.load(tmp_path)
    assert (int(result.compiles), int(result.graphs), int(result.graph_breaks)) == (1, 1, 0)
    assert "read from TORCH_TRACE log" in result.summary()
    (tmp_path / "dedicated_log_torch_trace_rank_1_bb.log").write_text(compile_log(rank=1)[:-30], encoding="utf-8")
    with pytest.raises(ValueError, match="load_ranks"), pytest.warns(UserWarning):
        tracers.load(tmp_path)
    with pytest.warns(UserWarning, match="truncated record"):
        ranks = tracers.load_ranks(tmp_path)
    assert sorted(ranks) == [0, 1] and int(ranks[1].graphs) == 1
    (tmp_path / "empty").mkdir()
    with pytest.raises(ValueError, match="no TORCH_TRACE log"):
        tracers.load(tmp_path / "empty")


def test_logs_without_a_rank_are_merged_as_processes_named_by_their_pid(tmp_path: Path) -> None:
    """A program that is not distributed but starts processes that compile: one log each, no rank."""
    (tmp_path / "dedicated_log_torch_trace_aa.log").write_text(compile_log(pid=101), encoding="utf-8")
    (tmp_path / "dedicated_log_torch_trace_bb.log").write_text(compile_log(pid=202), encoding="utf-8")
    import tracers

    assert sorted(tracers.load_ranks(tmp_path)) == [0, 1]
    result = run_python(["-m", "tracers", "report", str(tmp_path), "--out", str(tmp_path / "out")])
    assert result.returncode == 0 and "Traceback" not in result.stderr, result.stderr
    assert "process 101" in result.stderr and "process 202" in result.stderr and "Per process" in result.stderr


_CTRL_C_WHILE_READING = """
import os, signal, sys
from tracers.__main__ import main
from tracers.torchlogs import load

read = load.load_log


def load_log(*args):
    os.kill(os.getpid(), signal.SIGINT)  # Ctrl-C while the logs are read (the longest part of report DIR)
    return read(*args)


load.load_log = load_log
sys.exit(main(["report", sys.argv[1], "--out", sys.argv[2]]))
"""


def test_ctrl_c_while_reading_logs_is_one_line_and_exit_130(tmp_path):
    """Ctrl-C in the middle of ``report DIR``: one line, the shell's 130, no traceback and no half-written page."""
    directory = Path(__file__).resolve().parents[2] / "data" / "tlparse" / "inputs" / "multi_rank_runtime"
    result = run_python(["-c", _CTRL_C_WHILE_READING, str(directory), str(tmp_path)])
    assert result.returncode == 130, result.stderr[-3000:]
    assert "Traceback" not in result.stderr
    assert result.stderr.strip().splitlines()[-1].startswith("interrupted (Ctrl-C)")
    assert not list(tmp_path.iterdir())  # nothing written, nothing half written


@pytest.mark.parametrize("text", ['{"a": [1, 2.5, null]}', ' {"a": 1}', '{"a": 1} ', '{"a": 1}\r', '{"a": 1}{', "{",
                                  "", "\ufeff{}", '"x"', "1 2", "[" * 100_000 + "]" * 100_000, '{"a": NaN}', "{]"])
def test_fast_json_reads_as_json_loads(text):
    """The reader's JSON parse gives json.loads's value, or its error with its message."""
    from tracers.torchlogs.records import loads

    def outcome(parse):
        try:
            return "value", parse(text)
        except (ValueError, RecursionError) as error:
            return type(error).__name__, str(error)

    expected = outcome(json.loads)
    assert repr(outcome(loads)) == repr(expected)


def _with_pid(source: Path, target: Path, pid: int) -> None:
    """A fixture log rewritten as if process ``pid`` had written it (headers only: payloads and md5s unchanged)."""
    import re

    text = gzip.decompress(source.read_bytes()).decode("utf-8")
    target.write_text(re.sub(r"(?m)^([VIWEC]\d{4} [\d:.]+ )\d+ ", rf"\g<1>{pid} ", text), encoding="utf-8")


def test_draft_export_log_beside_the_compile_log_of_its_process_is_told_apart(tmp_path):
    """draft_export's log beside its process's compile log: each says what it is, never ``process N`` twice."""
    from tracers.torchlogs.merged_run import merged_run

    inputs = Path(__file__).resolve().parents[2] / "data" / "tlparse" / "inputs"
    _with_pid(inputs / "simple.log.gz", tmp_path / "dedicated_log_torch_trace_a1b2c3.log", 4242)
    _with_pid(inputs / "export.log.gz", tmp_path / "dedicated_log_torch_trace_d4e5f6.log", 4242)
    run = merged_run(load_logs(tmp_path), "logs")
    assert sorted(slot.name for slot in run.ranks) == ["process 4242 (torch.compile)", "process 4242 (torch.export)"]
    by_name = {slot.name: slot.source for slot in run.ranks}
    assert by_name["process 4242 (torch.export)"] == "dedicated_log_torch_trace_d4e5f6.log"
    # two compile logs of one pid (a pid reused): told apart by their files
    _with_pid(inputs / "cache_hit_miss.log.gz", tmp_path / "dedicated_log_torch_trace_g7h8i9.log", 4242)
    names = sorted(slot.name for slot in merged_run(load_logs(tmp_path), "logs").ranks)
    assert names == ["process 4242 (dedicated_log_torch_trace_a1b2c3.log)",
                     "process 4242 (dedicated_log_torch_trace_g7h8i9.log)", "process 4242 (torch.export)"]
    result = run_python(["-m", "tracers", "report", str(tmp_path), "--out", str(tmp_path / "out")])
    assert result.returncode == 0, result.stderr[-3000:]
    assert "process 4242 (torch.export)" in result.stderr

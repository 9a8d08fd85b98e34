"""One log's readings (issue 54 item 8): torch's wrapper is not the user's function, a non-strict export is no cut
log, torch's instant events and a link's name are kept, an export that made no program is no "ok", and a clean log
of many compiles keeps its verdict on the screen."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.tracers.torchlogs.test_messy import _record, _region, compile_log
from tracers.analysis.report_model import build_report
from tracers.analysis.trace_facts import analyze
from tracers.report.fragment import render_fragment, render_header
from tracers.report.options import PAGE_ARTIFACTS, RenderOptions
from tracers.terminal.summary import render_report
from tracers.terminal.style import Style
from tracers.torchlogs.load import load_logs

pytestmark = pytest.mark.pure

PLAIN = Style(False)
_WRAPPER = "/venv/lib/python3.12/site-packages/torch/_dynamo/external_utils.py"


def _load(tmp_path: Path, text: str):
    path = tmp_path / "dedicated_log_torch_trace_s1.log"
    path.write_text(text, encoding="utf-8")
    return load_logs(path)


def _wrapped_compile(fn_type: str) -> str:
    """torch.compile of a module of torch.nn: Dynamo compiles wrap_inline's ``inner``; its guards name ``fn``."""
    ids = {"frame_id": 0, "frame_compile_id": 0, "attempt": 0}
    guards = (f"TREE_GUARD_MANAGER:\n+- RootGuardManager\n| +- GuardManager: source=L['fn'], accessed_by="
              f"FrameLocalsGuardAccessor(key='fn', framelocals_idx=2), type=<class '{fn_type}'>, tag_safe=(False, False)")
    return "".join([
        _region("B", "dynamo", 1_000_000.0, "0/0", (0, 0)),
        _record({"dynamo_cpp_guards_str": {}, **ids}, guards),
        _record({"compilation_metrics": {"co_name": "inner", "co_filename": _WRAPPER, "co_firstlineno": 67}, **ids}),
        _region("E", "dynamo", 1_001_000.0, "0/0", (0, 0)),
    ])


def test_torchs_wrapper_frame_is_named_by_the_module_it_calls(tmp_path: Path) -> None:
    trace = _load(tmp_path, _wrapped_compile("torch.nn.modules.linear.Linear")).logs[0].trace
    [compile_] = analyze(trace).compiles
    assert compile_.frame == "Linear.forward (linear.py) via inner (external_utils.py:67)"


def test_torchs_wrapper_around_a_plain_function_keeps_its_own_name(tmp_path: Path) -> None:
    """The other side: a function's type names no function, so the frame is said as torch's own code."""
    trace = _load(tmp_path, _wrapped_compile("function")).logs[0].trace
    assert analyze(trace).compiles[0].frame == "inner (external_utils.py:67)"


def _describe(kind: str, stack_files: tuple[int, ...]) -> str:
    stack = [{"line": 5, "name": "<module>", "filename": stack_files[0]}] + \
        [{"line": 171, "name": "export", "filename": index} for index in stack_files[1:]]
    return _record({kind: {"id": 0, "describer_id": 0}, "stack": stack})


def test_a_non_strict_export_log_is_an_export_not_a_cut_log(tmp_path: Path) -> None:
    """A non-strict export logs only its fake tensors' descriptions, their stacks through torch/export/: an export
    log, finished, with nothing missing (it said "an older torch, or cut short")."""
    text = "".join([
        _record({"str": ["/srv/prog.py", 0]}),
        _record({"artifact": {"name": "torch_version", "encoding": "json"}}, json.dumps({"pytorch_version": "2.13.0"})),
        _record({"str": ["/venv/site-packages/torch/export/_trace.py", 1]}),
        _describe("describe_storage", (0, 1)), _describe("describe_tensor", (0, 1)), _describe("describe_source", (0, 1)),
    ])
    loaded = _load(tmp_path, text)
    assert not any("older torch" in note for note in loaded.notes())
    trace = loaded.logs[0].trace
    report = build_report(trace)
    text = render_report(report, PLAIN)
    assert text.splitlines()[0].startswith("torch.export log — ") and "Nothing was compiled" not in text
    assert "3 records made inside torch.export's call (a non-strict export logs no exported program)" in text


def test_describe_records_of_no_export_are_no_export(tmp_path: Path) -> None:
    """The other side: the same records from the user's own code (no torch/export/ frame) make no export part."""
    text = _record({"str": ["/srv/prog.py", 0]}) + _describe("describe_tensor", (0,))
    trace = _load(tmp_path, text).logs[0].trace
    assert "export" not in (trace.info.from_log or {})


def test_an_export_that_made_no_program_is_not_headed_ok(tmp_path: Path) -> None:
    """An export started (torch's start record) and no exported program after it: the terminal's and the page's
    heads say so."""
    text = _record({"str": ["/srv/prog.py", 0]}) + _record({"export": {}}, "start!")
    trace = _load(tmp_path, text).logs[0].trace
    head = render_report(build_report(trace), PLAIN).splitlines()[0]
    assert head.endswith("— 1 export made no program") and "— ok" not in head
    assert "1 export made no program" in render_header(trace)


def test_torchs_instant_events_are_kept_with_their_compile(tmp_path: Path) -> None:
    """automatic_dynamic and the cache events torch logs as instant events: records of their compile, fields kept."""
    event = {"name": "automatic_dynamic", "ts": 1_000_500.0, "ph": "i", "cat": "dynamo_timed", "tid": 0, "pid": 0,
             "s": "p", "args": {"name": "L['x']", "dim_changed": 0, "reason": "size change", "cached": "4",
                                "new": "5", "compile_id": "0/0"}}
    instant = _record({"chromium_event": {}, "frame_id": 0, "frame_compile_id": 0, "attempt": 0},
                      json.dumps(event, indent=0))
    text = compile_log().replace(_region("E", "dynamo", 1_002_000.0, "0/0", (0, 0)),
                                 instant + _region("E", "dynamo", 1_002_000.0, "0/0", (0, 0)))
    trace = _load(tmp_path, text).logs[0].trace
    [kept] = [artifact for artifact in trace.artifacts if artifact.name == "automatic_dynamic (instant event)"]
    assert kept.compile_id == "0/0" and kept.ts_ns == 1_000_500_000 and kept.kind == "debug"
    assert json.loads(kept.payload or "{}")["reason"] == "size change"
    assert "automatic_dynamic" not in trace.info.dropped_records
    page = render_fragment(trace, options=RenderOptions(artifacts=PAGE_ARTIFACTS))
    assert "automatic_dynamic (instant event)" in page and "size change" in page  # shown, as tlparse shows them


def test_a_link_keeps_its_name(tmp_path: Path) -> None:
    link = _record({"link": {"name": "manifold_url", "url": "https://example.com/x"},
                    "frame_id": 0, "frame_compile_id": 0, "attempt": 0})
    trace = _load(tmp_path, compile_log() + link).logs[0].trace
    [kept] = [artifact for artifact in trace.artifacts if artifact.name.startswith("link")]
    assert kept.name == "link manifold_url" and kept.metadata.get("url") == "https://example.com/x"
    assert "link manifold_url" in render_fragment(trace, options=RenderOptions(artifacts=PAGE_ARTIFACTS))


def _many_compiles(count: int) -> str:
    parts = [_record({"str": ["/srv/app/prog.py", 0]})]
    for frame in range(count):
        compile_id, ids, start = f"{frame}/0", {"frame_id": frame, "frame_compile_id": 0, "attempt": 0}, 1e6 + frame * 1e3
        parts += [
            _region("B", "dynamo", start, compile_id, (frame, 0)),
            _record({"dynamo_start": {"stack": [{"line": 3, "name": "<module>", "filename": 0, "loc": "run()"},
                                                {"line": frame + 1, "name": f"f{frame}", "filename": 0}]}, **ids}),
            _record({"dynamo_output_graph": {"sizes": {}}, **ids}, "class GraphModule(torch.nn.Module):\n    ..."),
            _record({"compilation_metrics": {"co_name": f"f{frame}", "co_filename": "/srv/app/prog.py",
                                             "co_firstlineno": frame + 1, "graph_op_count": 3}, **ids}),
            _region("E", "dynamo", start + 500, compile_id, (frame, 0)),
        ]
    return "".join(parts)


def test_a_clean_log_of_many_compiles_keeps_its_verdict_in_view(tmp_path: Path) -> None:
    """1,000 clean compiles: a bounded table that says how many more, and the verdict said again last."""
    trace = _load(tmp_path, _many_compiles(1000)).logs[0].trace
    lines = render_report(build_report(trace), PLAIN).splitlines()
    assert len(lines) < 80
    assert any("… 960 more compiles" in line for line in lines)
    assert sum("called from prog.py:3" in line for line in lines) == 1  # the same caller said once
    assert lines[-1].strip().startswith("No problems found: 1000 graphs")


def test_one_ranks_file_given_alone_says_nothing_of_the_other_ranks_logs(tmp_path: Path, capsys) -> None:
    """Rank 1's log of a 2-rank run given alone: read as that rank's trace, never "rank 0: no log in the directory"
    (only one file was given; the directory may hold rank 0's)."""
    from tracers.commands import main

    for rank in (0, 1):
        (tmp_path / f"dedicated_log_torch_trace_rank_{rank}_ab.log").write_text(compile_log(rank), encoding="utf-8")
    log = tmp_path / "dedicated_log_torch_trace_rank_1_ab.log"
    loaded = load_logs(log)
    assert loaded.one_file and not loaded.ranked
    assert loaded.logs[0].trace.info.rank["rank"] == 1 and loaded.logs[0].trace.info.rank["world_size"] is None
    assert main(["report", str(log), "--out", str(tmp_path / "out")]) == 0
    said = capsys.readouterr().err
    assert "no log" not in said and "rank 0" not in said and "fewer than two ranks" not in said, said
    assert "read from TORCH_TRACE log dedicated_log_torch_trace_rank_1_ab.log (rank 1)" in said
    assert (tmp_path / "out" / "dedicated_log_torch_trace_rank_1_ab.html").exists()
    assert load_logs(tmp_path).ranked and [log.rank for log in load_logs(tmp_path).logs] == [0, 1]  # the folder: both


def test_a_renamed_ranks_log_takes_its_rank_from_its_records(tmp_path: Path, capsys) -> None:
    """A log collected as ``rank1.log``: its name says no rank, its records do; report names that rank."""
    from tracers.commands import main

    log = tmp_path / "rank1.log"
    log.write_text(compile_log(1), encoding="utf-8")
    [read] = load_logs(log).logs
    assert read.rank == 1 and read.rank_conflict is None
    assert main(["report", str(log), "--out", str(tmp_path / "out")]) == 0
    said = capsys.readouterr().err
    assert "read from TORCH_TRACE log rank1.log (rank 1)" in said and "Traceback" not in said, said


def test_a_folder_of_renamed_rank_logs_is_read_by_their_records(tmp_path: Path) -> None:
    """Logs collected as ``rank0.log`` and ``rank1.log.gz``: the folder is read as the two ranks, each by its records;
    a ``.log`` that holds no record, and other files, stay foreign."""
    import gzip

    (tmp_path / "rank0.log").write_text(compile_log(0), encoding="utf-8")
    (tmp_path / "rank1.log.gz").write_bytes(gzip.compress(compile_log(1).encode()))
    (tmp_path / "notes.log").write_text("the run went fine\n", encoding="utf-8")
    loaded = load_logs(tmp_path)
    assert loaded.ranked and [log.rank for log in loaded.logs] == [0, 1]

"""merge and report on a merge (issues 42 and 44): the same summary by either door, --open with no browser as
everywhere, clocks far apart said and every rank kept, error lines that show an input's escape sequences."""

from __future__ import annotations

import gzip
import json
import shutil

import pytest

from tracers.commands import browser, main
from tracers.ranks.clock import REASONABLE_NS, align
from tracers.ranks.merge import MergeError, load_merged
from tracers.tracefile.events import RunInfo

from tests.conftest import ROOT, run_python

pytestmark = pytest.mark.pure

RECORDED = ROOT / "docs" / "_traces" / "cpu" / "2.13.0"
RANK_LOGS = ROOT / "tests" / "data" / "tlparse" / "graph_exec_order_tests"
ESCAPES = "\x1b]0;owned\x07\x1b[2J"
FAR_NS = 1 << 62  # a wall clock read as 2116 (beside one of 2026: 89 years apart), or 146 years past 1970


def _ranks(where, hosts=("vm", "vm"), wall_ns=None):
    """The recorded rank_divergent run's two rank traces, copied; their hosts and rank 1's wall clock as given."""
    where.mkdir(parents=True, exist_ok=True)
    for rank, host in enumerate(hosts):
        name = f"rank_divergent-cpu-cold-rank{rank}.json"
        data = json.loads((RECORDED / name).read_text())
        info = data["otherData"]["torch_compile_walkthrough"]
        info["rank"]["host"] = host
        if rank == 1 and wall_ns is not None:
            info["clock"]["wall_ns"] = wall_ns
        (where / name).write_text(json.dumps(data))
    return where


def _info(rank: int, host: str, perf: int, wall: int) -> RunInfo:
    info = RunInfo(1, "t", "2.13.0", "", "3.11", "Linux", "cpu", "", "cold", [], "")
    info.rank = {"rank": rank, "host": host, "world_size": 3}
    info.clock = {"perf_ns": perf, "wall_ns": wall}
    return info


def _summary(stderr: str) -> list[str]:
    """The summary's own lines, from its heading on: without the notes on reading before it and the files it names
    as written."""
    lines = stderr.splitlines()
    start = next(index for index, line in enumerate(lines) if line.startswith("torch.compile across ranks"))
    return [line for line in lines[start:] if not line.startswith(("report:", "merge:", "Written "))]


def test_report_of_a_merge_prints_the_summary_its_logs_got(tmp_path):
    logs = tmp_path / "logs"
    shutil.copytree(RANK_LOGS, logs)
    first = run_python(["-m", "tracers", "report", str(logs), "--out", str(tmp_path / "a")])
    assert first.returncode == 0, first.stderr
    merged = next((tmp_path / "a").glob("*-ranks.json"))
    again = run_python(["-m", "tracers", "report", str(merged), "--out", str(tmp_path / "b")])
    assert again.returncode == 0, again.stderr
    assert "torch.compile across ranks" in again.stderr and "Per rank" in again.stderr
    assert _summary(again.stderr) == _summary(first.stderr)  # one report model, one view, either door
    page = tmp_path / "b" / merged.with_suffix(".html").name
    assert again.stdout.strip() == str(page) and f"Written {page}" in again.stderr


def test_merge_open_with_no_browser_prints_the_path_and_a_line_scripts_match(tmp_path, monkeypatch, capsys):
    ranks = _ranks(tmp_path / "run")
    monkeypatch.setattr(browser.webbrowser, "open", lambda url: False)
    status = main(["merge", str(ranks), "--open"])
    out, err = capsys.readouterr()
    page = ranks / "rank_divergent-cpu-cold-ranks.html"
    assert status == browser.NO_BROWSER != 0
    assert out.strip() == str(page) and page.exists()
    assert err.strip().splitlines()[-1].startswith(browser.NO_BROWSER_LINE)
    monkeypatch.setattr(browser.webbrowser, "open", lambda url: True)
    assert main(["merge", str(ranks), "--open"]) == 0
    capsys.readouterr()
    assert main(["merge", str(ranks)]) == 0 and capsys.readouterr().out.strip() == str(page)  # the path, always


def test_clocks_far_apart_are_said_and_every_rank_kept_by_merge_and_report(tmp_path):
    ranks = _ranks(tmp_path / "run", hosts=("host-a", "host-b"), wall_ns=FAR_NS)
    merged = run_python(["-m", "tracers", "merge", str(ranks)])
    assert merged.returncode == 0, merged.stderr
    warning = "warning: the ranks' clocks disagree beyond reason (the hosts' wall clocks put the ranks' starts 89 years apart)"
    assert f"merge: {warning}" in merged.stderr and "every rank is kept" in merged.stderr
    path = ranks / "rank_divergent-cpu-cold-ranks.json"
    run = load_merged(path)
    assert [rank.trace is not None for rank in run.ranks] == [True, True]
    assert max(run.alignment.offsets_ns.values()) - min(run.alignment.offsets_ns.values()) < REASONABLE_NS * 10
    reported = run_python(["-m", "tracers", "report", str(path), "--out", str(tmp_path / "page")])
    assert reported.returncode == 0, reported.stderr
    assert f"report: {warning}" in reported.stderr
    assert "left out" not in reported.stderr and "damaged" not in reported.stderr  # rank 0 was dropped as damaged
    assert "ended                                   ok          ok" in reported.stderr


def test_a_merge_placed_a_century_apart_by_an_earlier_version_reads_back_whole(tmp_path):
    ranks = _ranks(tmp_path / "run")
    assert run_python(["-m", "tracers", "merge", str(ranks), "--no-page"]).returncode == 0
    path = ranks / "rank_divergent-cpu-cold-ranks.json"
    raw = json.loads(path.read_text())
    far_us = FAR_NS / 1000
    for event in raw["traceEvents"]:  # rank 1 moved 146 years on, as a merge on the hosts' wall clocks put it
        if event.get("pid") == 1 and "ts" in event:
            event["ts"] += far_us
    raw["ranks"][1]["shift_us"] += far_us
    path.write_text(json.dumps(raw))
    run = load_merged(path)
    assert [rank.trace is not None for rank in run.ranks] == [True, True]
    assert run.alignment.disagreement and "apart" in run.alignment.disagreement
    assert len(run.ranks[1].trace.spans) == len(load_merged(ranks / "rank_divergent-cpu-cold-ranks.json").ranks[1]
                                                .trace.spans)


def test_alignment_by_starts_keeps_a_host_s_ranks_together_and_says_why():
    infos = {0: _info(0, "a", 1_000, 10_000), 1: _info(1, "a", 1_500, 10_600), 2: _info(2, "b", 50, FAR_NS)}
    alignment = align(infos, {0: 2_000, 1: 2_700, 2: 80})
    # rank 0 and 1 share host a's clock (700 ns apart, as they were); host b's rank starts with rank 0
    assert alignment.offsets_ns == {0: -2_000, 1: -2_000, 2: -80}
    assert "the hosts' wall clocks put the ranks' starts 146 years apart" in alignment.disagreement
    agreeing = align({0: _info(0, "a", 1_000, 10_000), 1: _info(1, "b", 50, 10_100)})
    assert agreeing.disagreement is None and agreeing.offsets_ns == {0: 9_000, 1: 10_050}


def test_merge_errors_show_an_input_s_escape_sequences_instead_of_obeying_them(tmp_path):
    missing = run_python(["-m", "tracers", "merge", str(tmp_path / f"no{ESCAPES}such")])
    assert missing.returncode == 2 and "\x1b" not in missing.stderr and "\x07" not in missing.stderr
    assert "\\x1b]0;owned\\x07" in missing.stderr and len(missing.stderr.strip().splitlines()) == 1
    other = _ranks(tmp_path / "mixed")
    (other / "rank_divergent-cpu-cold-rank1.json").rename(other / f"x{ESCAPES}-cpu-cold-rank1.json")
    mixed = run_python(["-m", "tracers", "merge", str(other / "rank_divergent-cpu-cold-rank0.json"),
                        str(other / f"x{ESCAPES}-cpu-cold-rank1.json")])
    assert mixed.returncode == 2 and "different runs" in mixed.stderr and "\x1b" not in mixed.stderr
    assert str(MergeError(f"a{ESCAPES}\nb")) == "a\\x1b]0;owned\\x07\\x1b[2J\\x0ab"  # one line, shown


def test_report_errors_show_a_typed_path_s_escape_sequences(tmp_path):
    result = run_python(["-m", "tracers", "report", str(tmp_path / f"t{ESCAPES}.json")])
    assert result.returncode == 2 and "\x1b" not in result.stderr and "\\x1b" in result.stderr
    diffed = run_python(["-m", "tracers", "diff", str(tmp_path / f"a{ESCAPES}.json"), str(tmp_path / "b.json")])
    assert diffed.returncode == 2 and "\x1b" not in diffed.stderr


def test_trace_nproc_open_with_no_browser_says_so_and_keeps_the_ranks_status(tmp_path, monkeypatch, capsys):
    from types import SimpleNamespace

    from tracers.commands.trace_launch import merge_run

    ranks = _ranks(tmp_path / "run")
    monkeypatch.setattr(browser.webbrowser, "open", lambda url: False)
    options = SimpleNamespace(page=True, quiet=True, site=None, open_page=True)
    assert merge_run(ranks, "rank_divergent", "cold", 2, since=0, options=options) == 0
    assert capsys.readouterr().err.strip().splitlines()[-1].startswith(browser.NO_BROWSER_LINE)


def test_a_shift_within_a_run_s_length_reads_back_as_written(tmp_path):
    """A process that started hours after the first (a child of a long run) is placed where the merge put it."""
    raw = json.loads((RECORDED / "rank_divergent-cpu-cold-ranks.json").read_text())
    hours_us = 2 * 3600e6
    for event in raw["traceEvents"]:
        if event.get("pid") == 1 and "ts" in event:
            event["ts"] += hours_us
    raw["ranks"][1]["shift_us"] += hours_us
    path = tmp_path / "late-cpu-cold-ranks.json"
    path.write_text(json.dumps(raw))
    run = load_merged(path)
    assert run.alignment.disagreement is None
    moved = {rank: run.alignment.offsets_ns[rank] + run.ranks[rank].trace.spans[0].start_ns for rank in (0, 1)}
    before = load_merged(RECORDED / "rank_divergent-cpu-cold-ranks.json")
    was = {rank: before.alignment.offsets_ns[rank] + before.ranks[rank].trace.spans[0].start_ns for rank in (0, 1)}
    assert abs((moved[1] - moved[0]) - (was[1] - was[0]) - hours_us * 1000) < 1e6  # within a millisecond


def test_merge_of_torch_s_own_logs_points_to_report(tmp_path):
    """A TORCH_TRACE folder or log given to merge: one line naming the command that reads it (issue 54)."""
    folder = tmp_path / "torch_trace"
    folder.mkdir()
    log = folder / "dedicated_log_torch_trace_rank_0_ab12cd.log"
    log.write_text("", encoding="utf-8")
    for given, said in ((folder, f"`report {folder}` reads them and compares the ranks"),
                        (log, f"`report {log}` reads it")):
        result = run_python(["-m", "tracers", "merge", str(given)])
        assert result.returncode == 2 and said in result.stderr, result.stderr
        assert len(result.stderr.strip().splitlines()) == 1


def test_merge_of_a_renamed_torch_log_points_to_report(tmp_path):
    """A TORCH_TRACE log collected under another name (``rank1.log``, gzipped too) is known by its records: one line
    naming report, which takes its rank from them, never "not valid JSON" (issue 54)."""
    from tests.tracers.torchlogs.test_messy import compile_log

    plain, packed = tmp_path / "rank1.log", tmp_path / "rank0.log.gz"
    plain.write_text(compile_log(1), encoding="utf-8")
    packed.write_bytes(gzip.compress(compile_log(0).encode()))
    for given in (plain, packed):
        result = run_python(["-m", "tracers", "merge", str(given)])
        assert result.returncode == 2 and "Traceback" not in result.stderr, result.stderr
        assert result.stderr.strip().splitlines() == [
            f"merge: {given}: a TORCH_TRACE log of torch's, not a rank trace of this tool's: `report {given}` reads it"]
    both = run_python(["-m", "tracers", "merge", str(plain), str(packed)])
    assert both.returncode == 2 and len(both.stderr.strip().splitlines()) == 1, both.stderr
    assert "2 TORCH_TRACE logs" in both.stderr and "`report DIR` reads a directory of them" in both.stderr

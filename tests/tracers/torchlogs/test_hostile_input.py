"""Hostile input to ``report``: no hang, no crash, no local file read on a log's say-so, bounded memory.

Seeded mutations of small real traces and TORCH_TRACE logs (tests/hostile.py) and special files, each reported
in one process; and the files a log names as its code's source, watched with an audit hook."""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import random
import time
from pathlib import Path


from tests.conftest import run_python
from tests.hostile import LOG_SEED, dumps
from tracers.torchlogs.load import load_logs
import pytest

pytestmark = pytest.mark.pure

CASES = 300
PEAK_RSS_MB = 1500  # the reader holds the trace it builds, never a whole device, pipe or line without end
# A new seed each run, so that each run tries other mutations; HOSTILE_SEED=N repeats a run (every failure names it).
SEED = int(os.environ.get("HOSTILE_SEED") or random.SystemRandom().randrange(1 << 31))


def test_mutated_traces_and_logs_and_special_files_end_in_one_line_never_a_traceback(tmp_path: Path) -> None:
    # One process for every case (a per-case alarm inside is the hang detector; this timeout only backs it up).
    started = time.monotonic()
    result = run_python(["-m", "tests.hostile", str(tmp_path), str(SEED), str(CASES)], timeout=1200)
    took = time.monotonic() - started
    seed = f"seed {SEED} (HOSTILE_SEED={SEED} repeats it)"
    assert result.returncode == 0, f"{seed}\n{result.stderr[-3000:]}"
    rows = [json.loads(line) for line in result.stdout.splitlines()]
    assert len(rows) > CASES, seed  # the mutations, then the special files
    failures = []
    for row in rows:
        wrong = []
        if row["status"] not in (0, 2):
            wrong.append(f"exit {row['status']}: {row.get('escaped')}\n{row.get('where', '')}")
        if row["traceback"]:
            wrong.append(f"a traceback printed: {row['stderr']}")
        if row["negative"] or row["negative_durations"]:
            wrong.append(f"negative time or count: {row['negative']} ({row['negative_durations']} events)")
        if row["escape"]:
            wrong.append(f"an escape sequence from the input reached the terminal: {row['stderr'][-300:]!r}")
        if row["input_changed"]:
            wrong.append("the input was written over")
        if row.get("outside"):
            wrong.append(f"written outside the folder it was given: {row['outside'][:3]}")
        if wrong:
            failures.append(f"{row['case']}: " + "; ".join(wrong))
    assert not failures, f"{seed}\n" + "\n".join(failures[:10])
    assert max(row["peak_rss_mb"] for row in rows) < PEAK_RSS_MB, (seed, [
        (row["case"], row["peak_rss_mb"]) for row in rows if row["peak_rss_mb"] >= PEAK_RSS_MB][:3])
    # No wall-clock bound asserted (a busy machine is not a bug): a case that hangs is caught by hostile.py's alarm.
    print(f"fuzz: {len(rows)} cases in {took:.0f} s (seed {seed}); slowest:",
          sorted((row["seconds"], row["case"]) for row in rows)[-3:])
    by_case = {row["case"]: row for row in rows}
    # The special files: refused at once with what they are, or read as what they are.
    said = {name: row["said"] for name, row in by_case.items()}  # every case by name, the seeded mutations too
    for name in ("fifo as trace.json", "fifo as dedicated_log_torch_trace_x.log", "a socket"):
        assert by_case[name]["status"] == 2 and "not a regular" in said[name], said[name]
    assert "character device" in said["/dev/zero as zero.json"]
    assert "character device" in said["/dev/zero as dedicated_log_torch_trace_zero.log"]
    assert "loop of symbolic links" in said["a symlink loop"]
    assert "loop of symbolic links" in said["a symlink loop named as a log"]
    assert by_case["a 3 GB file"]["status"] == 2
    assert by_case["a fifo among rank logs"]["status"] == 0  # the pipe is passed over, the other rank read
    assert "not gzip" in said["a plain log named .gz"] and by_case["a plain log named .gz"]["status"] == 0
    assert by_case["a renamed log with a BOM"]["status"] == 0
    assert by_case["a renamed log with a damaged first line"]["status"] == 0
    assert "cannot write" not in said["a symlink loop"]
    # Round 2 (issue 44): bombs and floods stop at the bounds (tests/hostile.py: BOUNDS) or cost nothing, kernel
    # files are refused, no page is written over its input, a growing log ends.
    for name in ("24 MB of newlines gzipped", "whitespace lines gzipped"):
        assert by_case[name]["status"] == 0 and "blank lines" in said[name], said[name]
    for name in ("a 1 GB gzip of lines", "a gzip of junk lines", "a 1 GB gzip of NULs"):
        assert "stopped after" in said[name] and "TRACERS_MAX_READ_BYTES=" in said[name], said[name]
    assert "refused before parsing" in said["a JSON of millions of empty lists"]
    for name in by_case:
        if name.startswith("/proc/"):
            assert by_case[name]["status"] == 2, said[name]
    for name in ("/proc/self/status as dedicated_log_torch_trace_status.log", "/proc/self/status as status.json",
                 "/proc/kmsg as kmsg.json"):
        assert "kernel filesystem" in said[name], said[name]  # refused unread, not read as "text that is not JSON"
    for name in ("overwrite: a trace named .html", "overwrite: a merged trace named .html"):
        assert by_case[name]["status"] == 2 and "written over this input" in said[name], said[name]
    assert by_case["growing: a log appended while it is read"]["status"] == 0
    # Round 3: clocks far apart are said, and every rank kept, by merge and by report on a merge read back; a name
    # or typed path holding escape sequences is shown escaped in the one line that names it.
    for name in ("merge: hosts decades apart", "merge: a host without a clock anchor",
                 "a merge placed a century apart"):
        assert by_case[name]["status"] == 0 and "clocks disagree beyond reason" in said[name], said[name]
        assert "damaged" not in said[name] and "clock shift" not in said[name], said[name]
    for name in ("merge: escape sequences in a rank file's name", "merge: a missing input named with escape sequences",
                 "a typed path with escape sequences"):
        assert by_case[name]["status"] == 2 and "\\x1b]0;owned\\x07" in said[name], said[name]
    assert any(row["case"].split(" ")[1] == "merge" for row in rows)  # mutated rank traces merged, in the rotation
    # What the mutations did is said, not silently read: each kind of damage met shows in the warning (where this
    # seed made a case of that kind).
    for kind, words in (("cycle:", "parent links cut"), ("version:", "is not a format version"),
                        ("twice", "repeated records"), ("order:", "out of time order"),
                        ("rank=100000000", "rank out of range")):
        made = [row for row in rows if kind in row["case"]]
        assert not made or any(words in row["said"] for row in made), (seed, kind, words)
    truncated = [row for row in rows if "truncate@" in row["case"]]
    assert len(truncated) < 5 or any("not valid JSON" in row["said"] for row in truncated), seed


def _log(co_filename: str, first_line: int = 1) -> str:
    """A real log's first records with a compile's metrics naming ``co_filename`` as its code's file."""
    text = gzip.open(LOG_SEED, "rt", encoding="utf-8").read()
    metrics = {"compilation_metrics": {"co_name": "forward", "co_filename": co_filename, "co_firstlineno": first_line,
                                       "graph_op_count": 1}, "frame_id": 0, "frame_compile_id": 0, "attempt": 0}
    head = text.split("\n")[:40]
    records = [index for index, line in enumerate(head) if line.startswith("V")]
    kept = "\n".join(head[:records[-1]]) + "\n"
    return kept + f"V1125 15:42:41.700000 456 torch/_dynamo/utils.py:1] {dumps(metrics)}\n"


# Run in a process of its own: an audit hook cannot be removed, and one left in the test process runs inside every
# later open and import (Dynamo is then offered its frame in other tests' compiles).
_WATCHED_READ = """
import json, os, sys
from pathlib import Path
from tracers.torchlogs.load import load_logs

seen = []
sys.addaudithook(lambda event, args: seen.append(os.fsdecode(args[0])) if event == "open" and args
                 and isinstance(args[0], (str, bytes, os.PathLike)) else None)
logs, name = Path(sys.argv[1]), sys.argv[2]
loaded = load_logs(logs)
metrics = [a.metadata.get("co_filename") for a in loaded.logs[0].trace.artifacts
           if a.kind == "metrics" and a.metadata.get("co_name")]
print(json.dumps({"records": [log.trace.info.from_log["records"] for log in loaded.logs], "opened": seen,
                  "co_filenames": metrics}))
"""


def test_a_log_naming_local_files_as_its_code_does_not_make_the_reader_open_them(tmp_path: Path) -> None:
    fifo = tmp_path / "elsewhere" / "fifo.py"
    fifo.parent.mkdir()
    os.mkfifo(fifo)
    for name in ("/etc/passwd", "/dev/zero", str(fifo), "/proc/self/environ"):
        logs = tmp_path / hashlib.md5(name.encode()).hexdigest()
        logs.mkdir()
        (logs / "dedicated_log_torch_trace_x.log").write_text(_log(name), encoding="utf-8")
        # The current directory is an allowed source root: an empty one here.
        result = run_python(["-c", _WATCHED_READ, str(logs), name], cwd=logs, timeout=120)
        assert result.returncode == 0, result.stderr[-2000:]
        found = json.loads(result.stdout.splitlines()[-1])
        assert [count > 0 for count in found["records"]] == [True]
        assert name not in found["opened"] and str(Path(name).resolve()) not in found["opened"], found["opened"]
        assert found["co_filenames"][:1] == [name]  # kept as the log says, never read


def test_a_source_under_an_allowed_root_names_the_frame_by_its_class(tmp_path: Path, monkeypatch) -> None:
    """The control: the same log naming a real file gets its qualified name when the user allows its directory
    (``--source-root``), and only the log's co_name when not."""
    monkeypatch.chdir(tmp_path / "..")
    project = tmp_path / "project"
    project.mkdir()
    (project / "model.py").write_text("class Net:\n    def forward(self, x):\n        return x\n", encoding="utf-8")
    logs = tmp_path / "logs"
    logs.mkdir()
    (logs / "dedicated_log_torch_trace_x.log").write_text(_log(str(project / "model.py"), 2), encoding="utf-8")
    frame = lambda roots: load_logs(logs, roots=roots).logs[0].trace.spans[0].frame  # noqa: E731
    assert frame((project.resolve(),)) == "Net.forward (model.py:2)"
    assert frame((tmp_path.resolve() / "logs",)) == "forward (model.py:2)"
    for given, shown in (([], "forward (model.py:2)"), (["--source-root", str(project)], "Net.forward (model.py:2)")):
        result = run_python(["-m", "tracers", "report", str(logs), "--out", str(tmp_path / "out"), *given], cwd=logs)
        assert result.returncode == 0, result.stderr
        page = Path(result.stdout.strip()).read_text(encoding="utf-8")
        assert shown in page and ("Net.forward" in page) == bool(given)

"""Reading is bounded (issue 44): a log's text stops at a size and a time bound with one line saying how much was
read, the bound and how to raise it; runs of blank lines cost nothing; kernel files (/proc, /sys) are refused like
FIFOs; a file that grows while it is read is read as it was when opened."""

from __future__ import annotations

import gzip
import os
import subprocess
from pathlib import Path

import pytest

from tests.conftest import run_python
from tests.hostile import LOG_SEED, _seed_log, _text
from tracers.__main__ import main
from tracers.torchlogs.load import LogError, load_logs
from tracers.torchlogs.records import Problems, read_records
from tracers.torchlogs.streams import STOPPED, open_log
from tracers.vocabulary import reading
from tracers.vocabulary.reading import READ_BYTES_ENV, READ_SECONDS_ENV, ReadError, log_limits, open_input, read_text
from tracers.vocabulary.sites import MARKER, SiteMarker

pytestmark = pytest.mark.pure


def _members(chunk: bytes, times: int) -> bytes:
    """A gzip that expands to ``chunk`` ``times`` over: one member compressed once, repeated (gzip reads them all)."""
    return gzip.compress(chunk, 9) * times


def test_the_bounds_are_settable_and_a_bad_setting_keeps_the_default(monkeypatch):
    monkeypatch.delenv(READ_BYTES_ENV, raising=False)
    monkeypatch.delenv(READ_SECONDS_ENV, raising=False)
    assert log_limits() == (reading.MAX_LOG_BYTES, reading.MAX_READ_SECONDS)
    for given, expected in (("500M", 500_000_000), ("2G", 2_000_000_000), ("3gb", 3_000_000_000), ("12345", 12345),
                            ("1e6", 1_000_000), ("many", reading.MAX_LOG_BYTES), ("-5", reading.MAX_LOG_BYTES),
                            ("inf", reading.MAX_LOG_BYTES), ("", reading.MAX_LOG_BYTES)):
        monkeypatch.setenv(READ_BYTES_ENV, given)
        assert log_limits()[0] == expected, given
    monkeypatch.setenv(READ_SECONDS_ENV, "2.5")
    assert log_limits()[1] == 2.5


def test_a_gzip_of_24_mb_of_newlines_is_counted_and_passed_over(tmp_path: Path):
    log = tmp_path / "dedicated_log_torch_trace_blank.log.gz"
    log.write_bytes(gzip.compress(_text(_seed_log(LOG_SEED)).encode() + b"\n" * 24_000_000 + b" \t \r\n" * 500_000, 9))
    assert log.stat().st_size < 200_000
    loaded = load_logs(log)  # skipped in C (about 0.3 s here): timed in no test, as a busy machine is not a bug
    problems = loaded.logs[0].problems
    assert problems.counts["blank line"] == 24_500_000 and loaded.logs[0].trace.spans


def test_a_gzip_bomb_stops_at_the_size_bound_with_one_line(tmp_path: Path, monkeypatch, capsys):
    monkeypatch.setenv(READ_BYTES_ENV, "50M")
    log = tmp_path / "dedicated_log_torch_trace_bomb.log.gz"
    log.write_bytes(gzip.compress(_text(_seed_log(LOG_SEED)).encode(), 9) + _members((b"x" * 999 + b"\n") * 8192, 125))
    assert log.stat().st_size < 3_000_000  # 1 GB of text inside
    assert main(["report", str(log), "--out", str(tmp_path / "out")]) == 0  # the records before the junk: a page
    said = capsys.readouterr().err
    lines = said.splitlines()
    notes = lines[next(i for i, line in enumerate(lines) if line.startswith("report: warning:")):]
    warning = next(line for line in notes if "stopped after" in line)  # one note of the warning's, one line
    assert "stopped after 50.0 MB of text, the bound" in warning and f"{READ_BYTES_ENV}=" in warning, warning
    assert "Traceback" not in said


def test_a_bomb_with_no_record_says_where_reading_stopped(tmp_path: Path, monkeypatch, capsys):
    monkeypatch.setenv(READ_BYTES_ENV, "20M")
    log = tmp_path / "dedicated_log_torch_trace_bomb.log.gz"
    log.write_bytes(_members(b"\x00" * (1 << 20), 1000))  # 1 GB of NULs, no newline at all
    assert main(["report", str(log), "--out", str(tmp_path / "out")]) == 2
    said = capsys.readouterr().err.strip()
    assert said.count("\n") == 0 and "no readable TORCH_TRACE record" in said and "20.0 MB" in said, said


def test_reading_stops_at_the_time_bound(tmp_path: Path, monkeypatch):
    monkeypatch.setenv(READ_SECONDS_ENV, "1")
    log = tmp_path / "dedicated_log_torch_trace_junk.log"
    log.write_bytes(_text(_seed_log(LOG_SEED)).encode() + b"V\n" * 20_000_000)  # 20M corrupt lines, each visited
    loaded = load_logs(log)  # without the bound: about 20 s of visiting corrupt lines
    problems = loaded.logs[0].problems
    assert problems.counts[STOPPED] == 1 and f"{READ_SECONDS_ENV}=" in problems.first[STOPPED]
    assert "stopped after 1 s, the bound" in problems.first[STOPPED]
    assert loaded.logs[0].trace.spans  # what came before is read


def test_a_record_cut_by_a_bound_is_dropped_as_truncated_not_kept_damaged(tmp_path: Path, monkeypatch):
    text = _text(_seed_log(LOG_SEED)).encode()
    monkeypatch.setenv(READ_BYTES_ENV, str(len(text) // 2))
    log = tmp_path / "dedicated_log_torch_trace_x.log"
    log.write_bytes(text * 2)
    problems = Problems()
    records = list(read_records(log, problems))
    assert records and problems.counts[STOPPED] == 1 and not problems.counts["damaged payload"]


@pytest.mark.parametrize("path", ["/proc/kmsg", "/proc/self/status", "/proc/self/environ",
                                  "/sys/kernel/mm/transparent_hugepage/enabled"])
def test_kernel_files_are_refused_like_fifos(path: str, tmp_path: Path):
    if not os.path.exists(path):
        pytest.skip(f"no {path} here")
    with pytest.raises(ReadError, match="kernel filesystem"):
        open_input(Path(path))
    link = tmp_path / "dedicated_log_torch_trace_k.log"
    link.symlink_to(path)
    with pytest.raises(LogError, match="kernel filesystem"):
        load_logs(link)
    trace = tmp_path / "t.json"
    trace.symlink_to(path)
    try:  # in a process of its own: a read of /proc/kmsg blocks until the kernel logs something
        result = run_python(["-m", "tracers", "report", str(trace), "--out", str(tmp_path / "out")], timeout=30)
    except subprocess.TimeoutExpired:
        pytest.fail(f"report {path} (as t.json) still running after 30 s: something opened it")
    assert result.returncode == 2 and "kernel filesystem" in result.stderr, result.stderr


def test_a_marker_that_is_a_fifo_or_a_kernel_file_is_no_site(tmp_path: Path):
    for name, make in (("fifo", os.mkfifo), ("proc", lambda path: path.symlink_to("/proc/self/status"))):
        site = tmp_path / name
        site.mkdir()
        (site / "index.html").write_text("<html></html>", encoding="utf-8")
        make(site / MARKER)
        assert SiteMarker.read(site) is None  # refused unread: a read of the FIFO would block here


def test_a_growing_file_is_read_as_it_was_when_opened(tmp_path: Path):
    text = _text(_seed_log(LOG_SEED)).encode()
    log = tmp_path / "dedicated_log_torch_trace_growing.log"
    log.write_bytes(text)
    with open_log(log) as lines:
        with open(log, "ab") as writer:  # a writer appending faster than it is read
            writer.write(text * 20)
        read = b"".join(lines.blocks())
    assert read == text
    plain = tmp_path / "t.json"
    plain.write_text("{}", encoding="utf-8")
    with open_input(plain) as stream, open(plain, "a", encoding="utf-8") as writer:
        writer.write(" " * 1000)
        writer.flush()
        assert stream.read() == b"{}"
    assert read_text(plain) == "{}" + " " * 1000  # a new read sees the file as it is now


def test_a_gzip_that_grows_is_read_up_to_its_size_at_the_start(tmp_path: Path):
    first = _text(_seed_log(LOG_SEED)).encode()
    log = tmp_path / "dedicated_log_torch_trace_growing.log.gz"
    log.write_bytes(gzip.compress(first))
    with open_log(log) as lines:
        with open(log, "ab") as writer:
            writer.write(gzip.compress(b"more\n" * 1000))
        assert b"".join(lines.blocks()) == first

"""Paths from inputs (issue 44): a trace's torch version names a cache folder only when it is a release; ``report``
never writes over its input; the scrubber replaces a machine prefix only where a path starts; a directory of logs
that cannot be read is one line and exit 2."""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import os
import shutil
import tempfile
from pathlib import Path

import pytest

from tests.conftest import ROOT, run_python
from tracers.__main__ import main
from tracers.report.links import chapter_site
from tracers.tracefile.chrome import TOOL_KEY
from tracers.tracefile.scrub import scrub
from tracers.vocabulary import sites
from tracers.vocabulary.sites import MARKER, SiteMarker, is_release, user_site

pytestmark = pytest.mark.pure

TRACES = ROOT / "docs" / "_traces" / "cpu" / "2.13.0"
LOG = TRACES / "graph_breaks_torch_trace-cpu-cold.log.gz"


def _report(*args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main(["report", *args])
    return status, out.getvalue(), err.getvalue()


def _site(folder: Path, release: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "index.html").write_text("<html></html>", encoding="utf-8")
    SiteMarker(release, release, "abc", "0.1.0").write(folder)
    return folder


def test_the_release_grammar():
    for good in ("2.13.0", "2.6.0rc1", "2.12.0.dev20260101", "2.11", "2.5.1.post1"):
        assert is_release(good), good
    for bad in ("", "2", "../..", "/etc", "2.13.0/../../x", "2.13.0+cpu", "٢.١٣.٠", "2.13.0\n", "2.13.0 ", None, 2.13,
                "2.13.0\x00", "C:\\x", "~/x"):
        assert not is_release(bad), bad


def test_a_trace_version_that_is_no_release_names_no_folder(tmp_path: Path, monkeypatch):
    cache = tmp_path / "cache"
    monkeypatch.setenv(sites.CACHE_ENV, str(cache))
    monkeypatch.chdir(tmp_path)  # no build/html here
    _site(cache / "site" / "2.13.0", "2.13.0")
    assert user_site("2.13.0+cpu") == cache / "site" / "2.13.0"  # the control: a real release is found
    # a site planted where a version that is a path would lead: never used
    elsewhere = _site(tmp_path / "elsewhere", "2.13.0")
    for version in (str(elsewhere), "../../elsewhere", "../../elsewhere+cpu", f"{elsewhere}/../elsewhere"):
        assert user_site(version) is None, version
        base, note = chapter_site(None, version)
        assert base is None and "(unknown)" in note, (version, note)
    # a link out of the cache root named as a release is not followed either
    (cache / "site" / "2.14.0").symlink_to(_site(tmp_path / "linked", "2.14.0"))
    assert user_site("2.14.0") is None


def test_a_trace_whose_version_is_a_path_to_a_fifo_reports_at_once(tmp_path: Path, monkeypatch):
    monkeypatch.setenv(sites.CACHE_ENV, str(tmp_path / "cache"))
    monkeypatch.chdir(tmp_path)
    trap = tmp_path / "trap"
    trap.mkdir()
    os.mkfifo(trap / MARKER)
    (trap / "index.html").write_text("x", encoding="utf-8")
    data = json.loads((TRACES / "mlp-cpu-cold.json").read_text(encoding="utf-8"))
    data["otherData"][TOOL_KEY]["torch_version"] = str(trap)
    (tmp_path / "t.json").write_text(json.dumps(data), encoding="utf-8")
    status, out, err = _report(str(tmp_path / "t.json"), "--out", str(tmp_path / "out"))
    assert status == 0, err
    assert trap.as_uri() not in Path(out.strip()).read_text(encoding="utf-8")  # no chapter link into it


def test_report_never_writes_over_its_input(tmp_path: Path):
    for source, name in ((TRACES / "mlp-cpu-cold.json", "t.html"), (TRACES / "rank_divergent-cpu-cold-ranks.json",
                                                                   "run-cpu-cold-ranks.html")):
        given = tmp_path / name
        shutil.copy(source, given)
        before = hashlib.md5(given.read_bytes()).hexdigest()
        status, out, err = _report(str(given))
        assert status == 2 and "written over this input" in err and err.count("\n") == 1, err
        assert hashlib.md5(given.read_bytes()).hexdigest() == before
        # the same, reached through a link, or with --out naming its own folder
        link = tmp_path / "link.html"
        link.unlink(missing_ok=True)
        link.symlink_to(given)
        assert _report(str(given), "--out", str(tmp_path))[0] == 2
        assert hashlib.md5(given.read_bytes()).hexdigest() == before
        # elsewhere, the page is written
        status, out, err = _report(str(given), "--out", str(tmp_path / "pages"))
        assert status == 0, err
    # a log renamed so that the trace read from it would take its name
    log = tmp_path / "logs" / "renamed"
    log.parent.mkdir()
    import gzip
    log.write_bytes(gzip.decompress(LOG.read_bytes()))
    target = log.parent / "renamed.json"
    target.symlink_to(log)
    before = hashlib.md5(log.read_bytes()).hexdigest()
    status, out, err = _report(str(log))
    assert status == 2 and "written over this log" in err, err
    assert hashlib.md5(log.read_bytes()).hexdigest() == before


def test_the_scrubber_replaces_a_prefix_only_where_a_path_starts():
    tmp, home = tempfile.gettempdir(), str(Path.home())
    mid = {"a": f"/scratch{tmp}/job/train.py", "b": f"/data{home}/models/net.py", "c": f"/x{os.getcwd()}/y.py",
           "d": f"{tmp}foo/x.py", "e": f"file:/{tmp}/x"}
    assert json.loads(scrub(json.dumps(mid))) == mid
    starts = {"a": f"{tmp}/job/train.py", "b": f"{home}/models/net.py", "c": f"--out={tmp}/x", "d": f"a\n{tmp}/y",
              "e": f"{tmp}", "f": f"see ({tmp}/x)", "g": f"{tmp}:{home}/bin", "h": f"{home}\t{tmp}/z"}
    assert json.loads(scrub(json.dumps(starts))) == {
        "a": "<tmp>/job/train.py", "b": "~/models/net.py", "c": "--out=<tmp>/x", "d": "a\n<tmp>/y", "e": "<tmp>",
        "f": "see (<tmp>/x)", "g": "<tmp>:~/bin", "h": "~\t<tmp>/z"}


_AS_ANOTHER_USER = """
import os, sys
from tracers.__main__ import main
import tracers.commands.report, tracers.torchlogs.load, tracers.torchlogs.files  # noqa: F401 - loaded before
if os.geteuid() == 0:  # root reads everything: drop to nobody for the run
    os.setegid(65534)
    os.seteuid(65534)
print("status", main(["report", *sys.argv[1:]]))
"""


def test_an_unreadable_directory_of_logs_is_one_line_and_exit_2(tmp_path: Path):
    shared = Path(tempfile.mkdtemp(dir="/tmp"))  # a folder the other user can reach
    try:
        shared.chmod(0o777)
        for name, mode in (("none", 0o000), ("no-execute", 0o600), ("no-read", 0o300)):
            folder = shared / name
            folder.mkdir()
            shutil.copy(LOG, folder / "dedicated_log_torch_trace_rank_0_x.log.gz")
            folder.chmod(mode)
            for target in (folder, folder / "dedicated_log_torch_trace_rank_0_x.log.gz"):
                result = run_python(["-c", _AS_ANOTHER_USER, str(target), "--out", str(shared / "out")], timeout=120)
                assert "Traceback" not in result.stderr, result.stderr
                lines = [line for line in result.stderr.splitlines() if line.startswith("report:")]
                if mode == 0o300 and target != folder:  # searchable: the log itself is read
                    continue
                assert "status 2" in result.stdout and len(lines) == 1, (name, target, result.stdout, result.stderr)
                assert "permission denied" in lines[0], lines
    finally:
        for folder in shared.iterdir():
            folder.chmod(0o755)
        shutil.rmtree(shared)

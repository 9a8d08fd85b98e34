"""Names built from a trace's or a log's own words (issue 52): every one is an entry of the folder the user chose,
links go to torch's repository only, and what is printed of them is printable."""

from __future__ import annotations

import json
import shutil

import pytest

from tracers.commands import main
from tracers.tracefile.names import (OutsideFolder, TraceName, inside, logs_merged_file_name, parse, safe_part)
from tracers.vocabulary.releases import GITHUB_REPO, source_ref, source_url

from tests.conftest import ROOT

pytestmark = pytest.mark.pure

RECORDED = ROOT / "docs" / "_traces" / "cpu" / "2.13.0"
RANK_LOGS = ROOT / "tests" / "data" / "tlparse" / "graph_exec_order_tests"
HOSTILE = ("cold/../../../escaped", "../..", "..", ".", "", "/etc/passwd", "C:\\Windows\\x", "a\x00b", "a\nb",
           "\x1b]0;owned\x07", "\u202etxt.exe", "." * 300, "x" * 1000, "~root", "name with spaces", "модель")


@pytest.mark.parametrize("text", HOSTILE)
def test_every_name_made_from_input_is_one_entry_of_its_folder(tmp_path, text):
    names = [TraceName(text, text, text).file_name, TraceName("run", text, "cold", rank=3).file_name,
             TraceName("run", "cpu", text, merged="ranks").file_name, TraceName(text, "cuda", "warm", pid=7).file_name,
             TraceName("run", "cpu", "cold", merged=text).file_name, logs_merged_file_name(text)]
    for name in names:
        assert inside(tmp_path, name).parent == tmp_path
        assert len(name.encode()) <= 255 and name.isprintable(), name
    assert safe_part(text) and not safe_part(text).startswith(".")


def test_a_name_that_is_a_path_is_refused_by_the_one_check(tmp_path):
    for bad in ("../x.json", "a/b.json", "..", ".", "", "a\0b.json"):
        with pytest.raises(OutsideFolder):
            inside(tmp_path, bad)


def test_known_names_keep_their_shape():
    name = TraceName("mlp.2", "cuda", "warm", rank=1)
    assert name.file_name == "mlp.2-cuda-warm-rank1.json" and parse(name.file_name) == name


def _rank_traces(where, **fields):
    """The recorded two-rank run's traces, copied, with ``fields`` of their run info replaced."""
    where.mkdir(parents=True)
    for rank in (0, 1):
        name = f"rank_divergent-cpu-cold-rank{rank}.json"
        data = json.loads((RECORDED / name).read_text())
        data["otherData"]["torch_compile_walkthrough"].update(fields)
        (where / name).write_text(json.dumps(data))
    return where


def _files(root):
    return sorted(str(path.relative_to(root)) for path in root.rglob("*") if path.is_file())


def test_merge_writes_nothing_outside_its_folder_whatever_the_traces_say(tmp_path, capsys):
    ranks = _rank_traces(tmp_path / "a" / "b" / "ranks", cache_mode="cold/../../../escaped",
                         device="\x1b]0;owned\x07cpu")
    before = set(_files(tmp_path))
    assert main(["merge", str(ranks), "--quiet"]) == 0
    out, err = capsys.readouterr()
    made = set(_files(tmp_path)) - before
    assert made and all(path.startswith("a/b/ranks/") and path.count("/") == 3 for path in made), made
    assert "\x1b" not in out + err and "\x07" not in out + err
    assert out.strip().endswith(".html") and (ranks / out.strip().rsplit("/", 1)[-1]).is_file()


def test_report_of_a_merge_with_a_hostile_name_writes_inside_out_and_prints_it_printable(tmp_path, capsys):
    ranks = _rank_traces(tmp_path / "ranks", device="cpu\x1b[2J")
    assert main(["merge", str(ranks), "--out", str(tmp_path / "m" / "merged-ranks.json"), "--quiet"]) == 0
    merged = tmp_path / "m" / "merged-ranks.json"
    data = json.loads(merged.read_text())
    data["otherData"]["torch_compile_walkthrough_ranks"]["name"] = "../../\x1b]0;x\x07evil"
    merged.write_text(json.dumps(data))
    capsys.readouterr()
    before = set(_files(tmp_path))
    main(["report", str(merged), "--out", str(tmp_path / "out")])
    out, err = capsys.readouterr()
    assert all(path.startswith(("out/", "m/")) for path in set(_files(tmp_path)) - before)
    assert "\x1b" not in out + err and "\x07" not in out + err


def test_report_of_a_log_directory_prints_its_page_printable(tmp_path, capsys):
    logs = tmp_path / "logs\x1b[31m"
    shutil.copytree(RANK_LOGS, logs)
    assert main(["report", str(logs), "--out", str(tmp_path / "out")]) == 0
    out, err = capsys.readouterr()
    assert "\x1b" not in out + err and out.strip().endswith(".html")
    assert all(path.parent == tmp_path / "out" for path in (tmp_path / "out").iterdir())


@pytest.mark.parametrize("sha", ["main/../../../../evil/repo", "../../evil", "abc def", "ABCDEF0", "g" * 40,
                                 "0" * 41, "\x1b[31m", "https://evil.example/x"])
def test_a_commit_that_is_not_one_never_goes_into_a_link(sha):
    url = source_url("torch/_dynamo/eval_frame.py", 10, 20, sha, "2.13.0+cpu")
    assert url == f"{GITHUB_REPO}/blob/v2.13.0/torch/_dynamo/eval_frame.py#L10-L20"
    assert source_url("torch/x.py", 1, None, sha, "../../evil") == ""
    assert source_ref(sha) is None


def test_links_keep_to_torch_s_tree():
    sha = "a" * 40
    assert source_url("torch/x.py", 3, None, sha) == f"{GITHUB_REPO}/blob/{sha}/torch/x.py#L3"
    for path in ("../../evil/repo/x.py", "/etc/passwd", "torch/../../x.py", "torch/x.py?q=1", "torch/x.py#L9",
                 "torch//x.py", ""):
        assert source_url(path, 3, None, sha) == "", path
    assert source_url("torch/x.py", 3, None, "") == f"{GITHUB_REPO}/blob/main/torch/x.py#L3"  # no commit recorded


def test_a_trace_s_spoofed_commit_puts_no_foreign_link_on_its_page(tmp_path):
    data = json.loads((RECORDED / "rank_divergent-cpu-cold-rank0.json").read_text())
    info = data["otherData"]["torch_compile_walkthrough"]
    info["torch_git_sha"] = "main/../../../../evil/repo"
    info.pop("rank", None)
    trace = tmp_path / "spoofed-cpu-cold.json"
    trace.write_text(json.dumps(data))
    assert main(["report", str(trace), "--out", str(tmp_path / "out")]) == 0
    page = next((tmp_path / "out").glob("*.html")).read_text()
    assert not [part for part in page.split('href="')[1:] if "evil" in part.split('"', 1)[0]]
    links = [part.split('"', 1)[0] for part in page.split('href="https://github.com/')[1:]]
    assert links and all(link.startswith("pytorch/pytorch/blob/v2.13.0/") for link in links), links[:3]

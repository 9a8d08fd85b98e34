"""The validator checks the types the readers use (issue 44): an int where a list is expected, lists given
non-lists, lone surrogates, numbers of thousands of digits, a speed record of junk: each left out with a note, the
page still written; a trace of millions of empty lists refused before parsing, in bounded memory."""

from __future__ import annotations

import contextlib
import copy
import io
import json
from pathlib import Path

import pytest

from tests.conftest import ROOT, run_python
from tracers.__main__ import main
from tracers.tracefile.chrome import TOOL_KEY, TraceFileError, load
from tracers.tracefile.validation import Dropped, fits, without_lone_surrogates

pytestmark = pytest.mark.pure

SEED = ROOT / "docs" / "_traces" / "cpu" / "2.13.0" / "graph_breaks-cpu-cold.json"
BASE = json.loads(SEED.read_text(encoding="utf-8"))


def _info(data: dict) -> dict:
    return data["otherData"][TOOL_KEY]


def _report(tmp_path: Path, text: str, name: str = "t.json") -> tuple[int, str, str]:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8", errors="surrogatepass")
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main(["report", str(path), "--out", str(tmp_path / "out")])
    return status, out.getvalue(), err.getvalue()


CASES = {
    "from_log.cannot_give an int": lambda d: _info(d).update(from_log={"file": "x", "cannot_give": 5}),
    "from_log an int": lambda d: _info(d).update(from_log=5),
    "from_log.problems a list": lambda d: _info(d).update(from_log={"file": "x", "problems": [1]}),
    "totals_check.mismatches an int": lambda d: _info(d).update(totals_check={"mismatches": 5}),
    "totals_check.mismatches a string": lambda d: _info(d).update(totals_check={"mismatches": "abc"}),
    "totals_check.skipped a list": lambda d: _info(d).update(totals_check={"skipped": [1]}),
    "command, warnings, targets_hooked not lists": lambda d: _info(d).update(command=5, warnings=5, targets_hooked=7),
    "warnings a list of ints": lambda d: _info(d).update(warnings=[1, 2]),
    "process of junk": lambda d: _info(d).update(process={"spawn_index": "x", "pid": []}),
    "rank's host a list": lambda d: _info(d).update(rank={"rank": 0, "world_size": 2, "host": [1]}),
    "runtime.compiled an int": lambda d: _info(d).update(runtime={"compiled": 5}),
    "runtime host_ns a string": lambda d: _info(d).update(runtime={"compiled": {
        "mode": "compiled", "functions": [{"site": "a", "order": 1, "host_ns": "x"}]}}),
    "runtime kernel with an extra key": lambda d: _info(d).update(runtime={"compiled": {"mode": "compiled"}, "profiles": [
        {"site": "a", "order": 1, "calls": 1, "call_ns": 1, "kernels": [
            {"name": "k", "compile_id": None, "count": 1, "total_ns": 1, "evil": 1}]}]}),
    "payload_size 10**300": lambda d: d["artifacts"][0].update(payload_size=10 ** 300),
    "a span id 2**70": lambda d: next(e for e in d["traceEvents"] if e.get("ph") == "X")["args"].update(id=2 ** 70),
}


@pytest.mark.parametrize("name", list(CASES))
def test_a_field_of_the_wrong_type_is_left_out_with_a_note_and_the_page_written(tmp_path: Path, name: str):
    data = copy.deepcopy(BASE)
    CASES[name](data)
    status, out, err = _report(tmp_path, json.dumps(data))
    assert status == 0, err
    assert "Traceback" not in err and out.strip().endswith(".html")
    assert "report: warning:" in err and "left out what could not be used" in err, err


@pytest.mark.parametrize("digits", [4000, 5000, 100_000])
def test_a_number_of_thousands_of_digits_is_a_number_out_of_range(tmp_path: Path, digits: int):
    data = copy.deepcopy(BASE)
    data["artifacts"][0]["payload_size"] = "@@N"
    status, out, err = _report(tmp_path, json.dumps(data).replace('"@@N"', "9" * digits))
    assert status == 0, err
    assert "1 artifacts with a bad field" in err


def test_lone_surrogates_become_replacement_characters_and_the_page_is_written(tmp_path: Path):
    data = copy.deepcopy(BASE)
    _info(data)["torch_version"] = "2.13.0@@S"
    for event in data["traceEvents"]:
        if isinstance(event.get("args"), dict) and "frame" in event["args"]:
            event["args"]["frame"] += "@@L"
    text = json.dumps(data).replace("@@S", "\\ud800").replace("@@L", "\\udc80x\\ud83d\\ude00")
    status, out, err = _report(tmp_path, text)
    assert status == 0, err
    page = Path(out.strip()).read_text(encoding="utf-8")
    assert "2.13.0\ufffd" in page and "\ufffdx\U0001F600" in page  # the pair (an emoji) kept
    # raw bytes that are no UTF-8 (a surrogate encoded, a stray byte) are replaced too
    raw = json.dumps(BASE).replace('"torch_version": "2.13.0', '"torch_version": "2.13.0@@B').encode()
    raw = raw.replace(b"@@B", b"\xed\xa0\x80\xff")
    (tmp_path / "b.json").write_bytes(raw)
    assert "\ufffd" in load(tmp_path / "b.json").info.torch_version


def test_without_lone_surrogates_keeps_pairs_and_everything_else():
    assert without_lone_surrogates('"a"') == '"a"'
    assert json.loads(without_lone_surrogates(r'"\ud83d\ude00 \uD800 \udc00 \uD800\uDC00"')) == "😀 \ufffd \ufffd 𐀀"


def test_shapes():
    assert fits({"a": [1, 2]}, ("map", ("list", "int")))
    assert not fits({"a": [1, "2"]}, ("map", ("list", "int")))
    assert not fits([[[[1]]]], ("list", "any"), depth=30)
    assert fits(3, ("either", ("list", "str"), "int")) and fits(["x"], ("either", ("list", "str"), "int"))
    assert not fits("3", ("either", ("list", "str"), "int"))


def test_a_gpu_trace_of_ours_reads_back_with_nothing_left_out():
    """A CUDA-graph recording's ``inputs`` is a count, an autotuned op's a list: both are ours, neither is dropped."""
    dropped = Dropped()
    load(ROOT / "tests" / "data" / "cuda-2.11.0" / "bert_reduce_overhead-cuda-cold.json", dropped)
    assert not dropped, dict(dropped)


def test_a_trace_of_millions_of_empty_lists_is_refused_before_parsing_in_bounded_memory(tmp_path: Path):
    for name, body in (("lists.json", b"[" + b"[]," * 33_000_000 + b"[]]"),
                       ("dicts.json", b'{"traceEvents":[' + b"{}," * 33_000_000 + b'{}], "otherData": {}}')):
        (tmp_path / name).write_bytes(body)
        code = ("import resource, sys\nfrom tracers.__main__ import main\n"
                f"status = main(['report', {str(tmp_path / name)!r}, '--out', {str(tmp_path / 'out')!r}])\n"
                "print(status, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024)")
        result = run_python(["-c", code], timeout=120)
        status, peak_mb = result.stdout.split()
        assert status == "2" and int(peak_mb) < 2000, (result.stdout, result.stderr)  # the bound: 2 GB
        said = result.stderr.strip()
        assert said.count("\n") == 0 and "refused before parsing" in said and "33,000,00" in said, said


def test_the_structure_check_passes_every_recorded_trace():
    for path in sorted((ROOT / "docs" / "_traces").rglob("*.json"))[:40]:
        try:
            load(path, Dropped())
        except TraceFileError as error:
            assert "refused before parsing" not in str(error), path


def test_strings_full_of_brackets_are_no_structure(tmp_path: Path):
    data = copy.deepcopy(BASE)
    data["artifacts"][0]["payload"] = "[{" * 2_000_000  # a payload's code: brackets inside a string
    status, out, err = _report(tmp_path, json.dumps(data))
    assert status == 0, err

"""No escape sequence from an input reaches the terminal: every field the summaries print (region names, code object
names, reasons, ids, file names, run facts) fed ``ESC]0;…BEL ESC[2J ESC[31m``, printed shown, never obeyed; our
own colours still there when colour is on (issue 44)."""

from __future__ import annotations

import contextlib
import io
import json
import re
from pathlib import Path

import pytest

from tests.conftest import ROOT
from tests.hostile import RANK_SEEDS, _text, dumps
from tracers.__main__ import main
from tracers.analysis.diff import diff
from tracers.analysis.report_model import build_report
from tracers.terminal.diff import render_diff
from tracers.terminal.style import Style
from tracers.terminal.summary import render_report
from tracers.torchlogs.records import Problems, read_records
from tracers.tracefile.chrome import TOOL_KEY, from_chrome
from tracers.vocabulary.printable import printable, printable_value

pytestmark = pytest.mark.pure

HOSTILE = "\x1b]0;owned\x07\x1b[2J\x1b[31m"
SHOWN = printable(HOSTILE)  # what the terminal gets instead: \x1b]0;owned\x07\x1b[2J\x1b[31m, as text
OUR_CODES = re.compile(r"\x1b\[(?:0|1|2|31|32|33)m")
TRACES = ROOT / "docs" / "_traces" / "cpu"
# Fields that make an event what it is: poisoned, it is no longer read as one (and nothing of it is printed).
STRUCTURAL = {"ph", "cat", "s", "stage", "kind", "has_payload", "format_version"}


class FakeTerminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def poison(value: object, key: object = None) -> object:
    """Every string in a JSON value (keys of metadata too, not structural fields) with HOSTILE appended."""
    if isinstance(value, str):
        return value if key in STRUCTURAL else value + HOSTILE
    if isinstance(value, dict):
        return {k: poison(v, k) for k, v in value.items()}
    if isinstance(value, list):
        return [poison(item, key) for item in value]
    return value


def assert_safe(text: str, colour: bool) -> None:
    """No ESC or BEL but our own colour codes (and those only with colour on); the input's sequences shown."""
    if colour:
        assert OUR_CODES.search(text), "colour is on: our own codes are there"
    rest = OUR_CODES.sub("", text) if colour else text
    raw = sorted({char for char in rest if ord(char) < 0x20 and char != "\n" or 0x7F <= ord(char) <= 0x9F
                  or 0xFDD0 <= ord(char) <= 0xFDEF})
    assert not raw, (raw, text[:2000])
    assert SHOWN in text


def test_printable_shows_controls_and_keeps_text_and_newlines():
    assert printable(HOSTILE) == "\\x1b]0;owned\\x07\\x1b[2J\\x1b[31m"
    assert printable("a\nb\tc\rd\x7f\x9b") == "a\nb\\x09c\\x0dd\\x7f\\x9b"
    assert printable_value("a\nb") == "a\\x0ab"
    kept = "café 中文 😀 ‖ — …"
    assert printable(kept) == kept
    assert printable("evil\u202eexe.py\ud800") == "evil\\u202eexe.py\\ud800"  # bidi override, a lone surrogate
    assert printable(printable(HOSTILE + "\u202e")) == printable(HOSTILE + "\u202e")  # idempotent


def test_styling_goes_in_after_the_text_is_made_printable():
    style = Style(True)
    text = style.finish(style.red("x" + HOSTILE) + " y\x07")
    assert text == "\x1b[31mx" + SHOWN + "\x1b[0m y\\x07"
    assert Style(False).finish(Style(False).red("x" + HOSTILE)) == "x" + SHOWN
    # an input that spells a style's token gets no colour: the noncharacters are shown
    forged = "\ufdd0\ue000" + "31\ufdd1"
    assert "\x1b" not in Style(True).finish(forged.replace("\ue000", chr(0xE000 + 1)))
    assert "\\ufdd0" in Style(False).finish(forged)


@pytest.mark.parametrize("colour", [False, True], ids=["plain", "colour"])
@pytest.mark.parametrize("name", ["2.13.0/graph_breaks-cpu-cold.json", "2.11.0/guards_recompile-cpu-cold.json",
                                  "2.13.0/max_autotune-cpu-cold.json", "2.13.0/speed-cpu-cold.json",
                                  "2.13.0/by_code-cpu-cold.json", "2.13.0/reduce_overhead-cpu-cold.json"])
def test_every_string_of_a_trace_reaches_the_summary_printable(name: str, colour: bool):
    raw = poison(json.loads((TRACES / name).read_text(encoding="utf-8")))
    info = raw["otherData"][TOOL_KEY]
    info.update(error="boom" + HOSTILE, warnings=["careful" + HOSTILE], targets_missing={"m:f" + HOSTILE: HOSTILE},
                totals_check={"mismatches": ["graphs 1 vs 2" + HOSTILE]}, status="error" + HOSTILE)
    trace = from_chrome(raw, name)
    text = render_report(build_report(trace), Style(colour), written=["out/x" + HOSTILE + ".json"], full_tree=True)
    assert_safe(text, colour)
    for shown in ("boom", "careful", "graphs 1 vs 2", "m:f", "out/x"):
        assert shown + SHOWN in text, shown


def _poisoned_log(seed: Path) -> str:
    def payload(text: str | None) -> str | None:
        if text is None:
            return None
        try:
            return dumps(poison(json.loads(text)))
        except ValueError:
            return text + HOSTILE

    records = [(record.prefix, poison(record.metadata), payload(record.payload))
               for record in read_records(seed, Problems())]
    return _text(records)


def _report(path: Path, out: Path, stderr: io.StringIO) -> int:
    with contextlib.redirect_stderr(stderr), contextlib.redirect_stdout(io.StringIO()):
        return main(["report", str(path), "--out", str(out)])


@pytest.mark.parametrize("colour", [False, True], ids=["plain", "colour"])
def test_a_torch_trace_log_poisoned_everywhere_gives_a_printable_summary(tmp_path: Path, monkeypatch, colour: bool):
    monkeypatch.delenv("NO_COLOR", raising=False)
    log = tmp_path / ("dedicated_log_torch_trace_x" + HOSTILE + ".log")
    seed = TRACES / "2.13.0" / "graph_breaks_torch_trace-cpu-cold.log.gz"
    log.write_text(_poisoned_log(seed), encoding="utf-8")
    stderr = FakeTerminal() if colour else io.StringIO()
    assert _report(log, tmp_path / "out", stderr) == 0
    said = stderr.getvalue()
    assert_safe(said, colour)
    for name in ("dynamo", "scale_and_report", "graph_breaks.py", "dedicated_log_torch_trace_x"):
        assert name + SHOWN in said, name


@pytest.mark.parametrize("colour", [False, True], ids=["plain", "colour"])
def test_rank_logs_poisoned_everywhere_give_a_printable_ranks_summary(tmp_path: Path, monkeypatch, colour: bool):
    monkeypatch.delenv("NO_COLOR", raising=False)
    logs = tmp_path / ("job" + HOSTILE)
    logs.mkdir()
    for seed in RANK_SEEDS:
        (logs / seed.name.removesuffix(".gz")).write_text(_poisoned_log(seed), encoding="utf-8")
    (logs / ("foreign" + HOSTILE)).write_text("x", encoding="utf-8")
    stderr = FakeTerminal() if colour else io.StringIO()
    assert _report(logs, tmp_path / "out", stderr) == 0
    said = stderr.getvalue()
    assert_safe(said, colour)
    assert "foreign" + SHOWN in said and "job" + SHOWN in said


def test_a_diff_of_poisoned_traces_is_printable():
    a = from_chrome(poison(json.loads((TRACES / "2.13.0" / "graph_breaks-cpu-cold.json").read_text())), "a")
    b = from_chrome(poison(json.loads((TRACES / "2.13.0" / "max_autotune-cpu-cold.json").read_text())), "b")
    for colour in (False, True):
        assert_safe(render_diff(diff(a, b), Style(colour)), colour)


def test_error_lines_name_a_hostile_file_printably(tmp_path: Path):
    for name in ("t" + HOSTILE + ".json", "dedicated_log_torch_trace_" + HOSTILE + ".log"):
        path = tmp_path / name
        path.write_bytes(b"\x00 not json")
        stderr = io.StringIO()
        assert _report(path, tmp_path / "out", stderr) == 2
        said = stderr.getvalue()
        assert said.count("\n") == 1 and "\x1b" not in said and "\x07" not in said and SHOWN in said, said


def test_a_long_code_span_or_link_is_never_broken_inside_when_wrapped():
    from tracers.terminal.findings import _detail

    paste = "`torch._dynamo.config.ignore_logging_functions.add(transformers.modeling_utils.logger.warning_once)`"
    link = "https://meta-pytorch.github.io/compile-graph-break-site/gb/gb0291.html"
    lines = _detail("fix", f"removes the break (before the first call: {paste}), see {link} for more", 80)
    assert any(line.strip().startswith(paste) for line in lines) and any(link in line for line in lines)

"""The trace report LOG analyses is the one its file loads as: read back from the text written, not from disk."""

from __future__ import annotations

from pathlib import Path

import pytest

from tracers.torchlogs.load import load_log
from tracers.tracefile.atomic import write_text_atomic
from tracers.tracefile.chrome import load, read_back, serialized

pytestmark = pytest.mark.pure

DATA = Path(__file__).resolve().parents[2] / "data"


@pytest.mark.parametrize("log", ["torch-2.11.0/graph_breaks-aot_eager.log.gz", "tlparse/inputs/simple.log.gz",
                                 "tlparse/inputs/simple_corrupted_json.log.gz", "tlparse/inputs/export.log.gz"])
def test_read_back_is_what_the_file_loads_as(tmp_path: Path, log: str) -> None:
    trace = load_log(DATA / log).trace
    text = serialized(trace)
    target = write_text_atomic(tmp_path / "t.json", text)
    assert target.read_text(encoding="utf-8") == text
    assert read_back(text, target) == load(target)

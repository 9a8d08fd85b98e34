"""A break's resume functions are matched by file, function and line: two files of one program whose functions share a
name and break line keep their own compiles."""

from __future__ import annotations

import pytest

import tracers
from benchmarks.torch_logs import compiles_log

pytestmark = pytest.mark.pure


def test_two_files_with_the_same_function_and_break_line_keep_their_own_compiles(tmp_path) -> None:
    text, _ = compiles_log(12)  # a real log's records twice, the copy as the same code in another file
    (tmp_path / "two.log").write_text(text)
    with pytest.warns(UserWarning):  # the generated log has no torch_version record
        loaded = tracers.load(tmp_path / "two.log")
    groups = [set(finding.compile_ids) for finding in loaded.findings if finding.kind == "graph-break"]
    first_file, second_file = {f"{n}/{v}" for n in (0, 1, 2) for v in (0, 1)}, {f"{n}/{v}" for n in (3, 4, 5)
                                                                                for v in (0, 1)}
    assert len(groups) == 4
    assert all(ids <= first_file or ids <= second_file for ids in groups), groups

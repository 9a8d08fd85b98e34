"""Guards on a closure's cells differing between ranks are said in the user's words, never as torch's helper calls
(issue 54, item 8: raw ``___check_type_id(L['fn'].__closure__…)`` in a divergence)."""

from __future__ import annotations

import pytest

from tracers.ranks.wording import guard_words

pytestmark = pytest.mark.pure

TREE = "| | | +- "  # the guard tree's drawing, as torch's dynamo_cpp_guards_str prints it


def test_closure_cells_are_said_as_the_variables_the_function_captures() -> None:
    plain = frozenset({f"{TREE}TYPE_MATCH: ___check_type_id(L['fn'].__closure__[0].cell_contents, <id>)",
                       f"{TREE}ID_MATCH: ___check_obj_id(L['fn'].__closure__[1].cell_contents.__code__, <id>)"})
    method = frozenset({f"{TREE}TYPE_MATCH: ___check_type_id(L['fn'].__func__.__closure__[0].cell_contents, <id>)",
                        f"{TREE}GLOBAL_STATE: ___check_global_state()"})
    lines = guard_words({0: plain, 1: plain, 2: method})
    assert lines == ["ranks 0, 1 only: the identity of the code of the second variable `fn` captures is checked",
                     "ranks 0, 1 only: the type of the first variable `fn` captures is checked",
                     "rank 2 only: the type of the first variable `fn` (a method) captures is checked"]
    assert not any("___" in line or "__closure__" in line for line in lines)


def test_a_rank_groups_guards_are_said_in_words_on_the_page_and_in_the_merge(tmp_path) -> None:
    """Guards only torch's helpers say (no line of them in words): each group's value counts them and says its own
    guards as the lines that differ do, never ``___check_type_id(L['x']…)`` or ``L['self']…`` (issue 54, item 4)."""
    from tests.tracers.ranks.rank_logs import compile_log
    from tracers.ranks.page import render_ranks
    from tracers.ranks.summary import as_json, render, report
    from tracers.terminal.style import Style
    from tracers.torchlogs.load import load_logs
    from tracers.torchlogs.merged_run import merged_run

    guards = {0: ("TYPE_MATCH: ___check_type_id(L['x'], 94001)",
                  "DICT_CONTAINS: ___dict_contains('fc', L['self']._modules)"),
              1: ("TYPE_MATCH: ___check_type_id(L['x'], 94001)", "DICT_LENGTH: len(L['self']._modules) == 2")}
    for rank, lines in guards.items():
        (tmp_path / f"dedicated_log_torch_trace_rank_{rank}_ab.log").write_text(compile_log(rank, guards=lines),
                                                                                encoding="utf-8")
    result = report(merged_run(load_logs(tmp_path), tmp_path.name))
    [difference] = [d for d in result.divergence.differences if d.aspect == "guards"]
    assert dict(difference.groups) == {
        (0,): "2 guards (- `len(self._modules) == 2` is checked; 1 check of torch's own)",
        (1,): "2 guards (+ `len(self._modules) == 2` is checked; 1 check of torch's own)"}
    said = "\n".join([render(result, Style(False)), render_ranks(result), str(as_json(result)["divergence"])])
    assert "___" not in said.split("rank 0: findings")[0] and "L['" not in said and "L[&#39;" not in said

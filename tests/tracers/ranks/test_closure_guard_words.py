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

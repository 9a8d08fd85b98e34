"""A data-dependent ``if`` whose arms assign one name is written as the ``torch.where`` line to paste, read from the
user's file at the end of the run; any other branch gets none."""

from __future__ import annotations

import ast

import pytest

from tracers.capture.branch_rewrites import _rewrite

pytestmark = pytest.mark.pure


def _at(source: str, line: int) -> dict | None:
    return _rewrite(ast.parse(source), line)


def test_both_arms_assigning_one_name_become_one_where():
    source = "def f(h):\n    if h.sum() > 0:\n        h = h * 2\n    else:\n        h = h - 1\n    return h\n"
    assert _at(source, 2) == {"paste": "h = torch.where(h.sum() > 0, h * 2, h - 1)", "first": 2, "last": 5}


def test_no_else_keeps_the_name():
    source = "def f(x):\n    if (x > 5).any():\n        x = x.clamp(max=5)\n    return x\n"
    assert _at(source, 2)["paste"] == "x = torch.where((x > 5).any(), x.clamp(max=5), x)"


@pytest.mark.parametrize("source", [
    "def f(h):\n    if h.sum() > 0:\n        h = h * 2\n    else:\n        g = h - 1\n",  # two names
    "def f(h):\n    if h.sum() > 0:\n        print(h)\n",  # no assignment
    "def f(h):\n    if h.sum() > 0:\n        h = h * 2\n        h = h + 1\n",  # two statements
    "def f(h):\n    if h.sum() > 0:\n        a, b = h, h\n",  # a tuple
])
def test_other_branches_get_no_rewrite(source):
    assert _at(source, 2) is None

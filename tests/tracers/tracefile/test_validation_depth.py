"""validation.depth_within, read a level at a time, says what the walk of every container one by one said."""

from __future__ import annotations

import random

import pytest

from tracers.tracefile.validation import depth_within

pytestmark = pytest.mark.pure


def _by_stack(value: object, limit: int) -> bool:
    """The former walk (the oracle): each container with its depth on a stack."""
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            item = list(item.values())
        elif not isinstance(item, list):
            continue
        if depth > limit:
            return False
        stack.extend((child, depth + 1) for child in item if isinstance(child, (dict, list)))
    return True


def _nested(rng: random.Random, depth: int) -> object:
    if depth == 0 or rng.random() < 0.3:
        return rng.choice([1, "x", None, 2.5, True, [], {}])
    items = [_nested(rng, depth - 1) for _ in range(rng.randrange(0, 4))]
    return items if rng.random() < 0.5 else {str(index): item for index, item in enumerate(items)}


def test_the_same_answer_as_the_walk_by_stack() -> None:
    rng = random.Random(3)
    values = [1, "x", None, [], {}, [[]], {"a": {"b": [1]}}] + [_nested(rng, 9) for _ in range(2000)]
    for value in values:
        for limit in range(0, 9):
            assert depth_within(value, limit) == _by_stack(value, limit), (value, limit)

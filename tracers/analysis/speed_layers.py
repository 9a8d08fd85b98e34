"""Layers compiled one by one at one line (regional compilation) timed as one object: their calls summed per step."""

from __future__ import annotations

import dataclasses
from collections import defaultdict
from collections.abc import Sequence

from tracers.tracefile.speed import NO_BACKWARD, TimedFunction


def layered(functions: Sequence[TimedFunction]) -> list[tuple[TimedFunction, tuple[TimedFunction, ...]]]:
    """Each object the script compiled, as (what is timed, its layers): several objects compiled at one line of the
    same name and number of calls (``for layer in layers: layer.compile()``) become one, whose i-th call is the sum
    of every layer's i-th call (the layers run one after another in a step); the rest stand alone, with no layers."""
    by_site: dict[tuple[str, str], list[TimedFunction]] = defaultdict(list)
    for function in functions:
        by_site[(function.site, function.name)].append(function)
    out: list[tuple[TimedFunction, tuple[TimedFunction, ...]]] = []
    done: set[tuple[str, str]] = set()
    for function in functions:
        key = (function.site, function.name)
        if key in done:
            continue
        done.add(key)
        members = sorted(by_site[key], key=lambda member: member.order)
        if len(members) > 1 and len({member.calls for member in members}) == 1:
            out.append((_summed(members), tuple(members)))
        else:
            out += [(member, ()) for member in members]
    return out


def _summed(members: list[TimedFunction]) -> TimedFunction:
    """One object whose calls are the layers' calls of each step, added; its step is the first layer's (one call of
    it per step of the model)."""
    first = members[0]
    return dataclasses.replace(
        first, name=f"{first.name} ×{len(members)}",
        host_ns=_sum(member.host_ns for member in members),
        device_ns=_sum(member.device_ns for member in members) if all(m.device_ns is not None for m in members)
        else None,
        compiling=tuple(sorted({index for member in members for index in member.compiling})),
        compile_ids=tuple(dict.fromkeys(compile_id for member in members for compile_id in member.compile_ids)),
        profiled=tuple(sorted({index for member in members for index in member.profiled})),
        backward_host_ns=_sum_backward(member.backward_host_ns for member in members),
        backward_device_ns=_sum_backward(member.backward_device_ns for member in members)
        if all(m.backward_device_ns is not None for m in members) else None)


def _sum(series) -> tuple[int, ...]:  # noqa: ANN001 - an iterable of equally long tuples
    return tuple(sum(values) for values in zip(*series))


def _sum_backward(series) -> tuple[int, ...]:  # noqa: ANN001 - an iterable of tuples, NO_BACKWARD where none ran
    """A step's backward where every layer's ran (a layer without one leaves the step's sum unknown)."""
    rows = [tuple(row) for row in series]
    if not rows or any(len(row) != len(rows[0]) for row in rows):
        return ()
    return tuple(NO_BACKWARD if NO_BACKWARD in values else sum(values) for values in zip(*rows))

"""The backward timer on real autograd graphs: the nodes a call made (by sequence number, never by id), hooks that
change no gradient, a call without a backward left untimed, and a call fed by an earlier one stopping at its own
nodes. No timing is asserted."""

from __future__ import annotations

import pytest
import torch

from tracers.capture.backward_timing import BackwardTimer, _grad_fns, _lowest
from tracers.tracefile.speed import NO_BACKWARD

pytestmark = pytest.mark.torch


def _model() -> torch.nn.Module:
    torch.manual_seed(0)
    return torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.Tanh(), torch.nn.Linear(16, 2))


def _grads(timer: BackwardTimer | None) -> list[torch.Tensor]:
    model, x = _model(), torch.randn(4, 8, generator=torch.Generator().manual_seed(1))
    for index in range(3):
        sequence = timer.sequence() if timer else None
        out = model(x)
        if timer:
            timer.watch(index, sequence, {"logits": (out,)})  # nested as a ModelOutput would hold it
        out.square().sum().backward()
    return [parameter.grad.clone() for parameter in model.parameters()]


def test_the_hooks_change_no_gradient_and_time_each_backward():
    timer = BackwardTimer(torch)
    assert all(torch.equal(a, b) for a, b in zip(_grads(None), _grads(timer), strict=True))
    host, device = timer.times(4)
    assert device is None and all(ns > 0 for ns in host[:3]) and host[3] == NO_BACKWARD  # call 3 never ran


def test_a_call_without_grad_or_without_a_backward_is_not_timed():
    timer, model = BackwardTimer(torch), _model()
    with torch.no_grad():
        assert timer.sequence() is None
    timer.watch(0, timer.sequence(), model(torch.randn(2, 8)))  # its graph is dropped: no backward runs
    assert timer.times(1) == ((NO_BACKWARD,), None)


def test_the_walk_reaches_the_first_node_the_call_made_and_stops_at_an_earlier_calls():
    model, x = _model(), torch.randn(2, 8, requires_grad=True)
    first = (x * 2).tanh()  # an earlier graph feeding the call
    sequence = torch._C._autograd._get_sequence_nr()
    out = model(first)
    made = range(sequence, torch._C._autograd._get_sequence_nr())
    roots = list(_grad_fns(out, torch.Tensor))
    lowest = _lowest(roots, made)
    assert lowest._sequence_nr() == sequence  # the call's first op: the last of its nodes a backward runs
    assert first.grad_fn._sequence_nr() not in made  # the earlier graph's nodes are not the call's


def test_a_node_is_known_by_its_number_even_when_wrappers_are_made_afresh():
    """torch 2.11 made a C++ node's Python wrapper afresh at each read (ids repeated): a walk keyed by number
    reaches every node once whatever the wrappers' ids."""
    model = _model()
    sequence = torch._C._autograd._get_sequence_nr()
    out = model(torch.randn(2, 8))
    made = range(sequence, torch._C._autograd._get_sequence_nr())
    lowest = _lowest([out.grad_fn], made)
    assert lowest is not None and lowest._sequence_nr() == min(made)

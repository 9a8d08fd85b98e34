"""The backward timer on real autograd graphs: the nodes a call made (by sequence number, never by id), hooks that
change no gradient, a call without a backward left untimed, and a call fed by an earlier one stopping at its own
nodes; AOTAutograd's node timed by its class (put back after), the walk waiting for the backward (a graph never
backwarded freed as without us), compiled autograd's switch read only where our hooks could enter its graph, and a
long run's backwards timed for the same sample of calls in either run. No timing is asserted."""

from __future__ import annotations

import pytest
import torch

from tracers.capture.backward_timing import BackwardTimer, NodeTypes, _grad_fns, _lowest
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


def test_the_walk_leaves_a_dead_end_and_finds_the_first_node_of_a_residual_stream_with_a_tied_head():
    """The shape of a language model: an embedding, residual blocks, a head that multiplies by the embedding's
    weight transposed (its transpose leads out of the call at once); and a side branch that is not the call's
    first op. The walk ends at the embedding, the call's first node."""
    torch.manual_seed(0)
    table, blocks = torch.nn.Embedding(32, 8), torch.nn.ModuleList(torch.nn.Linear(8, 8) for _ in range(3))
    heads = []

    def forward(tokens: torch.Tensor) -> torch.Tensor:
        hidden = table(tokens)
        for block in blocks:
            hidden = hidden + block(hidden).relu()
        heads.append(table.weight.T)
        return hidden @ heads[-1]

    sequence = torch._C._autograd._get_sequence_nr()
    out = forward(torch.randint(0, 32, (2, 4)))
    made = range(sequence, torch._C._autograd._get_sequence_nr())
    lowest = _lowest([out.grad_fn], made)
    assert type(lowest).__name__.startswith("EmbeddingBackward") and lowest._sequence_nr() == sequence
    # Out of reach: a root that does not lead to the first node gives the lowest node it reaches.
    transpose = heads[0].grad_fn  # the head's transpose: nothing of the call below it
    assert _lowest([transpose], made)._sequence_nr() == transpose._sequence_nr() > sequence


def test_a_node_is_known_by_its_number_even_when_wrappers_are_made_afresh():
    """torch 2.11 made a C++ node's Python wrapper afresh at each read (ids repeated): a walk keyed by number
    reaches every node once whatever the wrappers' ids."""
    model = _model()
    sequence = torch._C._autograd._get_sequence_nr()
    out = model(torch.randn(2, 8))
    made = range(sequence, torch._C._autograd._get_sequence_nr())
    lowest = _lowest([out.grad_fn], made)
    assert lowest is not None and lowest._sequence_nr() == min(made)


def _compiled_grads(timer: BackwardTimer | None, compiled, calls: int = 3) -> list[torch.Tensor]:
    x = torch.randn(4, 8, requires_grad=True, generator=torch.Generator().manual_seed(2))
    grads = []
    for index in range(calls):
        sequence = timer.sequence() if timer else None
        out = compiled(x)
        if timer:
            timer.watch(index, sequence, out)
        out.square().sum().backward()
        grads.append(x.grad.clone())
        x.grad = None
    return grads


def test_aot_autograds_node_is_timed_by_its_class_which_is_put_back_after():
    """A compiled call makes one CompiledFunctionBackward node: its class's apply times it (no hooks per call), the
    gradients are those without us, and restore leaves the class as it was."""
    compiled = torch.compile(lambda x: (x * 2 + 1).sin(), backend="aot_eager")
    plain = _compiled_grads(None, compiled)
    types = NodeTypes()
    timer = BackwardTimer(torch, types)
    assert all(torch.equal(a, b) for a, b in zip(plain, _compiled_grads(timer, compiled), strict=True))
    host, _ = timer.times(3)
    assert all(ns > 0 for ns in host) and not timer.walks
    [node_type] = types.classes
    assert node_type.__name__ == "CompiledFunctionBackward" and "apply" in node_type.__dict__
    before = {name: node_type.__dict__.get(name) for name in ("apply", "apply_boxed")}
    types.restore()
    assert all(node_type.__dict__.get(name) is None for name in before)  # the class's own attributes, as before
    assert not types.timed(node_type)  # nothing is wrapped again once restored
    timer2 = BackwardTimer(torch, types)
    _compiled_grads(timer2, compiled, calls=1)  # after restore: hooks, as for any node
    assert timer2.times(1)[0][0] > 0


def test_a_walk_waits_for_the_backward_and_leaves_a_graph_never_backwarded_free():
    """The hook a call leaves holds no node: a graph whose backward never runs is freed with its output, as without
    us; when a backward runs, the walk's time is kept apart (out of the step)."""
    import weakref

    timer = BackwardTimer(torch)
    kept = []

    def forward(x):
        middle = x.exp()  # saved by exp's and sin's nodes
        kept.append(weakref.ref(middle))
        return middle.sin()

    x = torch.randn(8, requires_grad=True)
    sequence = timer.sequence()
    out = forward(x)
    timer.watch(0, sequence, out)
    assert timer.pending(0)
    del out
    assert kept[0]() is None  # freed: no hook of ours keeps the graph alive
    sequence = timer.sequence()
    out = forward(x)
    timer.watch(1, sequence, out)
    out.sum().backward()
    host, _ = timer.times(2)
    assert host[0] == NO_BACKWARD and host[1] > 0 and not timer.pending(1)
    [(began, took)] = timer.walks
    assert began > 0 and took >= 0


def test_a_node_the_root_does_not_reach_and_a_second_backward_change_nothing():
    """A node the call made that its output does not lead to is not waited for (the root is the last node, hooked
    from its own pre-hook); a second backward through a retained graph keeps the first one's times."""
    timer = BackwardTimer(torch)
    x = torch.randn(8, requires_grad=True)
    sequence = timer.sequence()
    x.cos()  # a node of the call, unreachable from its output
    out = x.sin()
    timer.watch(0, sequence, out)
    out.sum().backward(retain_graph=True)
    first = timer.times(1)[0]
    out.sum().backward()
    assert first[0] > 0 and timer.times(1)[0] == first
    assert torch.equal(x.grad, 2 * x.cos().detach())


def test_the_call_timer_puts_aot_autograds_node_class_back_and_leaves_walks_out_of_the_step():
    """Uninstalling leaves the class without our apply; a walk made in a backward comes off the step it fell in."""
    from tracers.capture.speed import CallTimer, _Calls, _wall_steps

    timer = CallTimer("compiled")
    timer.install()
    try:
        compiled = torch.compile(lambda x: (x * 2 + 1).sin(), backend="aot_eager")
        x = torch.randn(8, requires_grad=True)
        for _ in range(3):
            compiled(x).sum().backward()
        node_type = type(compiled(x).grad_fn)
        assert "apply" in node_type.__dict__
    finally:
        timer.uninstall()
    assert "apply" not in node_type.__dict__ and "apply_boxed" not in node_type.__dict__
    [function] = timer.result().functions
    assert all(ns > 0 for ns in function.backward_host_ns[:3]) and function.backward_host_ns[3] == NO_BACKWARD

    calls = _Calls("a.py:1", 0, "f")
    calls.starts, calls.spent = [0, 100, 200], [10, 10, 10]
    calls.backward = BackwardTimer(torch)
    calls.backward.walks = [(150, 30), (250, 5)]  # one walk in the second step, one after the last call's start
    assert _wall_steps(calls) == (90, 60)


def test_compiled_autograds_switch_is_read_only_where_hooks_would_enter_its_graph():
    """The switch acts through compiled frames: hooks stand aside in the traced run (said once), the eager run never
    reads it, and AOTAutograd's node, timed by its class (never called by compiled autograd), is timed either way."""
    import torch._dynamo

    # torch's own patch, not monkeypatch: undoing a module attribute through delattr/setattr can leave a torch config
    # hidden (its ConfigModule marks a deleted entry so), and every later torch.compile would then fail
    with torch._dynamo.config.patch(compiled_autograd=True):
        x = torch.randn(8, requires_grad=True)
        for dynamo, timed in ((True, False), (False, True)):
            timer = BackwardTimer(torch, NodeTypes(), dynamo=dynamo)
            sequence = timer.sequence()
            out = (x * 2).sin()
            timer.watch(0, sequence, out)
            out.sum().backward()
            assert (timer.times(1)[0][0] > 0) is timed and (timer.note is None) is timed
        compiled = torch.compile(lambda x: (x * 2 + 1).sin(), backend="aot_eager")
        with torch._dynamo.config.patch(compiled_autograd=False):
            _compiled_grads(None, compiled, calls=1)  # compiled outside the switch: later calls make one AOT node
        types = NodeTypes()
        timer = BackwardTimer(torch, types)
        _compiled_grads(timer, compiled, calls=2)
        types.restore()
        assert all(ns > 0 for ns in timer.times(2)[0]) and timer.note is None
    assert not torch._dynamo.config.compiled_autograd  # put back, and readable


class _Window:
    """A profile window over calls 70-72 (the protocol of capture/profile_window.py, nothing profiled)."""

    def before_call(self, calls, index: int) -> bool:  # noqa: ANN001
        return 70 <= index <= 72

    def after_call(self, calls, index: int, took_ns: int) -> bool:  # noqa: ANN001
        return False

    def call_done(self, calls) -> None:  # noqa: ANN001
        pass


def test_a_long_runs_backwards_are_timed_for_the_same_sample_of_calls_in_either_run_and_in_the_window():
    """Every call's backward up to ALL_TIMED, then every SAMPLE_EVERY-th, in the eager run (hooks) as in the compiled
    one (AOTAutograd's node); a call in the profile window is timed whatever its index."""
    from tracers.capture.backward_timing import ALL_TIMED, SAMPLE_EVERY
    from tracers.capture.speed import CallTimer
    from tracers.tracefile.speed import EAGER

    made = ALL_TIMED + 3 * SAMPLE_EVERY
    expected = [*range(ALL_TIMED), *range(ALL_TIMED, made, SAMPLE_EVERY)]
    compiled = torch.compile(lambda x: (x * 2 + 1).sin(), backend="aot_eager")
    for mode, window, also in ((EAGER, None, []), ("compiled", None, []), ("compiled", _Window(), [70, 71, 72])):
        timer = CallTimer(mode, window=window)
        timed, calls = timer.timing(_forward if mode == EAGER else compiled, "f", cuda=False)
        x = torch.randn(8, requires_grad=True)
        try:
            for _ in range(made):
                timed(x).sum().backward()
        finally:
            timer.uninstall()
        host, _ = calls.backward.times(made)
        assert [index for index, ns in enumerate(host) if ns != NO_BACKWARD] == sorted({*expected, *also}), mode


def _forward(x: torch.Tensor) -> torch.Tensor:
    return (x * 2 + 1).sin()

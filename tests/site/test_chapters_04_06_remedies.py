"""Chapters 4-6's claims about what a user can do (issue 41): the recorded traces show them, and small experiments
with the installed torch hold them true (a claim that stops holding fails here, not on a reader's machine)."""

from __future__ import annotations

import importlib.util
import json
import re
from types import ModuleType

import pytest

from tests.conftest import EXAMPLES, ROOT
from tests.site.release_facts import assert_facts_hold

RECORDED = ROOT / "docs" / "_traces" / "cpu" / "2.13.0"
CHAPTERS = ROOT / "docs" / "chapters"


def _facts(stem: str):
    from tracers.analysis.trace_facts import analyze
    from tracers.tracefile.chrome import load

    path = RECORDED / f"{stem}-cpu-cold.json"
    if not path.exists():
        pytest.skip(f"{path.name} is not recorded")
    trace = load(path)
    return trace, analyze(trace)


def _artifact(trace, name: str, compile_id: str) -> str:
    found = [a.payload or "" for a in trace.artifacts if a.name == name and a.compile_id == compile_id]
    assert found, f"no {name} for {compile_id}"
    return found[-1]


# -- recorded: the false claim of chapter 4, and what replaced it ---------------------------------------------

@pytest.mark.pure
def test_module_instances_share_the_resume_functions_recompile_limit():
    """Issue 41's false claim: 'separate per-instance budgets come back when a graph break leaves self to a resume
    function'. In 2.13 the resume function guards self by type, so twelve instances use up one limit of 8."""
    trace, facts = _facts("module_instances")
    ids = [c.compile_id for c in facts.compiles]
    assert ids == ["0/0"] + [f"1/{n}" for n in range(9)]  # forward once; its resume function 8 times, then refused
    assert [c.graphs for c in facts.compiles] == [1] * 9 + [0]
    metrics = [a.metadata for a in trace.artifacts if a.name == "compilation_metrics" and a.compile_id == "1/8"]
    assert metrics and "recompile limit exceeded" in metrics[-1]["fail_reason"]
    reasons = {r.compile_id: r.reasons for r in facts.recompiles}
    assert all(f"self.factor == {n + 1}" in reasons[f"1/{n}"][0] for n in range(1, 9))
    guards = _artifact(trace, "dynamo_cpp_guards_str", "1/0")
    self_lines = [line for line in guards.splitlines() if "L['self']" in line and "MATCH" in line]
    assert any("TYPE_MATCH" in line for line in self_lines)
    assert not any("ID_MATCH" in line for line in self_lines)  # no per-instance identity: no per-instance budget


@pytest.mark.pure
def test_module_instances_with_a_buffer_compile_each_frame_once():
    _, facts = _facts("module_instances_fixed")
    assert [(c.compile_id, c.graphs) for c in facts.compiles] == [("0/0", 1), ("1/0", 1)]
    assert facts.recompiles == []


@pytest.mark.pure
def test_late_hook_before_and_after():
    """Chapter 4's warning: by default a hook added to a submodule after compiling neither recompiles nor runs."""
    _, before = _facts("late_hook")
    assert [c.compile_id for c in before.compiles] == ["0/0"] and before.recompiles == []
    trace, after = _facts("late_hook_fixed")
    assert [c.compile_id for c in after.compiles] == ["0/0", "0/1"]
    assert "not self._modules['proj']._forward_hooks" in after.recompiles[0].reasons[0]
    assert "clamp" in _artifact(trace, "dynamo_output_graph", "0/1")
    assert "clamp" not in _artifact(trace, "dynamo_output_graph", "0/0")


@pytest.mark.pure
def test_chapter_4_no_longer_promises_per_instance_budgets_after_a_break():
    text = (CHAPTERS / "04-guards.md").read_text(encoding="utf-8")
    assert "budgets per instance only come back" not in text
    assert not re.search(r"per-instance budgets? (only )?come back", text)
    assert "```{torch-trace} module_instances" in text  # the experiment that shows the opposite is on the page


@pytest.mark.pure
def test_the_global_state_guard_holds_the_fields_chapter_4_names():
    trace, _ = _facts("guards_recompile")
    tree = _artifact(trace, "dynamo_cpp_guards_str", "0/0")
    line = next(line for line in tree.splitlines() if "GLOBAL_STATE:" in line)
    state = json.loads(line.split(" against ", 1)[1])
    assert {"grad_mode", "autocast_state", "default_dtype", "deterministic_algorithms",
            "deterministic_algorithms_warn_only", "allow_tf32", "allow_fp16_reduce", "allow_bf16_reduce",
            "num_threads", "torch_function", "torch_function_all_disabled"} == set(state)


# -- recorded: chapter 5's before and after -------------------------------------------------------------------

@pytest.mark.pure
def test_break_remedies_before_and_after():
    _, before = _facts("break_remedies")
    _, after = _facts("break_remedies_fixed")
    kinds = [b.reason.split(" — ")[0] for b in before.graph_breaks]
    assert kinds[0].startswith("Unsupported Tensor.item() call")
    assert kinds[1] == "Dynamic shape operator"
    assert "Attempted to call function marked as skipped" in kinds[2]
    assert len(kinds) == 6 and len(before.compiles) == 11
    assert after.graph_breaks == []
    assert [(c.compile_id, c.graphs) for c in after.compiles] == [("0/0", 1), ("1/0", 1), ("2/0", 1), ("3/0", 1)]


@pytest.mark.pure
def test_break_remedies_fixed_graphs_hold_what_chapter_5_says():
    trace, _ = _facts("break_remedies_fixed")
    graphs = {cid: _artifact(trace, "dynamo_output_graph", cid) for cid in ("0/0", "1/0", "2/0", "3/0")}
    assert '"Sym(u0)" = sum_1.item()' in graphs["0/0"]
    assert '"f32[u0][1]cpu"' in graphs["1/0"] and "u0 >= 0" in graphs["1/0"] and "u0 <= 16" in graphs["1/0"]
    assert "flat_apply" in graphs["2/0"] and "sin * 6" in graphs["2/0"]
    assert "torch.ops.walkthrough.checksum.default(sin)" in graphs["3/0"]


# -- recorded: chapter 6's marks and scalars ------------------------------------------------------------------

@pytest.mark.pure
def test_dynamic_marks_cost_what_chapter_6_says():
    _, facts = _facts("dynamic_marks")
    per_frame: dict[str, list[str]] = {}
    for c in facts.compiles:
        per_frame.setdefault(c.frame.split(" ")[0], []).append(c.compile_id)
    assert per_frame == {"unmarked": ["0/0", "0/1"], "marked_dynamic": ["1/0"], "maybe_marked": ["2/0"],
                         "marked_static": ["3/0", "3/1", "3/2"], "marked_unbacked": ["4/0"],
                         "int_factor": ["5/0", "5/1"], "tensor_factor": ["6/0"]}
    reasons = {r.compile_id: r.reasons for r in facts.recompiles}
    assert "k == 2" in reasons["5/1"][0]


# -- every release: the chapters' facts in the recorded verify reports ----------------------------------------

MY_PAGES = ("chapters/04-guards", "chapters/05-graph-breaks", "chapters/06-dynamic-shapes")
# Facts known not to hold on a release, shown as drift on that release's pages (docs/verify/<release>.md).
KNOWN_DRIFT = {
    "2.11.0": {"torch._dynamo.config.use_recursive_dict_tags_for_guards == False",  # True by default in 2.11
               # the same rule, written with config.inline_inbuilt_nn_modules (on) in the condition
               'torch._dynamo.mutation_guard:is_dynamic_nn_module contains "if isinstance(obj, torch.nn.Module) and '
               '( not is_export or config.install_free_tensors ): return True"',
               'torch._dynamo.symbolic_convert:InstructionTranslatorBase.COMPARE_OP contains "@break_graph_if_unsupported("',
               'torch:compile contains "isolate_recompiles: builtins.bool = False,"'},  # new in 2.13
    "2.12.1": {'torch._dynamo.symbolic_convert:InstructionTranslatorBase.COMPARE_OP contains "@break_graph_if_unsupported("',
               'torch:compile contains "isolate_recompiles: builtins.bool = False,"'},  # new in 2.13
    # 2.15 keeps one range per dimension (a later mark replaces an earlier one's), set by a helper
    "2.15.0": {'torch._dynamo.decorators:mark_dynamic contains "t._dynamo_dynamic_range.add(_DimRange(index, min, max))"'},
}


@pytest.mark.pure
@pytest.mark.parametrize("release", ["2.11.0", "2.12.1", "2.14.1", "2.15.0"])
def test_every_fact_of_chapters_4_to_6_is_verified_on_every_release(release):
    """Each locked fact of these chapters is in the release's verify report, and holds there (SAME or MOVED) unless
    it is a drift the pages show on that release."""
    assert_facts_hold(release, MY_PAGES, KNOWN_DRIFT.get(release, ()))


# -- live: small experiments with the installed torch ---------------------------------------------------------

@pytest.fixture
def dynamo():
    torch = pytest.importorskip("torch")
    import torch._dynamo
    from torch._dynamo.utils import counters

    torch._dynamo.reset()
    counters.clear()
    yield torch, counters
    torch._dynamo.reset()
    counters.clear()


def _graphs(counters) -> int:
    return counters["stats"]["unique_graphs"]


def _two_layer(torch):
    class Model(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = torch.nn.Linear(4, 4)

        def forward(self, x):
            return torch.relu(self.lin(x))

    return Model()


@pytest.mark.torch
@pytest.mark.parametrize("skip", [True, False])
def test_a_submodule_hook_added_after_compiling(dynamo, skip):
    torch, counters = dynamo
    with torch._dynamo.config.patch(skip_nnmodule_hook_guards=skip):
        model = _two_layer(torch)
        compiled = torch.compile(model, backend="eager")
        x = torch.randn(2, 4)
        compiled(x)
        model.lin.register_forward_hook(lambda module, args, out: out * 0 + 100)
        applied = bool((compiled(x) == 100).all())
    assert applied is (not skip)  # the default: silently not applied
    assert _graphs(counters) == (1 if skip else 2)  # and nothing recompiles


@pytest.mark.torch
def test_a_hook_on_the_compiled_module_itself_still_runs(dynamo):
    torch, _ = dynamo
    model = _two_layer(torch)
    compiled = torch.compile(model, backend="eager")
    x = torch.randn(2, 4)
    compiled(x)
    model.register_forward_hook(lambda module, args, out: out * 0 + 100)
    assert bool((compiled(x) == 100).all())


@pytest.mark.torch
def test_keep_tensor_guards_also_drops_parameter_and_global_state_guards(dynamo):
    torch, counters = dynamo
    seen = []

    def keep(entries):
        flags = torch.compiler.keep_tensor_guards_unsafe(entries)
        seen.extend((e.guard_type, e.value is not None and isinstance(e.value, torch.nn.Parameter), flag)
                    for e, flag in zip(entries, flags))
        return flags

    compiled = torch.compile(_two_layer(torch), backend="eager", options={"guard_filter_fn": keep})
    x = torch.randn(2, 4)
    compiled(x)
    with torch.no_grad():
        compiled(x)
    assert _graphs(counters) == 1  # grad mode changed, nothing recompiled: the global state guard is gone
    kept = {(kind, is_param) for kind, is_param, flag in seen if flag}
    assert kept == {("TENSOR_MATCH", False)}
    assert ("TENSOR_MATCH", True, False) in seen and ("GLOBAL_STATE", False, False) in seen


@pytest.mark.torch
def test_a_guard_filter_sees_request_names_not_printed_names(dynamo):
    torch, _ = dynamo
    seen = {}

    def keep_all(entries):
        seen.update({e.name: (e.guard_type, e.derived_guard_types) for e in entries})
        return [True] * len(entries)

    namespace = {"torch": torch}  # torch as a global of the compiled function, as in guards_recompile.py
    exec("def scale(x, factor):\n    return torch.tanh(x) * factor\n", namespace)
    scale = namespace["scale"]
    torch.compile(scale, backend="eager", options={"guard_filter_fn": keep_all})(torch.randn(8), 2)
    assert seen["factor"] == ("CONSTANT_MATCH", ("EQUALS_MATCH",))
    assert seen["G['torch']"] == ("MODULE_MATCH", ("ID_MATCH",))
    assert seen["G['torch'].tanh"] == ("BUILTIN_MATCH", ("ID_MATCH",))


@pytest.mark.torch
def test_error_on_recompile_and_the_global_state_reason(dynamo):
    torch, _ = dynamo
    compiled = torch.compile(lambda x: x.sin(), backend="eager")
    compiled(torch.randn(3))
    with torch._dynamo.config.patch(error_on_recompile=True):
        with pytest.raises(torch._dynamo.exc.RecompileError, match="GLOBAL_STATE changed: grad_mode"):
            with torch.no_grad():
                compiled(torch.randn(3))


@pytest.mark.torch
def test_module_instances_hit_the_limit_in_the_resume_function(dynamo, capsys):
    """The false claim's experiment, live: no separate budget per instance for a resume function."""
    torch, counters = dynamo
    module = _import("module_instances")
    x = torch.randn(8)
    for factor in range(2, 14):
        torch.compile(module.Scale(factor), backend="eager")(x)
    capsys.readouterr()
    assert _graphs(counters) == 1 + 8  # forward once, its resume function up to the limit


@pytest.mark.torch
def test_module_instances_with_the_factor_as_a_buffer_compile_once(dynamo, capsys):
    torch, counters = dynamo
    module = _import("module_instances")

    class Buffered(module.Scale):
        def __init__(self, factor: int):
            super().__init__(factor)
            del self.factor
            self.register_buffer("factor", torch.tensor(float(factor)))

    x = torch.randn(8)
    for factor in range(2, 14):
        torch.compile(Buffered(factor), backend="eager")(x)
    capsys.readouterr()
    assert _graphs(counters) == 2  # forward and its resume function, once each, for all twelve


@pytest.mark.torch
def test_break_remedies_compute_the_same_values(dynamo):
    torch, _ = dynamo
    before = _import("break_remedies")
    with torch._dynamo.config.patch(capture_scalar_outputs=False, capture_dynamic_output_shape_ops=False):
        after = _import("break_remedies_fixed")  # it switches both settings on at import: undone on leaving
    x = torch.randn(16, generator=torch.Generator().manual_seed(1))
    pairs = [(before.share_positive, after.share_positive, (x,)), (before.positive_sum, after.positive_sum, (x,)),
             (before.salted, after.salted, (x, "layer1")), (before.stamped, after.stamped, (x,))]
    with torch._dynamo.config.patch(capture_scalar_outputs=True, capture_dynamic_output_shape_ops=True):
        for plain, fixed, args in pairs:
            compiled = torch.compile(fixed, backend="eager", fullgraph=True)
            torch.testing.assert_close(compiled(*args), plain(*args))


@pytest.mark.torch
def test_torch_check_decides_a_branch_and_asserts_at_run_time(dynamo):
    torch, _ = dynamo

    def branch(x):
        n = (x > 0).sum().item()
        torch._check(n > 2)
        if n > 2:
            return x + 1
        return x - 1

    def unchecked(x):
        n = (x > 0).sum().item()
        if n > 2:
            return x + 1
        return x - 1

    with torch._dynamo.config.patch(capture_scalar_outputs=True):
        compiled = torch.compile(branch, backend="aot_eager", fullgraph=True)
        assert compiled(torch.ones(4)).tolist() == [2.0] * 4
        with pytest.raises(RuntimeError, match="Runtime assertion failed"):
            compiled(-torch.ones(4))
        torch._dynamo.reset()
        with pytest.raises(torch._dynamo.exc.UserError, match=re.escape("torch._check*()")):
            torch.compile(unchecked, backend="eager", fullgraph=True)(torch.ones(4))


@pytest.mark.torch
def test_mark_dynamic_errors_where_maybe_mark_dynamic_does_not(dynamo):
    torch, _ = dynamo

    def pairs(x):
        return x.reshape(2, 4) * 2

    x = torch.randn(8)
    torch._dynamo.maybe_mark_dynamic(x, 0)
    torch.compile(pairs, backend="eager")(x)
    torch._dynamo.reset()
    x = torch.randn(8)
    torch._dynamo.mark_dynamic(x, 0)
    with pytest.raises(Exception, match="as dynamic but your code specialized it to be a constant"):
        torch.compile(pairs, backend="eager")(x)


@pytest.mark.torch
def test_module_int_attributes_stay_constants_unless_allowed(dynamo):
    torch, counters = dynamo

    class Scaled(torch.nn.Module):
        def __init__(self, k):
            super().__init__()
            self.k = k

        def forward(self, x):
            return x * self.k

    for allow, expected in ((False, 4), (True, 2)):
        torch._dynamo.reset()
        counters.clear()
        with torch._dynamo.config.patch(allow_unspec_int_on_nn_module=allow):
            for k in (2, 3, 4, 5):
                torch.compile(Scaled(k), backend="eager")(torch.randn(4))
        assert _graphs(counters) == expected, allow


@pytest.mark.torch
def test_parameter_shapes_stay_static_unless_allowed(dynamo):
    torch, counters = dynamo

    class Weighted(torch.nn.Module):
        def __init__(self, n):
            super().__init__()
            self.w = torch.nn.Parameter(torch.randn(n))

        def forward(self, x):
            return x * self.w

    for force, expected in ((True, 4), (False, 2)):
        torch._dynamo.reset()
        counters.clear()
        with torch._dynamo.config.patch(force_parameter_static_shapes=force):
            for n in (4, 6, 8, 10):
                torch.compile(Weighted(n), backend="eager")(torch.randn(n))
        assert _graphs(counters) == expected, force


def _import(stem: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"example_{stem}", EXAMPLES / f"{stem}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module

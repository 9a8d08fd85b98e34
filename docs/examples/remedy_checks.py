"""The remedies and corrections of chapters 4, 5, 6 and 14, each run as a small experiment: what the chapter says a
setting or wrapper does, and what this torch did when it was tried. Every check compiles with a counting backend
(or aot_eager where AOTAutograd's tracing is the point) and prints one line; ``--json FILE`` writes them as one table
per chapter (python -m walkthrough.outputs docs/examples/remedy_checks.py)."""

import json
import operator
import os
import subprocess
import sys

import torch
import torch._dynamo
from torch._dynamo.testing import CompileCounter

SIZES = (8, 10, 12)


def double(x):
    return x * 2 + 1


def compiles(compiled_with, sizes=SIZES, mark=None, **options) -> int:
    """Frame compiles of ``double`` called with a tensor of each size; ``mark(x)`` is applied before each call."""
    torch._dynamo.reset()
    counter = CompileCounter()
    compiled = torch.compile(double, backend=counter, **options) if compiled_with is None else compiled_with(counter)
    for size in sizes:
        x = torch.randn(size)
        if mark is not None:
            mark(x)
        compiled(x)
    return counter.frame_count


def error_of(call) -> str:
    """The exception a call raised, as its type name; "none" when it returned."""
    try:
        call()
    except Exception as exc:  # noqa: BLE001 - the kind of failure is the result
        return type(exc).__name__
    return "none"


# -- chapter 6: dynamic=False, marks with ranges, sources named from outside, eager_then_compile --------------------

def dynamic_false_unmarked() -> int:
    return compiles(None, dynamic=False)


def dynamic_false_marked() -> int:
    return compiles(None, dynamic=False, mark=lambda x: torch._dynamo.mark_dynamic(x, 0))


def marked_with_range() -> int:
    return compiles(None, mark=lambda x: torch._dynamo.mark_dynamic(x, 0, min=2, max=16))


def marked_with_range_outside() -> str:
    """A size outside the range the mark promises: the compile refuses it."""
    torch._dynamo.reset()
    compiled = torch.compile(double, backend=CompileCounter())
    x = torch.randn(32)
    torch._dynamo.mark_dynamic(x, 0, min=2, max=16)
    return error_of(lambda: compiled(x))


def dynamic_sources_child() -> None:
    """Run in a child whose environment names the argument: TORCH_COMPILE_DYNAMIC_SOURCES is read at import."""
    print(compiles(None))


def dynamic_sources() -> int:
    env = {**os.environ, "TORCH_COMPILE_DYNAMIC_SOURCES": "L['x']"}
    done = subprocess.run([sys.executable, __file__, "dynamic-sources-child"], env=env, check=True,
                          capture_output=True, text=True)
    return int(done.stdout.strip().splitlines()[-1])


def eager_then_compile() -> int:
    def compiled_with(counter):
        compiled = torch.compile(double, backend=counter)

        def call(x):
            with torch.compiler.set_stance("eager_then_compile"):
                return compiled(x)
        return call
    return compiles(compiled_with, sizes=(8, 10, 12, 14))


def default_four_sizes() -> int:
    return compiles(None, sizes=(8, 10, 12, 14))


def sum_a_first(a, ab):
    return a.sum() + ab.sum()


def sum_ab_first(a, ab):
    return ab.sum() + a.sum()


def symbol_names(fn) -> str:
    """The symbols of ``a``'s and ``ab``'s sizes under dynamic=True: both source names hash to 97 (modulo 100)."""
    torch._dynamo.reset()
    graphs = []

    def backend(gm, example_inputs):
        graphs.append(gm)
        return gm.forward

    torch.compile(fn, backend=backend, dynamic=True)(torch.randn(3), torch.randn(4))
    sizes = {node.name: node.meta["example_value"].shape[0] for node in graphs[0].graph.nodes
             if node.op == "placeholder" and isinstance(node.meta.get("example_value"), torch.Tensor)}
    return f"a: {sizes['l_a_']}, ab: {sizes['l_ab_']}"


def learning_rate(as_tensor: bool) -> int:
    """An SGD step compiled, its learning rate changed before each of five steps (a scheduler's work)."""
    torch._dynamo.reset()
    counter = CompileCounter()
    weight = torch.nn.Parameter(torch.randn(4))
    weight.grad = torch.randn(4)
    optimizer = torch.optim.SGD([weight], lr=torch.tensor(0.1) if as_tensor else 0.1)
    step = torch.compile(optimizer.step, backend=counter)
    for index in range(5):
        for group in optimizer.param_groups:
            if as_tensor:
                group["lr"].fill_(0.1 / (index + 1))
            else:
                group["lr"] = 0.1 / (index + 1)
        step()
    return counter.frame_count


# -- chapter 4: fail_on_recompile, isolate_recompiles --------------------------------------------------------------

def fail_on_recompile_first_call() -> str:
    torch._dynamo.reset()
    compiled = torch.compile(double, backend=CompileCounter())
    with torch.compiler.set_stance("fail_on_recompile"):
        return error_of(lambda: compiled(torch.randn(4)))


class Scaled(torch.nn.Module):
    def __init__(self, factor: int) -> None:
        super().__init__()
        self.factor = factor

    def forward(self, x):
        return x * self.factor


def instances(isolate: bool, count: int = 12) -> int:
    """``count`` instances with different int factors, each compiled by its own torch.compile call."""
    torch._dynamo.reset()
    counter = CompileCounter()
    options = {"isolate_recompiles": True} if isolate else {}  # an argument since 2.13: left out when off
    models = [torch.compile(Scaled(factor), backend=counter, **options) for factor in range(2, 2 + count)]
    for model in models:
        model(torch.randn(4))
    return counter.frame_count


class Wrapper(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.linear = torch.nn.Linear(4, 4)

    def forward(self, x):
        return self.linear(x)


def hook_on_compiled(make) -> tuple[bool, bool]:
    """A forward hook on the compiled module itself: traced into the module's graph (else its call is outside it, a
    frame of its own)? And one added after the first call: applied?"""
    seven = lambda module, args, out: out * 0 + 7  # noqa: E731 - a hook
    torch._dynamo.reset()
    graphs = []

    def backend(gm, example_inputs):
        graphs.append(gm)
        return gm.forward

    model = make()
    model.register_forward_hook(seven)
    torch.compile(model, backend=backend)(torch.randn(2, 4))
    targets = [{node.target for node in gm.graph.nodes if node.op == "call_function"} for gm in graphs]
    traced = any(torch._C._nn.linear in found and operator.mul in found for found in targets)  # one graph, both
    torch._dynamo.reset()
    model = make()
    compiled = torch.compile(model, backend=backend)
    compiled(torch.randn(2, 4))
    model.register_forward_hook(seven)
    applied = bool((compiled(torch.randn(2, 4)) == 7).all())
    return traced, applied


# -- chapter 5: fullgraph alone, custom_op and autograd, nonstrict_trace's unguarded reads ---------------------------

def share(x):
    n = x.sum().item()
    return x * n


def positives(x):
    return x[x > 0] * 2


def graph_breaks(fn, x, **options) -> int:
    torch._dynamo.reset()
    counter = CompileCounter()
    torch.compile(fn, backend=counter, **options)(x)
    return counter.frame_count - 1  # one frame more per break


@torch.library.custom_op("remedy_checks::host_sin", mutates_args=())
def host_sin(x: torch.Tensor) -> torch.Tensor:
    return torch.from_numpy(x.detach().numpy().copy()).sin()  # the data, read on the host: no tracer can enter


@host_sin.register_fake
def _(x):
    return torch.empty_like(x)


def custom_op_with_grad() -> str:
    torch._dynamo.reset()
    x = torch.randn(4, requires_grad=True)
    return error_of(lambda: torch.compile(lambda t: host_sin(t) * 2, backend="aot_eager")(x))


def register_autograd() -> None:
    def setup_context(ctx, inputs, output):
        ctx.save_for_backward(inputs[0])

    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * x.cos()

    host_sin.register_autograd(backward, setup_context=setup_context)


SCALE = 2.0


@torch._dynamo.nonstrict_trace
def scaled(x):
    return x * SCALE  # a global read inside: a constant of the trace, with no guard on it


def nonstrict_global() -> tuple[float, float]:
    """The compiled function's output before and after the global changes from 2.0 to 3.0 (eager: 3.0, then 4.0)."""
    global SCALE
    torch._dynamo.reset()
    compiled = torch.compile(lambda x: scaled(x) + 1, backend="aot_eager")
    x = torch.ones(3)
    SCALE = 2.0
    before = compiled(x)[0].item()
    SCALE = 3.0
    after = compiled(x)[0].item()
    SCALE = 2.0
    return before, after


@torch._dynamo.nonstrict_trace
def scaled_by(x, scale):
    return x * scale


def nonstrict_argument() -> tuple[float, float]:
    """The same, the value passed as an argument: Dynamo sees it at the call site."""
    global SCALE
    torch._dynamo.reset()
    compiled = torch.compile(lambda x: scaled_by(x, SCALE) + 1, backend="aot_eager")
    x = torch.ones(3)
    SCALE = 2.0
    before = compiled(x)[0].item()
    SCALE = 3.0
    after = compiled(x)[0].item()
    SCALE = 2.0
    return before, after


# -- chapter 14: nested_compile_region inside a whole-model compile ------------------------------------------------

class Block(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.linear = torch.nn.Linear(16, 16)

    @torch.compiler.nested_compile_region
    def forward(self, x):
        return torch.relu(self.linear(x))


def nested_region(blocks: int = 6) -> tuple[int, int, int, int]:
    """A whole-model compile of ``blocks`` blocks: its frame compiles, the blocks traced inline in the top graph, the
    invoke_subgraph calls and how many distinct subgraphs they call."""
    from torch._higher_order_ops.invoke_subgraph import invoke_subgraph

    torch._dynamo.reset()
    graphs = []

    def backend(gm, example_inputs):
        graphs.append(gm)
        return gm.forward

    model = torch.nn.Sequential(*[Block() for _ in range(blocks)])
    torch.compile(model, backend=backend)(torch.randn(2, 16))
    nodes = [node for g in graphs for node in g.graph.nodes if node.op == "call_function"]
    calls = [node for node in nodes if node.target is invoke_subgraph]
    inline = sum(1 for node in nodes if node.target is torch._C._nn.linear)
    return len(graphs), inline, len(calls), len({node.args[1] for node in calls})


def mega_cache_child() -> None:
    """Compile once, then print the kinds of entry save_cache_artifacts put in its bytes."""
    torch.compile(double, backend="aot_eager")(torch.randn(8))
    saved = torch.compiler.save_cache_artifacts()
    print(",".join(sorted(kind for kind, keys in saved[1].artifacts.items() if keys)) if saved else "")


def mega_cache_kinds(precompile: bool) -> str:
    """The kinds in a fresh process's Mega-Cache bytes, with TORCH_CACHING_PRECOMPILE off or on."""
    import tempfile

    with tempfile.TemporaryDirectory() as cache_dir:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("TORCHINDUCTOR_", "TORCH_"))}
        env.update(TORCHINDUCTOR_CACHE_DIR=cache_dir, TORCH_CACHING_PRECOMPILE="1" if precompile else "0")
        done = subprocess.run([sys.executable, __file__, "mega-cache-child"], env=env, check=True,
                              capture_output=True, text=True)
    return done.stdout.strip().splitlines()[-1] if done.stdout.strip() else ""


def lite_mode() -> tuple[int, int]:
    """mode="lite" on a small pointwise function: the generated kernels and the ATen calls in Inductor's output."""
    from torch._inductor.utils import run_and_get_code

    torch._dynamo.reset()
    _, codes = run_and_get_code(torch.compile(lambda x: (torch.sin(x) * 2 + 1).relu().sum(), mode="lite"),
                                torch.randn(64))
    kernels = sum(code.count("async_compile.cpp") + code.count("async_compile.triton") for code in codes)
    return kernels, sum(code.count("torch.ops.aten.") for code in codes)


def said(result) -> str:
    """A check's result as text; a check that fails on this torch says how (another release may lack what it uses)."""
    try:
        return result()
    except Exception as exc:  # noqa: BLE001 - the failure is the result
        return f"failed: {type(exc).__name__}"


def _nonstrict(check=None) -> str:
    before, after = (check or nonstrict_global)()
    return f"{before:g}, then {after:g} (eager: 3, then 4)"


def _custom_op() -> tuple[str, str]:
    before = custom_op_with_grad()
    register_autograd()
    after = custom_op_with_grad()
    return f"raised {before}", "compiled" if after == "none" else f"raised {after}"


def _nested() -> str:
    frames, inline, calls, subgraphs = nested_region()
    return (f"{_plural(frames, 'graph')}: {inline} block inline, {_plural(calls, 'invoke_subgraph call')} of "
            f"{_plural(subgraphs, 'subgraph')}")


def _hook(make) -> str:
    traced, applied = hook_on_compiled(make)
    return (f"{'in the module graph' if traced else 'outside the module graph'}; the late one "
            f"{'applied' if applied else 'silently ignored'}")


def _lite() -> str:
    kernels, aten = lite_mode()
    return f"{kernels} generated kernels, {aten} ATen calls"


def _plural(count: int, noun: str) -> str:
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


def rows() -> dict[str, list[list[str]]]:
    """{chapter's table: [claim, what was run, what this torch did]}."""
    custom = said(lambda: " | ".join(_custom_op())).split(" | ")
    custom_before, custom_after = (custom + custom)[:2]
    table = {
        "ch4": [
            ['set_stance("fail_on_recompile") raises on a first compile too',
             "one function, first call under the stance", lambda: f"raised {fail_on_recompile_first_call()}"],
            ["instances share one recompile limit", "12 instances, int factors 2-13, one torch.compile each",
             lambda: f"{instances(False)} compiles, the rest ran eagerly"],
            ["isolate_recompiles=True: a cache and limit per torch.compile call", "the same, isolate_recompiles=True",
             lambda: f"{instances(True)} compiles, none eager"],
            ["a hook on the compiled module (one of yours) itself", "registered before the first call; another after it",
             lambda: _hook(Wrapper)],
            ["a hook on the compiled torch.nn.Linear itself", "registered before the first call; another after it",
             lambda: _hook(lambda: torch.nn.Linear(4, 4))],
        ],
        "ch5": [
            [".item() under fullgraph=True alone", "x * x.sum().item(), no setting",
             lambda: _plural(graph_breaks(share, torch.randn(4), fullgraph=True), "graph break")],
            [".item() without fullgraph", "the same, fullgraph off",
             lambda: _plural(graph_breaks(share, torch.randn(4)), "graph break")],
            ["a boolean mask under fullgraph=True alone", "x[x > 0] * 2, no setting",
             lambda: _plural(graph_breaks(positives, torch.randn(8), fullgraph=True), "graph break")],
            ["custom_op with register_fake only", "an input that requires grad, aot_eager", lambda: custom_before],
            ["custom_op with register_autograd too", "the same", lambda: custom_after],
            ["nonstrict_trace reads a global once", "x * SCALE + 1, SCALE 2.0 then 3.0, aot_eager", _nonstrict],
            ["nonstrict_trace given the value as an argument", "the same, SCALE passed in",
             lambda: _nonstrict(nonstrict_argument)],
        ],
        "ch6": [
            ["dynamic=False, unmarked", "sizes 8, 10, 12", lambda: _plural(dynamic_false_unmarked(), "compile")],
            ["dynamic=False, mark_dynamic(x, 0)", "sizes 8, 10, 12", lambda: _plural(dynamic_false_marked(), "compile")],
            ["mark_dynamic(x, 0, min=2, max=16)", "sizes 8, 10, 12", lambda: _plural(marked_with_range(), "compile")],
            ["mark_dynamic(x, 0, min=2, max=16)", "size 32", lambda: f"raised {marked_with_range_outside()}"],
            ["TORCH_COMPILE_DYNAMIC_SOURCES=\"L['x']\"", "sizes 8, 10, 12, no mark in the code",
             lambda: _plural(dynamic_sources(), "compile")],
            ["symbol names: a and ab both hash to 97", "dynamic=True, a used first", lambda: symbol_names(sum_a_first)],
            ["symbol names: a and ab both hash to 97", "dynamic=True, ab used first",
             lambda: symbol_names(sum_ab_first)],
            ["default", "sizes 8, 10, 12, 14", lambda: _plural(default_four_sizes(), "compile")],
            ['set_stance("eager_then_compile")', "sizes 8, 10, 12, 14, no mark",
             lambda: _plural(eager_then_compile(), "compile")],
            ["SGD step, lr a float", "lr changed before each of 5 steps", lambda: _plural(learning_rate(False), "compile")],
            ["SGD step, lr a 0-d tensor", "lr changed in place before each of 5 steps",
             lambda: _plural(learning_rate(True), "compile")],
        ],
        "ch14": [
            ["nested_compile_region on the block's forward", "6 blocks, the model compiled whole", _nested],
            *[["save_cache_artifacts(): the kinds of entry in its bytes",
               f"a fresh process, aot_eager, TORCH_CACHING_PRECOMPILE={int(on)}",
               lambda on=on: mega_cache_kinds(on) or "none"] for on in (False, True)],
        ],
        "ch15": [
            ['mode="lite"', "(sin(x) * 2 + 1).relu().sum(), Inductor's output code", _lite],
        ],
    }
    return {name: [[claim, run, said(result)] for claim, run, result in lines] for name, lines in table.items()}


def main() -> None:
    tables = rows()
    for name, table in tables.items():
        for claim, run, result in table:
            print(f"{name}: {claim} | {run} | {result}")
    if "--json" in sys.argv:  # the same as data, for a recording (python -m walkthrough.outputs)
        columns = ["claim", "run", f"torch {torch.__version__.split('+')[0]}"]
        with open(sys.argv[sys.argv.index("--json") + 1], "w", encoding="utf-8") as out:
            json.dump({"tables": {name: {"columns": columns, "rows": table} for name, table in tables.items()}}, out)


if __name__ == "__main__":
    if sys.argv[1:2] == ["dynamic-sources-child"]:
        dynamic_sources_child()
    elif sys.argv[1:2] == ["mega-cache-child"]:
        mega_cache_child()
    else:
        main()

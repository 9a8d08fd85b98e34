"""Hooks really intercept, and every patch is undone exactly: normal exit, exception, Ctrl-C, nesting, threads."""

from __future__ import annotations

import sys
import threading
from types import FunctionType, ModuleType

import pytest
import torch
import torch._dynamo
import torch._dynamo.compiled_autograd  # noqa: F401

# Importing these up front makes every target's module already loaded, so the tests below check
# the patch-now path (the post-import path is checked in a fresh process at the end).
import torch._functorch.partitioners  # noqa: F401
import torch._inductor.codegen.cpp  # noqa: F401
import torch._inductor.codegen.triton  # noqa: F401
import torch._inductor.compile_fx  # noqa: F401
import torch._inductor.cudagraph_trees  # noqa: F401
import torch._inductor.select_algorithm  # noqa: F401

from tracers.capture.hooks import HookSet
from tracers.capture.recorder import Recorder
from tracers.capture.session import TraceSession
from tracers.tracefile.stages import Target, all_targets

from tests.conftest import run_python

pytestmark = pytest.mark.torch


@pytest.fixture(autouse=True)
def fresh_dynamo():
    torch._dynamo.reset()
    yield
    torch._dynamo.reset()


def _holders_of(originals: dict[int, str]) -> dict[tuple[int, str], object]:
    """Every place that holds one of the originals: module globals, and argument defaults of
    functions in torch's modules. Keyed by (id(holder), name) -> the held object."""
    found: dict[tuple[int, str], object] = {}
    for module in list(sys.modules.values()):
        if not isinstance(module, ModuleType) or not module.__name__.startswith("torch"):
            continue
        for name, value in list(vars(module).items()):
            if id(value) in originals:
                found[(id(module), name)] = value
            if isinstance(value, FunctionType) and value.__defaults__:
                for index, default in enumerate(value.__defaults__):
                    if id(default) in originals:
                        found[(id(value), f"default {index}")] = default
    return found


def _snapshot() -> dict[str, object]:
    """The raw attribute of every target, as stored on its module or in its class's __dict__."""
    snapshot = {}
    for target in all_targets():
        module = sys.modules[target.module]
        *path, attr = target.qualname.split(".")
        owner = module
        for part in path:
            owner = getattr(owner, part)
        snapshot[target.name] = vars(owner)[attr] if isinstance(owner, type) else getattr(owner, attr)
    return snapshot


def _compile_once(backend: str = "aot_eager") -> torch.Tensor:
    def f(x):
        return torch.relu(x) * 2

    return torch.compile(f, backend=backend)(torch.randn(4, requires_grad=True))


def test_every_target_is_patched_at_its_definition_and_at_every_binding():
    before = _snapshot()
    originals = {id(value): name for name, value in before.items()}
    holders_before = _holders_of(originals)
    with TraceSession() as session:
        # No module global or argument default may still hold an original while tracing.
        assert _holders_of(originals) == {}, "an original is still reachable"
        assert set(session.hooks.hooked) == {target.name for target in all_targets()}
        assert session.hooks.missing == {}
        hows = {(patch.target, patch.how) for patch in session.hooks.patches}
    # Bindings this torch is known to have: aot_module_simplified imported by name into
    # torch._dynamo.backends.common, and compile_fx_inner held as compile_fx's inner_compile default.
    assert ("torch._functorch.aot_autograd:aot_module_simplified", "binding") in hows
    assert ("torch._inductor.compile_fx:compile_fx_inner", "default") in hows
    assert _snapshot() == before and all(_snapshot()[k] is v for k, v in before.items())
    assert _holders_of(originals) == holders_before


@pytest.mark.parametrize("ending", [None, ValueError, KeyboardInterrupt])
def test_patches_are_undone_exactly_however_the_body_ends(ending):
    before = _snapshot()
    session = TraceSession()
    with pytest.raises(ending) if ending else _nothing():
        with session:
            _compile_once()
            if ending:
                raise ending()
    after = _snapshot()
    assert all(after[name] is before[name] for name in before)
    assert session.recorder.spans, "the compile inside the session was recorded"
    expected_status = {None: "ok", ValueError: "error", KeyboardInterrupt: "interrupted"}[ending]
    assert session.info.status == expected_status


class _nothing:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def test_nested_sessions_both_record_and_unwind_in_order():
    before = _snapshot()
    with TraceSession() as outer:
        with TraceSession() as inner:
            _compile_once()
        inner_count = len(inner.recorder.spans)
        torch._dynamo.reset()
        _compile_once()
    assert inner_count > 0
    # The outer session saw both compiles, the inner one only the first.
    outer_compiles = [s for s in outer.recorder.spans if s.target.endswith(":_compile")]
    inner_compiles = [s for s in inner.recorder.spans if s.target.endswith(":_compile")]
    assert len(outer_compiles) == 2 and len(inner_compiles) == 1
    assert all(_snapshot()[name] is before[name] for name in before)


def test_repeated_sessions_each_record_their_own_compile():
    counts = []
    for _ in range(2):
        torch._dynamo.reset()
        with TraceSession() as session:
            _compile_once()
        counts.append(sum(s.target.endswith(":_compile") for s in session.recorder.spans))
    assert counts == [1, 1]


def test_wrappers_that_outlive_the_session_call_straight_through():
    recorder = Recorder()
    target = next(t for t in all_targets() if t.name == "torch._dynamo.convert_frame:_compile")
    hooks = HookSet([target], recorder)
    hooks.install()
    captured = torch._dynamo.convert_frame._compile
    hooks.uninstall()
    recorder.active = False
    assert captured is not torch._dynamo.convert_frame._compile
    assert captured.__wrapped__ is torch._dynamo.convert_frame._compile
    _compile_once()  # the live path uses the original again
    assert recorder.spans == []


def test_two_threads_compiling_at_once_are_recorded_with_their_own_nesting():
    barrier = threading.Barrier(2)
    errors = []

    def work(scale: float):
        try:
            def f(x):
                return torch.cos(x) * scale

            compiled = torch.compile(f, backend="aot_eager")
            barrier.wait()
            compiled(torch.randn(8))
        except BaseException as error:  # surfaced below
            errors.append(error)

    with TraceSession() as session:
        threads = [threading.Thread(target=work, args=(s,), name=f"compiler-{s}") for s in (2.0, 3.0)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    assert not errors
    spans = session.recorder.spans
    by_id = {span.id: span for span in spans}
    thread_names = {span.thread_name for span in spans if span.target.endswith(":_compile")}
    assert thread_names == {"compiler-2.0", "compiler-3.0"}
    for span in spans:
        if span.parent is not None:
            parent = by_id[span.parent]
            assert parent.thread_id == span.thread_id
            assert parent.depth == span.depth - 1
            assert parent.start_ns <= span.start_ns and span.end_ns <= parent.end_ns
    compile_ids = {span.compile_id for span in spans if span.target.endswith(":_compile")}
    assert len(compile_ids) == 2


def test_targets_this_torch_lacks_are_reported_not_fatal():
    fake = [
        Target("torch._dynamo.convert_frame", "NoSuchClass.__call__", "frame"),
        Target("torch._dynamo.symbolic_convert", "InstructionTranslator.run", "bytecode"),
        Target("torch._no_such_module", "compile", "entry"),
    ]
    with TraceSession(targets=fake) as session:
        _compile_once()
    missing = session.info.targets_missing
    assert "not found" in missing["torch._dynamo.convert_frame:NoSuchClass.__call__"]
    # run is defined on InstructionTranslatorBase: reported as inherited, never patched on the base.
    assert missing["torch._dynamo.symbolic_convert:InstructionTranslator.run"] == (
        "InstructionTranslator.run: inherited from InstructionTranslatorBase")
    assert missing["torch._no_such_module:compile"] == "no module torch._no_such_module"
    assert session.recorder.spans == []


def test_nothing_runs_on_the_hot_path_after_compiling():
    with TraceSession() as session:
        model = torch.nn.Linear(4, 4)
        compiled = torch.compile(model, backend="aot_eager")
        x = torch.randn(2, 4)
        compiled(x).sum().backward()
        after_first = len(session.recorder.spans)
        for _ in range(20):
            compiled(x).sum().backward()
    assert after_first > 0
    assert len(session.recorder.spans) == after_first


_POST_IMPORT_CHECK = r"""
import sys, torch
from tracers.capture.session import TraceSession
assert "torch._inductor.compile_fx" not in sys.modules
with TraceSession() as session:
    import torch._inductor.compile_fx as cf
    assert "__tracers_target__" in cf.compile_fx_inner.__dict__, "patched on import"
    assert cf.compile_fx.__wrapped__.__defaults__[0] is cf.compile_fx_inner, "default rebound"
    finders = [type(f).__name__ for f in sys.meta_path]
    assert "_PostImportFinder" in finders
    assert type(cf.__loader__).__name__ != "_NotifyingLoader"
original = cf.compile_fx_inner
assert "__tracers_target__" not in original.__dict__
assert cf.compile_fx.__defaults__[0] is original
assert "_PostImportFinder" not in [type(f).__name__ for f in sys.meta_path]
assert type(cf.__loader__).__name__ == "SourceFileLoader", type(cf.__loader__)
print("post-import ok")
"""


def test_modules_imported_later_are_patched_on_import_and_left_clean():
    result = run_python(["-c", _POST_IMPORT_CHECK])
    assert result.returncode == 0, result.stderr
    assert "post-import ok" in result.stdout


def test_compiled_results_are_identical_with_and_without_the_tracer():
    def run() -> list[torch.Tensor]:
        torch._dynamo.reset()
        torch.manual_seed(0)
        model = torch.nn.Sequential(torch.nn.Linear(6, 12), torch.nn.GELU(), torch.nn.Linear(12, 3))
        compiled = torch.compile(model, backend="aot_eager")
        x = torch.randn(5, 6)
        out = compiled(x)
        out.square().sum().backward()
        return [out.detach(), *(p.grad for p in model.parameters())]

    plain = run()
    with TraceSession() as session:
        traced = run()
    assert session.recorder.spans
    assert all(torch.equal(a, b) for a, b in zip(plain, traced))


def test_regions_a_script_marks_hold_the_compile_steps_they_caused():
    from tracers import region

    with region("outside any trace"):
        pass  # no session: nothing to record, nothing raised
    with TraceSession() as session:
        with region("first call"):
            _compile_once()
        with region("second call"):
            _compile_once()  # the frame is cached: only the torch.compile wrapper call is inside
    spans = session.recorder.spans
    first, second = (s for s in spans if s.stage == "user")
    assert (first.target, second.target) == ("user:first call", "user:second call")
    children = {s.target for s in spans if s.parent == first.id}
    assert "torch._dynamo.convert_frame:ConvertFrame.__call__" in children
    assert {s.stage for s in spans if s.parent == second.id} == {"entry"}  # torch.compile itself, no compile

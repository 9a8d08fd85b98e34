"""Compile ids across resets, torch's counts beside the trace's, and the -m split of the trace command line."""

from __future__ import annotations

from tracers.analysis.totals import Totals, compare

from tracers.commands.trace import split_module as _split_module
from tracers.tracefile.compile_identity import CompileIdentity, qualified, sort_key, split, torch_id
import pytest

pytestmark = pytest.mark.torch


def test_ids_before_any_reset_are_torchs_own():
    identity = CompileIdentity()
    assert identity.qualify("0/0", "frame") == "0/0"
    assert identity.qualify(None, "frame") is None


def test_a_reset_prefixes_later_compiles_and_keeps_torchs_id():
    identity = CompileIdentity()
    identity.qualify("0/0", "frame")
    identity.note_reset()
    assert identity.qualify("0/0", "bytecode") == "r1:0/0"
    assert split("r1:0/0") == (1, "0/0") and torch_id("r1:!0/1/0") == "!0/1/0"
    assert qualified("0/0", 0) == "0/0" and qualified("0/0", 2) == "r2:0/0"


def test_a_lazy_backward_after_a_reset_keeps_the_compile_it_belongs_to():
    identity = CompileIdentity()
    identity.qualify("0/0", "frame")
    identity.note_reset()
    # AOTAutograd compiles the backward of the old 0/0 on the first .backward(), after the reset.
    assert identity.qualify("0/0", "aot") == "0/0"
    assert identity.qualify("3/0", "inductor") == "r1:3/0"  # never compiled before: the current generation
    identity.qualify("0/0", "frame")  # the new 0/0 starts
    assert identity.qualify("0/0", "aot") == "r1:0/0"


def test_sort_order_is_resets_then_torchs_numbers_with_no_id_last():
    ids = ["r1:0/0", None, "1/0", "!0/0/0", "0/1", "r2:0/0", "0/0", "r1:1/0"]
    assert sorted(ids, key=sort_key) == ["0/0", "!0/0/0", "0/1", "1/0", "r1:0/0", "r1:1/0", "r2:0/0", None]


def test_compare_names_each_difference():
    check = compare(Totals(3, 1, 2, 0), Totals(3, 2, 2, 1))
    assert check.mismatches == ("graph breaks: the trace has 1, torch counted 2",
                                "recompiles: the trace has 0, torch counted 1")
    assert compare(Totals(1, 0, 1, 0), Totals(1, 0, 1, 0)).mismatches == ()
    skipped = compare(Totals(1, 0, 1, 0), None)
    assert skipped.skipped and skipped.torch == {}


def test_split_module_leaves_the_modules_arguments_alone():
    assert _split_module(["trace", "--out", "d", "-m", "pkg.mod", "--out", "x"]) == \
        (["trace", "--out", "d"], "pkg.mod", ["--out", "x"])
    assert _split_module(["trace", "-mpkg", "a"]) == (["trace"], "pkg", ["a"])
    assert _split_module(["trace", "script.py", "-m", "x"]) == (["trace", "script.py", "-m", "x"], None, [])
    assert _split_module(["trace", "--quiet", "-m"]) == (["trace", "--quiet"], "", [])


def test_counter_notices_a_program_that_clears_torchs_counters():
    import torch._dynamo.utils

    from tracers.capture.torch_counts import TorchCounter

    counter = TorchCounter()
    counter.start()
    torch._dynamo.utils.counters.clear()  # what torch's own test cases do between tests
    assert counter.finish() is None and counter.cleared


def test_counter_reads_what_torch_counted_across_a_reset():
    import torch

    from tracers.capture.torch_counts import TorchCounter

    counter = TorchCounter()
    counter.start()
    torch.compile(lambda x: x.sin() + 1, backend="eager")(torch.randn(3))
    counter.before_reset()
    torch._dynamo.reset()
    torch.compile(lambda x: x.cos() * 2, backend="eager")(torch.randn(3))
    assert counter.finish() == Totals(graphs=2, graph_breaks=0, frame_compiles=2, recompiles=0)

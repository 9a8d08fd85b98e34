"""A module hook added after compiling, which the compiled code never runs: where the hook's own code reads a value
into Python or appends to an outer list, tracing it would break and recompile, so the fix keeps it eager."""

from __future__ import annotations

from types import SimpleNamespace

from tracers.analysis.ignored_hooks import ignored_hooks
from tracers.analysis.run_evidence import RunEvidence
from tracers.capture.late_hooks import _untraceable
from tracers.tracefile.events import Artifact


def _trace(hook: dict) -> SimpleNamespace:
    return SimpleNamespace(artifacts=[Artifact(1, "hooks", "late_hooks", None, None, 1, 0, {
        "frame": "Net.forward", "compile_id": "0/0", "count": 1, "seen_at": None,
        "hooks": [{"module": "features.2", "kind": "forward hook", "function": "main.<locals>.<lambda>",
                   "file": "/home/user/train.py", "line": 38, "loc": "net.features[2].register_forward_hook(", **hook}]})])


_EVIDENCE = RunEvidence(config={"0/0": {"skip_nnmodule_hook_guards": True}}, served={"0/0": 5})


def test_what_a_hook_reads_and_grows_is_read_from_its_own_bytecode():
    stats: list[float] = []
    assert _untraceable(lambda module, args, out: stats.append(out.detach().abs().mean().item())) == {
        "reads": ["item"], "grows": ["stats"]}

    def local_list(module, args, out):  # its own list: nothing outer is guarded
        seen = []
        seen.append(out.sum().tolist())
        return out.clamp(max=1)

    assert _untraceable(local_list) == {"reads": ["tolist"]}
    assert _untraceable(lambda module, args, out: out.clamp(max=0.1)) == {}
    assert _untraceable(len) == {}  # no code of its own: nothing claimed


def test_a_hook_that_reads_a_value_and_appends_is_told_to_stay_eager():
    [finding] = ignored_hooks(_trace({"reads": ["item"], "grows": ["feat_stats"]}), _EVIDENCE, {})
    said = " ".join(finding.parts)
    assert "calls `.item()` and appends to `feat_stats`" in said
    assert "that call breaks the graph" in said and "guards on the length of `feat_stats`" in said
    assert "torch.compiler.disable(fn)" in finding.advice
    # the setting alone makes it run, traced: its check (trace --check-fixes) shows what that costs
    assert [remedy.name for remedy in finding.remedies] == ["torch._dynamo.config.skip_nnmodule_hook_guards"]


def test_a_hook_that_only_computes_keeps_the_hook_guard_setting_as_its_checked_fix():
    [finding] = ignored_hooks(_trace({}), _EVIDENCE, {})
    assert "torch.compiler.disable" not in finding.advice and "Register the hook before" in finding.advice
    assert [remedy.name for remedy in finding.remedies] == ["torch._dynamo.config.skip_nnmodule_hook_guards"]
    assert not any("breaks the graph" in part for part in finding.parts)

"""Code facts (``module:qualname contains "code"``): the chapters' claims about what torch does, checked statically."""

from __future__ import annotations

import pytest

from walkthrough.facts import Claim, evaluate
from walkthrough.source import open_source
from walkthrough.symbols import resolver_for

pytestmark = pytest.mark.pure


@pytest.fixture(scope="module")
def installed():
    return resolver_for(open_source("installed"))


def test_a_code_fact_points_at_the_line_that_holds_the_code(installed):
    claim = Claim.parse('torch._dynamo.symbolic_convert:InstructionTranslatorBase.step contains "self.step_graph_break(inst)"')
    assert (claim.op, claim.name, claim.expected) == (
        "contains", "torch._dynamo.symbolic_convert:InstructionTranslatorBase.step", "self.step_graph_break(inst)")
    result = evaluate(installed, claim)
    assert result.holds and result.path == "torch/_dynamo/symbolic_convert.py"
    assert "self.step_graph_break(inst)" in installed.source.read(result.path).splitlines()[result.line - 1]


def test_whitespace_runs_count_as_one_space(installed):
    spaced = Claim.parse('torch._dynamo.symbolic_convert:InstructionTranslatorBase  contains "BINARY_SUBSCR   =  break_graph_if_unsupported("')
    assert evaluate(installed, spaced).holds


def test_absent_code_and_missing_symbols(installed):
    absent = evaluate(installed, Claim.parse('torch._dynamo.symbolic_convert:InstructionTranslatorBase.step contains "no such code"'))
    assert (absent.status, absent.actual) == ("false", "not in its code")
    gone = evaluate(installed, Claim.parse('torch._dynamo.symbolic_convert:NoSuchClass contains "x"'))
    assert gone.status == "missing" and "NoSuchClass" in gone.reason


@pytest.mark.parametrize("bad", ['torch.x:f contains nope', 'torch.x:f contains ""', 'torch x:f contains "a"'])
def test_malformed_code_facts(bad):
    with pytest.raises(ValueError, match="fact"):
        Claim.parse(bad)


def test_a_module_level_setting_is_checked_by_its_assignment(installed):
    """``torch.compiler.config:cache_key_tag contains "TORCH_COMPILE_CACHE_KEY_TAG"``: the Config call that reads
    the environment variable, found by name at module level (chapter 14's environment-variable facts)."""
    result = evaluate(installed, Claim.parse('torch.compiler.config:cache_key_tag contains "TORCH_COMPILE_CACHE_KEY_TAG"'))
    assert result.holds and result.path == "torch/compiler/config.py"
    assert "cache_key_tag" in installed.source.read(result.path).splitlines()[result.line - 1]
    spanning = evaluate(installed, Claim.parse(
        'torch.compiler.config:force_disable_caches contains "TORCHINDUCTOR_FORCE_DISABLE_CACHES"'))
    assert spanning.holds and spanning.line > evaluate(installed, Claim.parse(
        'torch.compiler.config:force_disable_caches contains "force_disable_caches"')).line
    assert evaluate(installed, Claim.parse('torch.compiler.config:cache_key_tag contains "NOT_ITS_NAME"')).status == "false"
    assert evaluate(installed, Claim.parse('torch.compiler.config:no_such_setting contains "x"')).status == "missing"

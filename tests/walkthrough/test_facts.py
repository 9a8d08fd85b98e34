"""Checked facts: config defaults read statically in every common form, and against the installed torch."""

from __future__ import annotations

import pytest

from tests.walkthrough_fixtures import CONFIG_TEXT, write_tree
from walkthrough.facts import Claim, evaluate, evaluate_live
from walkthrough.source import open_source
from walkthrough.symbols import resolver_for

pytestmark = pytest.mark.pure


@pytest.fixture(scope="module")
def tree(tmp_path_factory):
    return resolver_for(open_source(str(write_tree(tmp_path_factory.mktemp("t")))))


def line_of(needle: str) -> int:
    return next(i for i, line in enumerate(CONFIG_TEXT.splitlines(), 1) if line.startswith(needle))


@pytest.mark.parametrize(("claim", "status", "actual", "line"), [
    ("torch._pipeline.config.recompile_cap == 8", "true", "8", "recompile_cap"),  # name = value
    ("torch._pipeline.config.budget == 65536", "true", "65536", "budget"),  # name: type = arithmetic
    ("torch._pipeline.config.verbose == False", "true", "False", "verbose"),
    ("torch._pipeline.config.verbose == 0", "false", "False", "verbose"),  # 0 is not False
    ("torch._pipeline.config.cache_size == 256", "true", "256", "cache_size"),  # Config(default=...)
    ("torch._pipeline.config.old_cap == 8", "true", "8", "old_cap"),  # Config(alias=...) followed
    ("torch._pipeline.config.nested.flag == True", "true", "True", "    flag"),  # nested config class
    ("torch._pipeline.config.recompile_cap == 9", "false", "8", "recompile_cap"),
])
def test_static_evaluation(tree, claim, status, actual, line):
    result = evaluate(tree, Claim.parse(claim))
    assert (result.status, result.actual, result.path) == (status, actual, "torch/_pipeline/config.py")
    assert result.line == line_of(line)


def test_what_cannot_be_decided_statically(tree):
    env = evaluate(tree, Claim.parse("torch._pipeline.config.from_env == True"))
    assert env.status == "unknown" and "not a literal" in env.reason
    assert evaluate(tree, Claim.parse("torch._pipeline.config.gone == 1")).status == "missing"
    assert evaluate(tree, Claim.parse("torch._nowhere.x == 1")).status == "missing"


@pytest.mark.parametrize("bad", ["recompile_limit = 8", "torch.x == nope()", "== 3", "a b == 1"])
def test_malformed_claims(bad):
    with pytest.raises(ValueError, match="fact"):
        Claim.parse(bad)


def test_recompile_limit_of_the_installed_torch():
    tree = resolver_for(open_source("installed"))
    import torch._dynamo.config as config

    claim = Claim.parse(f"torch._dynamo.config.recompile_limit == {config.recompile_limit!r}")
    result = evaluate(tree, claim)
    assert result.holds and result.path == "torch/_dynamo/config.py"
    assert "recompile_limit" in tree.source.read(result.path).splitlines()[result.line - 1]
    wrong = evaluate(tree, Claim.parse(f"torch._dynamo.config.recompile_limit == {config.recompile_limit + 1}"))
    assert wrong.status == "false"
    # The live fallback agrees with the static reading.
    assert evaluate_live(claim, result).holds


HEADER = "#pragma once\n// one entry\ntypedef struct Entry {\n  py::object guard_manager;\n  py::object code;\n} Entry;\n"


@pytest.mark.parametrize("where", ["torch/csrc/dyn/entry.h", "torch/include/torch/csrc/dyn/entry.h"])
def test_a_header_fact_is_read_where_a_checkout_or_a_wheel_keeps_it(tmp_path, where):
    tree = resolver_for(open_source(str(write_tree(tmp_path, files={where: HEADER}))))
    result = evaluate(tree, Claim.parse('torch/csrc/dyn/entry.h contains "py::object   code;"'))  # spaces: one
    # The place is the repository's path, which is what a source link needs, whichever layout held it.
    assert (result.status, result.path, result.line) == ("true", "torch/csrc/dyn/entry.h", 5)
    assert evaluate(tree, Claim.parse('torch/csrc/dyn/entry.h contains "py::object backend;"')).status == "false"
    gone = evaluate(tree, Claim.parse('torch/csrc/dyn/other.h contains "x"'))
    assert gone.status == "missing" and "torch/csrc/dyn/other.h" in gone.reason


@pytest.mark.parametrize("bad", ['csrc/entry.h contains "x"', 'torch/../etc/x.h contains "x"',
                                 'torch/csrc/entry.h contains ""', 'torch/csrc/entry.h contains x'])
def test_malformed_header_claims(bad):
    with pytest.raises(ValueError, match="fact"):
        Claim.parse(bad)


def test_header_facts_of_the_installed_torch():
    """The installed wheel ships the headers under torch/include/: chapter 2's facts are checked there."""
    tree = resolver_for(open_source("installed"))
    result = evaluate(tree, Claim.parse('torch/csrc/dynamo/cache_entry.h contains "py::object guard_manager;"'))
    assert result.holds and result.path == "torch/csrc/dynamo/cache_entry.h"
    text = tree.source.read("torch/include/torch/csrc/dynamo/cache_entry.h")
    assert "guard_manager" in text.splitlines()[result.line - 1]

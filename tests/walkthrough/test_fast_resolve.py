"""Cut-and-parse lookups answer exactly as whole-module parses do: tricky shapes, and every real target."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.walkthrough_fixtures import write_tree
from walkthrough.lock import stage_hooks
from walkthrough.source import cached_wheel, open_source
from walkthrough.symbols import Resolver, Symbol, SymbolNotFound

pytestmark = pytest.mark.pure

ROOT = Path(__file__).resolve().parents[2]
PATH = "torch/_shapes.py"
M = "torch._shapes"

# Each shape a text scan could get wrong, in one module.
SHAPES = '''\
"""Module docstring that quotes code:
def assigned():
    return "a string, not a definition"
"""

import functools

assigned = functools.partial(print)


@functools.lru_cache(
    maxsize=None,
# a comment at column 0 inside a decorator's brackets
)
# a comment between decorators
@staticmethod
def multi_decorated(a, b):
    return a + b


@functools.wraps(print,
assigned=())
def column0_continuation():
    return 1


def signature_closed_at_column0(
    first,
    second=(1, 2),
):
    return first, second


def docstring_at_column0():
    """Usage:

def not_a_definition():
    pass
class NotAClassEither:
"""
    text = """
value
""".strip()
    return text


def backslash_continued(x):
    total = x + \\
1
    return total


if functools:
    def both_branches():
        return 1
else:
    def both_branches():
        return 2


def also_conditional():
    return "first"


try:
    def also_conditional():
        return "second"
except ImportError:
    pass


@functools.total_ordering
class Decorated(object):
    """A class with a decorator."""

    @property
    def size(self):
        return 1

    @size.setter
    def size(self, value):
        pass

    if functools:
        def branch(self):
            return 1
    else:
        def branch(self):
            return 2

    def only_a_method(self):
        return 2

    def also_member(self):
        return "first"

    with open(__file__):
        def also_member(self):
            return "second"

    @functools.lru_cache(
        maxsize=None,
# a comment at column 0 inside a method's decorator
    )
    def cached(self,
    other=None,
    ):
        """Text at the class's indentation:
    def fake_member(self):
        pass
"""
        return other

    def twice(self) -> int: ...
    def twice(self):
        return 2

    class Inner:
        def deep(self):
            return 3


def overloaded(x: int) -> int: ...
def overloaded(x):
    return x


async def asynchronous():
    return 1


class Tabbed:
	def tabbed_method(self):
		return 1


class MultiLineHeader(
    object,
):
    attribute = 1

    def method(self):
        return self.attribute


class OneLine: pass
"""A module-level string right after a class."""


def last_in_file():
    return {
"key": "value at column 0",
    }'''


@pytest.fixture()
def resolvers(tmp_path):
    tree = write_tree(tmp_path / "t", files={PATH: SHAPES})
    return Resolver(open_source(str(tree))), Resolver(open_source(str(tree)), chunked=False)


def outcome(resolver: Resolver, name: str) -> Symbol | str:
    try:
        return resolver.resolve(name)
    except SymbolNotFound as exc:
        return f"not found: {exc.reason}"


def parsed_whole(resolver: Resolver) -> bool:
    """Whether a lookup fell back to parsing the whole module rather than one definition alone."""
    return PATH in resolver._trees


# Cut out of their class: a property's getter and setter, overloads, decorators and signatures over lines.
MEMBER_CUT = ["Decorated.size", "Decorated.only_a_method", "Decorated.Inner.deep", "Decorated.cached",
              "Decorated.twice", "MultiLineHeader.method"]
# The whole class is cut out: a member defined conditionally, a class indented with tabs.
CLASS_CUT = ["Decorated.branch", "Decorated.also_member", "Tabbed.tabbed_method"]
CUT = [
    "multi_decorated", "column0_continuation", "signature_closed_at_column0", "docstring_at_column0",
    "backslash_continued", "Decorated", "asynchronous", "OneLine", "last_in_file", "overloaded",
    *MEMBER_CUT, *CLASS_CUT,
]
WHOLE = ["assigned", "both_branches", "also_conditional", "only_a_method", "not_a_definition",
         "NotAClassEither", "Decorated.missing", "Decorated.fake_member", "multi_decorated.attr"]


@pytest.mark.parametrize("qualname", CUT + WHOLE)
def test_same_answer_as_whole_module_parse(resolvers, qualname):
    fast, full = resolvers
    assert outcome(fast, f"{M}:{qualname}") == outcome(full, f"{M}:{qualname}")
    assert parsed_whole(fast) == (qualname not in CUT)
    assert parsed_whole(full) and not full._cuts  # the reference never cuts
    member = ".".join(qualname.split(".")[:2])
    if qualname in MEMBER_CUT + CLASS_CUT:
        assert (fast._cuts[(PATH, member)] is not None) == (qualname in MEMBER_CUT)


def test_cut_spans_include_every_decorator_line(resolvers):
    fast, _ = resolvers
    symbol = fast.resolve(f"{M}:multi_decorated")
    assert symbol.text.startswith("@functools.lru_cache(\n") and symbol.text.endswith("return a + b")
    assert fast.resolve(f"{M}:column0_continuation").text.startswith("@functools.wraps(print,\nassigned=())")
    assert fast.resolve(f"{M}:Decorated.size").kind == "property"
    assert fast.resolve(f"{M}:Decorated.size").text.count("def size(self") == 2  # getter and setter
    assert fast.resolve(f"{M}:Decorated.cached").text.startswith("    @functools.lru_cache(\n")
    assert "not_a_definition" not in fast.resolve(f"{M}:docstring_at_column0").normalized


@pytest.mark.parametrize(("text", "end"), [
    ("def windows():\r\n    return 1\r\n", 2),  # other line ends
    ("def \\\n    windows():\n    return 1\n", 3),  # a def that does not name itself on its first line
])
def test_text_the_scan_does_not_model_takes_the_whole_parse(tmp_path, text, end):
    tree = write_tree(tmp_path / "t", files={PATH: text})
    fast = Resolver(open_source(str(tree)))
    assert fast.resolve(f"{M}:windows").end == end
    assert parsed_whole(fast)


def _every_target() -> list[str]:
    lock = json.loads((ROOT / "docs" / "walkthrough.lock.json").read_text())
    names = {entry["qualname"] for entry in lock["symbols"]}
    names |= {entry["target"] for entry in lock["excerpts"]}
    names |= {name for name, _ in stage_hooks()}
    return sorted(names)


def _real_trees() -> list:
    trees = [pytest.param("installed", id="installed")]
    wheel = cached_wheel("2.15.0")
    trees.append(pytest.param(str(wheel) if wheel else "", id="2.15.0",
                              marks=pytest.mark.skipif(wheel is None, reason="torch 2.15.0 is not in the wheel cache")))
    return trees


@pytest.mark.parametrize("spec", _real_trees())
def test_every_walkthrough_target_resolves_as_before(spec):
    """The real guard: each locked symbol, excerpt target and hook target of the walkthrough."""
    names = _every_target()
    fast, full = Resolver(open_source(spec)), Resolver(open_source(spec), chunked=False)
    mismatched = [name for name in names if outcome(fast, name) != outcome(full, name)]
    assert mismatched == []
    # The cut path did the work: nearly every module was never parsed whole, most members cut alone.
    assert len(fast._trees) * 10 <= len(full._trees)
    members = [cut for (_, qualname), cut in fast._cuts.items() if "." in qualname]
    assert sum(cut is not None for cut in members) >= 0.8 * len(members)

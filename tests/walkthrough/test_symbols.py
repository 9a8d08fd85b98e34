"""Static resolution of module:qualname: synthetic trees for each kind of name, and the installed torch."""

from __future__ import annotations

import pytest

from tests.walkthrough_fixtures import DRIVER, PIPELINE, write_tree
from tracers.vocabulary.releases import REFERENCE_TORCH
from tracers.tracefile.stages import all_targets
from walkthrough.source import open_source
from walkthrough.symbols import SymbolNotFound, resolver_for, split_name

pytestmark = pytest.mark.pure

M = "torch._pipeline.driver"


@pytest.fixture(scope="module")
def tree(tmp_path_factory):
    extra = {
        "torch/_pipeline/reexport/__init__.py": "from ..base import Stage as PublicStage\n",
        "torch/_pipeline/deep.py": (
            "import sys\nfrom torch._pipeline import reexport\nfrom .reexport import PublicStage\n\n"
            "class Leaf(reexport.PublicStage):\n    pass\n\n"
            "class Twig(PublicStage):\n    pass\n\n"
            "if sys.version_info >= (3, 11):\n    def conditional():\n        return 1\n"
            "else:\n    def conditional():\n        return 2\n"
        ),
    }
    return resolver_for(open_source(str(write_tree(tmp_path_factory.mktemp("t"), files=extra))))


def line_of(text: str, needle: str) -> int:
    return text.splitlines().index(needle) + 1


def test_function_span_includes_decorators(tree):
    symbol = tree.resolve(f"{M}:entry")
    assert symbol.kind == "function" and symbol.path == PIPELINE
    assert symbol.start == line_of(DRIVER, "@functools.lru_cache(None)")
    assert symbol.end == line_of(DRIVER, "    return tuple(prepared)")
    assert symbol.text.startswith("@functools.lru_cache(None)\ndef entry(")
    assert "Compile one frame" not in symbol.normalized  # docstrings are not code
    assert "Prepare before lowering" not in symbol.normalized  # nor are comments


def test_class_method_nested_class_and_property(tree):
    assert tree.resolve(f"{M}:Compiler").kind == "class"
    assert tree.resolve(f"{M}:Compiler.run").kind == "method"
    assert tree.resolve(f"{M}:Compiler.Options.merge").kind == "method"
    prop = tree.resolve(f"{M}:Compiler.name")
    assert prop.kind == "property"
    # Getter and setter together: the property is the whole group.
    assert prop.start == line_of(DRIVER, "    @property")
    assert prop.end == line_of(DRIVER, "        self.mode = value")


def test_inherited_method_is_reported_not_silently_resolved(tree):
    symbol = tree.resolve(f"{M}:Compiler.describe")
    assert symbol.inherited and symbol.defined_in == "torch._pipeline.base:Stage.describe"
    assert symbol.path == "torch/_pipeline/base.py"
    assert not tree.resolve(f"{M}:Compiler.run").inherited


def test_bases_through_reexports_and_module_attributes(tree):
    assert tree.resolve("torch._pipeline.deep:Leaf.describe").defined_in == "torch._pipeline.base:Stage.describe"
    assert tree.resolve("torch._pipeline.deep:Twig.run").defined_in == "torch._pipeline.base:Stage.run"


def test_conditional_definition_last_one_wins(tree):
    symbol = tree.resolve("torch._pipeline.deep:conditional")
    assert "return 2" in symbol.text


@pytest.mark.parametrize(("name", "reason"), [
    ("torch._nowhere:f", "module torch._nowhere is not in torch"),
    (f"{M}:nothing", "torch._pipeline.driver defines no nothing"),
    (f"{M}:entry.inner", "entry is a function, not a class"),
    (f"{M}:Compiler.absent", "Compiler has no absent (not defined nor inherited in torch)"),
    (f"{M}:Compiler.mode", "Compiler.mode is bound by an assignment, not a def or class"),
])
def test_missing_names_say_why(tree, name, reason):
    with pytest.raises(SymbolNotFound) as info:
        tree.resolve(name)
    assert info.value.reason.startswith(reason)


@pytest.mark.parametrize("bad", ["torch.compile", "torch:", ":f", "torch:a-b", "torch..x:f"])
def test_malformed_names_are_usage_errors(bad):
    with pytest.raises(ValueError, match="expected module:qualname"):
        split_name(bad)


@pytest.fixture(scope="module")
def installed():
    return resolver_for(open_source("installed"))


def test_installed_is_the_reference(installed):
    assert installed.source.base_version == REFERENCE_TORCH
    assert len(installed.source.git_version) == 40


def test_every_stage_target_resolves_in_the_installed_torch(installed):
    for target in all_targets():
        symbol = installed.resolve(target.name)
        if not symbol.inherited:
            assert symbol.path in (target.source_path, target.source_path[:-3] + "/__init__.py"), target.name
        assert 0 < symbol.start <= symbol.end


def test_real_inheritance_in_torch(installed):
    # TritonScheduling takes codegen_node from SIMDScheduling, which lives in another module.
    symbol = installed.resolve("torch._inductor.codegen.triton:TritonScheduling.codegen_node")
    assert symbol.defined_in == "torch._inductor.codegen.simd:SIMDScheduling.codegen_node"
    assert symbol.path == "torch/_inductor/codegen/simd.py"


def test_real_span_matches_the_source_text(installed):
    symbol = installed.resolve("torch._dynamo.convert_frame:ConvertFrameAssert.__call__")
    lines = installed.source.read(symbol.path).splitlines()
    assert "def __call__(" in "\n".join(lines[symbol.start - 1:symbol.start + 1])
    assert symbol.text == "\n".join(lines[symbol.start - 1:symbol.end])

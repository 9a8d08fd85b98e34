"""Excerpts: anchors instead of line numbers, emphasis and callouts, and escaped, linked HTML."""

from __future__ import annotations

import re

import pytest

from tests.walkthrough_fixtures import DRIVER, write_tree
from walkthrough.excerpt import ExcerptError, ExcerptSpec, build, normalize_tokens, parse_spec
from walkthrough.render import render_excerpt
from walkthrough.source import open_source
from walkthrough.symbols import SymbolNotFound, resolver_for

pytestmark = pytest.mark.pure

M = "torch._pipeline.driver"
HOSTILE = '''\
def shout(tag):
    marker = "<script>alert('x')</script> & done"
    return marker + tag
'''


@pytest.fixture(scope="module")
def tree(tmp_path_factory):
    root = write_tree(tmp_path_factory.mktemp("t"), files={"torch/_pipeline/html.py": HOSTILE})
    return resolver_for(open_source(str(root)))


def line_of(needle: str) -> int:
    return next(i for i, line in enumerate(DRIVER.splitlines(), 1) if needle in line)


def test_anchors_narrow_to_real_file_lines(tree):
    excerpt = build(tree, ExcerptSpec(f"{M}:entry", start="prepared =", end="return tuple"))
    assert (excerpt.start, excerpt.end) == (line_of("prepared = [helper"), line_of("return tuple(prepared)"))
    assert excerpt.lines[0] == "prepared = [helper(x) for x in frame]"  # dedented for display
    assert excerpt.lines[-1] == "return tuple(prepared)"


def test_whole_symbol_without_anchors(tree):
    excerpt = build(tree, ExcerptSpec(f"{M}:Cache.load"))
    assert excerpt.lines[0] == "def load(self, key):"
    assert excerpt.end - excerpt.start + 1 == len(excerpt.lines) == 4


def test_emphasis_and_callouts_attach_to_patterns(tree):
    spec = ExcerptSpec(f"{M}:entry", emphasize=("prepared",), annotations=(("if options", "only with options"),
                                                                          ("return", "a tuple")))
    excerpt = build(tree, spec)
    assert excerpt.emphasized == tuple(i for i, line in enumerate(DRIVER.splitlines(), 1)
                                       if "prepared" in line and excerpt.start <= i <= excerpt.end)
    assert [(c.number, c.line, c.note) for c in excerpt.callouts] == [
        (1, line_of("if options:"), "only with options"), (2, line_of("return tuple(prepared)"), "a tuple")]


@pytest.mark.parametrize(("spec", "message"), [
    (ExcerptSpec(f"{M}:entry", start="no such text"), "start pattern 'no such text' not found"),
    (ExcerptSpec(f"{M}:entry", start="return", end="options"), "end pattern 'options' not found after the start"),
    (ExcerptSpec(f"{M}:entry", start="if options", emphasize=("helper(x)",)), "emphasize pattern 'helper(x)'"),
    (ExcerptSpec(f"{M}:entry", annotations=(("zzz", "n"),)), "annotation pattern 'zzz' not found"),
])
def test_patterns_that_do_not_match_are_errors(tree, spec, message):
    with pytest.raises(ExcerptError, match=re.escape(message)):
        build(tree, spec)


def test_unknown_symbol_is_an_error(tree):
    with pytest.raises(SymbolNotFound):
        build(tree, ExcerptSpec(f"{M}:gone"))


def test_parse_spec_reads_options_and_body():
    spec = parse_spec(f" {M}:entry ", {"start": "prepared =", "emphasize": "helper"},
                      ["", "emphasize: options", "if options => only with options", "return => the result"])
    assert spec == ExcerptSpec(f"{M}:entry", "prepared =", "", ("helper", "options"),
                               (("if options", "only with options"), ("return", "the result")))
    assert spec.key == f"{M}:entry [start=prepared =]"
    with pytest.raises(ValueError, match="neither 'emphasize: PATTERN'"):
        parse_spec(f"{M}:entry", {}, ["just text"])
    with pytest.raises(ValueError, match="unknown option"):
        parse_spec(f"{M}:entry", {"lines": "3-4"}, [])


def test_token_hash_ignores_layout_comments_and_trailing_commas():
    one = ["x = f(a, b)  # note", "if x:", "    y = 1"]
    two = ["x = f(", "    a,", "    b,", ")", "# a comment", "if x:", "        y = 1"]
    assert normalize_tokens(one) == normalize_tokens(two)
    assert normalize_tokens(one) != normalize_tokens(["x = f(a, c)", "if x:", "    y = 1"])
    # A slice that stops inside a bracket still normalizes.
    assert normalize_tokens(["call(a,", "  b"]).startswith("call ( a , b")


def test_html_has_real_numbers_links_callouts_and_escapes_everything(tree):
    excerpt = build(tree, ExcerptSpec("torch._pipeline.html:shout", emphasize=("marker =",),
                                      annotations=(("return", "<b>not bold</b>"),), caption="a <caption>"))
    html = render_excerpt(excerpt)
    assert "<script>" not in html and "<b>" not in html and "<caption>" not in html
    assert "&lt;b&gt;not bold&lt;/b&gt;" in html
    url = "https://github.com/pytorch/pytorch/blob/" + "a" * 40 + "/torch/_pipeline/html.py"
    assert f'href="{url}#L1-L3"' in html
    assert f'href="{url}#L2">2</a>' in html
    assert html.count('<span class="wt-line') == 3
    assert html.count("wt-emph") == 1
    rows = html.split('<span class="wt-line')[1:]
    assert 'data-callout="1">1</span></span>' in rows[2]  # beside line 3, the return
    assert "torch 1.0.0+cpu" in html and "lines 1–3" in html


def test_excerpt_of_installed_torch(tmp_path):
    tree = resolver_for(open_source("installed"))
    spec = ExcerptSpec("torch._dynamo.convert_frame:ConvertFrameAssert.__call__", start="def __call__",
                       end="):", emphasize=("frame",))
    excerpt = build(tree, spec)
    lines = tree.source.read(excerpt.path).splitlines()
    assert lines[excerpt.start - 1].strip().startswith("def __call__")
    html = render_excerpt(excerpt)
    assert f"/blob/{tree.source.git_version}/torch/_dynamo/convert_frame.py#L{excerpt.start}-L{excerpt.end}" in html

"""The pages' code colouring: every character kept and escaped, spans closed at line ends, tokens classed."""

from __future__ import annotations

import html
import random
import re

import pytest

from tracers.report.highlight import code_css, json_html, python_html, text_html

_TAG = re.compile(r'<span class="[a-z0-9]+">|</span>')


def _text_of(coloured: str) -> str:
    return html.unescape(_TAG.sub("", coloured))


def _classes(coloured: str) -> list[tuple[str, str]]:
    return re.findall(r'<span class="([a-z0-9]+)">([^<]*)</span>', coloured)


SAMPLE = '''@torch.compile(mode="max-autotune")
def forward(self, x, scale=1.5e3):  # a <comment> & more
    """A docstring
    over two lines"""
    s = f"x{y}" + rb'\\x00' + buf"not a prefix"
    if x is not None and 0x1F: return True
class Block(nn.Module): pass
buf0 = 3 * .5 + 1_000 + 2j + x.y
'''


def test_every_character_comes_back_escaped() -> None:
    """Removing the spans and unescaping gives the text back, on code, JSON and text alike, random ones included."""
    rng = random.Random(7)
    alphabet = "ab_ 019.eE+-#'\"\\\n\t:{}[]<>&@xjfrRbBuU"
    texts = [SAMPLE, '{"a": [1, -2.5e3, true, null, "x\\"y<"], "b" : {}}', "<script>alert(1)</script>"]
    texts += ["".join(rng.choice(alphabet) for _ in range(rng.randrange(1, 200))) for _ in range(300)]
    for text in texts:
        for colour in (python_html, json_html, text_html):
            coloured = colour(text)
            assert _text_of(coloured) == text
            assert "<script" not in coloured and not re.search(r"<(?!/?span)", coloured)


def test_spans_close_at_each_line_end() -> None:
    """A page that shows a file line by line splits the colouring at newlines: no span may cross one."""
    for line in python_html(SAMPLE).split("\n"):
        assert line.count("<span") == line.count("</span>")


def test_python_tokens() -> None:
    found = _classes(python_html(SAMPLE))
    assert ("nd", "@torch.compile") in found
    assert ("k", "def") in found and ("nf", "forward") in found
    assert ("k", "class") in found and ("nc", "Block") in found
    assert ("c1", "# a &lt;comment&gt; &amp; more") in found
    assert ("s2", '"""A docstring') in found and ("s2", '    over two lines"""') in found
    assert ("s2", 'f"x{y}"') in found and ("s1", "rb'\\x00'") in found
    assert ("s2", '"not a prefix"') in found  # ``buf`` ends a name: no prefix
    assert {("kc", "None"), ("kc", "True"), ("ow", "is"), ("ow", "not"), ("ow", "and"), ("k", "return")} <= set(found)
    assert {("mf", "1.5e3"), ("mi", "0x1F"), ("mi", "3"), ("mf", ".5"), ("mi", "1_000"), ("mi", "2j")} <= set(found)
    assert not [token for token in found if token[1] in ("buf0", "0", "x", "y")]  # names and digits in names: plain


def test_json_keys_apart_from_values() -> None:
    found = _classes(json_html('{"key": "value", "n": -2.5e3, "ok": true, "none": null, "count": 12}'))
    assert found == [("nt", '"key"'), ("s2", '"value"'), ("nt", '"n"'), ("mf", "-2.5e3"), ("nt", '"ok"'),
                     ("kc", "true"), ("nt", '"none"'), ("kc", "null"), ("nt", '"count"'), ("mi", "12")]


@pytest.mark.parametrize("text", ['"""' + "\\" * 20001, "'" + "\\'" * 20000, '"' + 'a\\"' * 20000 + "\\",
                                  "#" + "'" * 20000, '"""' + '"' * 20000 + "\\"])
def test_strings_left_open_cost_one_pass(text: str) -> None:
    """A payload cut at the page's share ends mid-string: read to the end in one pass (a pattern that backtracked
    would take minutes on these)."""
    assert _text_of(python_html(text)) == text


def test_css_scoped() -> None:
    css = code_css(".wt-trace .highlight")
    assert all(rule.startswith(".wt-trace .highlight") for rule in css.splitlines())
    assert ".wt-trace .highlight .k {" in css


def _json_html_by_token(text: str) -> str:
    """json_html as it was: each token escaped apart (the oracle for escaping the whole text first)."""
    from tracers.report.highlight import _JSON, _escape

    out, last = [], 0
    for found in _JSON.finditer(text):
        start, end = found.span()
        out.append(_escape(text[last:start]))
        kind = found.lastgroup
        if kind == "key":
            out.append(f'<span class="nt">{_escape(found.group("str"))}</span>{found.group("key")}')
        elif kind == "str":
            out.append(f'<span class="s2">{_escape(found.group())}</span>')
        else:
            out.append(f'<span class="{kind}">{found.group()}</span>')
        last = end
    out.append(_escape(text[last:]))
    return "".join(out)


def test_json_escaped_whole_is_json_escaped_by_token() -> None:
    rng = random.Random(11)
    alphabet = 'ab_ 019.eE+-:"\\\n\t{}[],<>&;tlgmpru'
    texts = ['{"a<": [1, -2.5e3, true, null, "x\\"y<"], "b&" : {}, "c": "&lt;"}', "<5>&9 true<null>false&1.5"]
    texts += ["".join(rng.choice(alphabet) for _ in range(rng.randrange(1, 200))) for _ in range(2000)]
    for text in texts:
        assert json_html(text) == _json_html_by_token(text), text

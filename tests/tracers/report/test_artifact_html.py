"""The artifacts part built in Python (artifact_html.py) is byte for byte what its former Jinja2 template wrote,
for views of every branch, with text from a log that must be escaped."""

from __future__ import annotations

import pytest
from markupsafe import Markup

from tracers.report import templating
from tracers.report.artifact_html import artifacts_html
from tracers.report.artifacts import ArtifactView, CodeBlock, CodePair, CompileGroup, OpRow, OpTable

pytestmark = pytest.mark.pure

# templates/artifacts.html as it was when the page rendered each artifact through it (the oracle)
TEMPLATE = r'''{#- The artifacts torch emitted (artifacts.py's CompileGroups, one per compile id, ``count`` of them, made as the loop
    reaches each): each folded, its text coloured. -#}
{% macro code_block(block) %}
  {% if block.cut %}<p class="wt-note">Cut at {{ block.cut }} of {{ block.length }} characters: the trace file has the whole text.</p>{% endif %}
  <div class="highlight"><pre>{{ block.html }}</pre></div>
{% endmacro %}
{% macro op_table(table) %}
  <table class="wt-compiles wt-op-estimates"><thead><tr><th scope="col">op</th><th scope="col">type</th><th scope="col">estimated</th><th scope="col">outputs</th></tr></thead>
    <tbody>{% for row in table.rows %}<tr><td><code>{{ row.name }}</code></td><td>{{ row.type }}</td><td>{{ row.estimate }}</td><td><code>{{ row.outputs }}</code></td></tr>{% endfor %}</tbody>
    <tfoot><tr><th scope="row" colspan="2">the graph, Inductor's estimate</th><td>{{ table.total }}</td><td></td></tr></tfoot></table>
{% endmacro %}
{% macro note(text) %}<p class="wt-note">{{ text }}</p>{% endmacro %}
{% macro body(a) %}
  {% if a.pair %}{% set pair = a.pair %}
    <div class="wt-code-pair"><div><div class="wt-muted">as Python{% if pair.decompiler %} ({{ pair.decompiler }}){% endif %}</div>{{ code_block(pair.source) if pair.source else note(pair.why) }}</div>
      <div><div class="wt-muted">bytecode</div>{{ code_block(pair.listing) }}</div></div>
  {%- elif a.code %}{% if a.table %}{{ op_table(a.table) }}{% endif %}{% if a.against %}<p class="wt-note">Against the version before: {{ a.against }}.</p>{% endif %}{{ code_block(a.code) }}
  {%- elif a.not_kept %}<p class="wt-note">Not kept in this trace (recorded with --no-code).</p>
  {%- else %}<p class="wt-note">Torch emitted this record without content.</p>{% endif %}
{% endmacro %}
{% if not count %}<div class="wt-trace-artifacts wt-trace-empty">No matching artifacts in this trace.</div>
{%- else %}
<div class="wt-trace-artifacts">
  {% for group in groups %}
    <details class="wt-compile" data-compile="{{ group.compile_id or "" }}"{{ " open" if count == 1 else "" }}><summary>
      {%- if group.compile_id %}compile {{ group.compile_id }}{% else %}outside any compile{% endif %}
      {%- if group.frame %} <span class="wt-frame">{{ group.frame }}</span>{% endif %} <span class="wt-muted">{{ group.items|length }} artifact{{ "s" if group.items|length != 1 else "" }}</span></summary>
      {% for a in group.items %}
        <details class="wt-artifact" data-artifact="{{ a.id }}" data-kind="{{ a.kind }}"><summary><code class="wt-artifact-name">{{ a.name }}</code> <span class="wt-kind">{{ a.kind }}</span>
          {%- if a.during is not none %} <span class="wt-muted">during</span> <code>{{ a.during }}</code>{% endif %} <span class="wt-muted">{{ a.size }}</span></summary>{{ body(a) }}</details>
      {% endfor %}
    </details>
  {% endfor %}
</div>
{%- endif %}
'''

HOSTILE = "<script>alert('x')</script> & \"quoted\""


def _template(groups: list[CompileGroup]) -> str:
    source = templating._LAYOUT.sub("", TEMPLATE)
    return templating.environment().from_string(source).render(groups=groups, count=len(groups))


def _ours(groups: list[CompileGroup]) -> str:
    return "".join(artifacts_html(iter(groups), len(groups)))


def _block(cut: bool = False) -> CodeBlock:
    html = Markup('<span class="k">def</span> f(): &lt;b&gt;')  # highlight.py's markup: passed on as it is
    return CodeBlock(html, "1,000", "2,500") if cut else CodeBlock(html)


def _views() -> tuple[ArtifactView, ...]:
    table = OpTable((OpRow(HOSTILE, "<type>", "1.2 ms", "torch.float32[2, 3]"), OpRow("b", "", "?", "")), "1.2 ms")
    return (
        ArtifactView("1", "graph", HOSTILE, "dynamo_timed:<b>", "1.2 kB", code=_block()),
        ArtifactView("2", "<kind>", "inductor_runtime_and_tensor_meta", None, "3 B", code=_block(True), table=table,
                     against=HOSTILE),
        ArtifactView("3", "decompiled", "code", "", "4 B",
                     pair=CodePair("depyf <0.19>", _block(True), "", _block())),
        ArtifactView("4", "decompiled", "code", None, "4 B", pair=CodePair(None, None, HOSTILE, _block())),
        ArtifactView("5", "code", "output_code", None, "0 B", not_kept=True),
        ArtifactView(6, "debug", "empty", "x", "0 B"),
    )


@pytest.mark.parametrize("groups", [
    [],
    [CompileGroup("0/0", HOSTILE, _views())],
    [CompileGroup("0/0", None, _views()[:1]), CompileGroup(None, None, _views()), CompileGroup("", "f (a.py:1)", ())],
    [CompileGroup(f"{index}/0", "f (a.py:1)", _views()) for index in range(200)],  # more than one piece
])
def test_the_same_bytes_as_the_template(groups):
    assert _ours(groups) == _template(groups)


def test_text_from_a_log_is_escaped():
    html = _ours([CompileGroup(HOSTILE, HOSTILE, _views())])
    assert "<script>" not in html and "&lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt; &amp; &quot;quoted&quot;" in html

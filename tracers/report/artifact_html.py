"""The artifacts part's HTML, built in Python from artifacts.py's views: every value escaped as the templates do.

A page of 1,000 compiles holds some 14,000 artifacts: one Jinja2 macro call (and its escaping of each constant) per
artifact was a third of writing that page, so this part is joined from strings instead, byte for byte what
templates/artifacts.html wrote (tests/tracers/report/test_artifact_html.py renders both)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from itertools import chain
from typing import TYPE_CHECKING

from markupsafe import Markup

from .templating import joined, value_html as _v

if TYPE_CHECKING:  # the views are artifacts.py's, which imports this module
    from .artifacts import ArtifactView, CodeBlock, CompileGroup, OpTable




def _code_block(block: CodeBlock) -> str:
    cut = (f'<p class="wt-note">Cut at {_v(block.cut)} of {_v(block.length)} characters: the trace file has the whole '
           "text.</p>") if block.cut else ""
    return f'{cut}<div class="highlight"><pre>{_v(block.html)}</pre></div>'


def _note(text: object) -> str:
    return f'<p class="wt-note">{_v(text)}</p>'


def _op_table(table: OpTable) -> str:
    rows = "".join(f"<tr><td><code>{_v(row.name)}</code></td><td>{_v(row.type)}</td><td>{_v(row.estimate)}</td>"
                   f"<td><code>{_v(row.outputs)}</code></td></tr>" for row in table.rows)
    return ('<table class="wt-compiles wt-op-estimates"><thead><tr><th scope="col">op</th><th scope="col">type</th>'
            '<th scope="col">estimated</th><th scope="col">outputs</th></tr></thead>'
            f'<tbody>{rows}</tbody><tfoot><tr><th scope="row" colspan="2">the graph, Inductor\'s estimate</th>'
            f"<td>{_v(table.total)}</td><td></td></tr></tfoot></table>")


def _body(a: ArtifactView) -> str:
    if a.pair:
        pair = a.pair
        decompiler = f" ({_v(pair.decompiler)})" if pair.decompiler else ""
        source = _code_block(pair.source) if pair.source else _note(pair.why)
        return (f'<div class="wt-code-pair"><div><div class="wt-muted">as Python{decompiler}</div>{source}</div>'
                f'<div><div class="wt-muted">bytecode</div>{_code_block(pair.listing)}</div></div>')
    if a.code:
        table = _op_table(a.table) if a.table else ""
        against = f'<p class="wt-note">Against the version before: {_v(a.against)}.</p>' if a.against else ""
        return f"{table}{against}{_code_block(a.code)}"
    if a.not_kept:
        return '<p class="wt-note">Not kept in this trace (recorded with --no-code).</p>'
    return '<p class="wt-note">Torch emitted this record without content.</p>'


def _item(a: ArtifactView) -> str:
    kind = _v(a.kind)
    during = f' <span class="wt-muted">during</span> <code>{_v(a.during)}</code>' if a.during is not None else ""
    return (f'<details class="wt-artifact" data-artifact="{_v(a.id)}" data-kind="{kind}"><summary>'
            f'<code class="wt-artifact-name">{_v(a.name)}</code> <span class="wt-kind">{kind}</span>{during} '
            f'<span class="wt-muted">{_v(a.size)}</span></summary>{_body(a)}</details>')


def group_html(group: CompileGroup, opened: bool) -> str:
    """One compile's artifacts, folded, each folded within; ``opened``: the page's only compile, shown open."""
    title = f"compile {_v(group.compile_id)}" if group.compile_id else "outside any compile"
    frame = f' <span class="wt-frame">{_v(group.frame)}</span>' if group.frame else ""
    count = len(group.items)
    return (f'<details class="wt-compile" data-compile="{_v(group.compile_id or "")}"{" open" if opened else ""}>'
            f'<summary>{title}{frame} <span class="wt-muted">{count} artifact{"s" if count != 1 else ""}</span>'
            f'</summary>{"".join(_item(a) for a in group.items)}</details>')


def artifacts_html(groups: Iterable[CompileGroup], count: int) -> Iterator[Markup]:
    """The part, ``count`` groups, each made as the page reaches it."""
    if not count:
        return iter((Markup('<div class="wt-trace-artifacts wt-trace-empty">No matching artifacts in this trace.</div>'),))
    return joined(chain(('<div class="wt-trace-artifacts">',), (group_html(group, count == 1) for group in groups),
                        ("</div>",)))

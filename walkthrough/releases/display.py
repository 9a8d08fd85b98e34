"""HTML for drift inside a page: the changed/gone marks around excerpts, symbol links and facts (all escaped)."""

from __future__ import annotations

from html import escape

from tracers.vocabulary.releases import source_url
from walkthrough.ranlines import RanLines
from walkthrough.releases.drift import ExcerptView, FactView, SymbolView
from walkthrough.render import render_excerpt
from walkthrough.successors import Successor

LABELS = {"CHANGED": "changed since torch {reference}", "MISSING": "gone in torch {release}",
          "INHERITED": "no longer defined here in torch {release}", "UNLOCKED": "not checked against torch {reference}"}


SHORT = {"CHANGED": "changed", "MISSING": "gone in {release}", "INHERITED": "inherited", "UNLOCKED": "unchecked"}


def label(status: str, release: str, reference: str) -> str:
    return LABELS.get(status, "").format(release=release, reference=reference)


def successors_html(hints: tuple[Successor, ...], git_version: str) -> str:
    if not hints:
        return ""
    items = "".join(
        f'<li><a href="{escape(source_url(h.file, h.start, h.end, git_version))}"><code>{escape(h.qualname)}</code></a>'
        f' <span class="wt-muted">{escape(h.reason)}{f" {h.score:.2f}" if h.reason == "similar code" else ""}, '
        f'{escape(h.file)}:{h.start}</span></li>' for h in hints)
    return f'<div class="wt-successors">Where it may have gone:<ul>{items}</ul></div>'


def render_excerpt_view(view: ExcerptView, ran: RanLines | None, git_version: str) -> str:
    """The excerpt as the release has it; marked, with its diff and stale notes, when it drifted.

    ``git_version`` is the release's commit (successor links point into the release)."""
    code = render_excerpt(view.excerpt, ran if not view.from_reference else None) if view.excerpt else ""
    if not view.marked:
        return code
    status = view.status.lower()
    head = escape(label(view.status, view.release, view.reference))
    details = []
    if view.from_reference:
        details.append(f"The code below is torch {escape(view.reference)}'s; torch {escape(view.release)} has no "
                       f"such excerpt ({escape(view.note)}).")
    elif view.excerpt is None:
        details.append(f"Neither torch {escape(view.release)} nor the reference has this code "
                       f"({escape(view.note)}).")
    elif view.note and not view.excerpt.anchors_lost:  # lost anchors are said once, below
        details.append(escape(view.note))
    if view.excerpt is not None and view.excerpt.anchors_lost and not view.from_reference:
        spec = view.excerpt.spec
        anchors = " / ".join(f"<code>{escape(p)}</code>" for p in (spec.start, spec.end) if p)
        details.append(f"Its anchors ({anchors}) no longer match: the whole of "
                       f"<code>{escape(spec.target)}</code> is shown.")
    stale = ""
    if view.excerpt is not None and view.excerpt.stale and not view.from_reference:
        items = "".join(
            f'<li class="wt-stale-{escape(s.kind)}">stale {escape(s.kind)} <code>{escape(s.pattern)}</code>'
            + (f": {escape(s.note)}" if s.note else "") + "</li>" for s in view.excerpt.stale)
        stale = (f'<div class="wt-stale">What the page points out that torch {escape(view.release)} '
                 f"no longer has:<ul>{items}</ul></div>")
    diff = ""
    if view.diff:
        diff = (f'<details class="wt-drift-diff"><summary>What changed (normalized diff, torch '
                f'{escape(view.reference)} → {escape(view.release)})</summary>'
                f"<pre>{escape(view.diff)}</pre></details>")
    hints = successors_html(view.successors, git_version)
    text = " ".join(details)
    whole = " wt-drift-whole" if view.excerpt is not None and view.excerpt.anchors_lost else ""
    return (f'<div class="wt-drift wt-drift-{status}{whole}" data-status="{escape(view.status)}">'
            f'<p class="wt-drift-label"><span class="wt-drift-badge">{head}</span> {text}</p>'
            f"{code}{stale}{diff}{hints}</div>")


def symbol_mark(view: SymbolView) -> tuple[str, str]:
    """(mark text, title) shown after a symbol link; empty when the symbol holds in this release."""
    if view.status in ("SAME", "MOVED"):
        return "", ""
    text = SHORT.get(view.status, view.status.lower()).format(release=view.release)
    title = "; ".join(filter(None, [label(view.status, view.release, view.reference), view.note]))
    if view.from_reference:
        title = f"the link shows torch {view.reference}'s code; " + title
    if view.successors:
        title += "; maybe now: " + ", ".join(h.qualname for h in view.successors)
    return text, title


def fact_value(view: FactView) -> str:
    """What torch ``release`` has for a claim that does not hold there: shown next to the claim."""
    result = view.result
    if result.status == "false":
        return f"torch {view.release}: {result.actual}"
    if result.status == "missing":
        return f"gone in torch {view.release}"
    if result.status == "unknown":
        return f"not checked in torch {view.release}: {result.reason}"
    return ""

"""A site built against another release than the lock's: each kind of drift is shown in the page, never a build error.

Synthetic releases (tests/walkthrough_fixtures): the lock is written against 1.0.0, the site built against 2.0.0."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

pytest.importorskip("sphinx")
pytest.importorskip("myst_parser")

from sphinx.application import Sphinx  # noqa: E402
from sphinx.util.docutils import docutils_namespace  # noqa: E402

from tests.walkthrough_fixtures import CONFIG, CONFIG_TEXT, DRIVER, PIPELINE, edit, write_tree  # noqa: E402
from walkthrough.excerpt import ExcerptSpec  # noqa: E402
from walkthrough.excerpt import build as build_excerpt
from walkthrough.facts import evaluate  # noqa: E402
from walkthrough.lock import compute_lock, read_lock, write_lock  # noqa: E402
from walkthrough.pages import scan_docs  # noqa: E402
from walkthrough.releases.context import open_release  # noqa: E402
from walkthrough.releases.drift import excerpt_view, fact_view, symbol_view  # noqa: E402
from walkthrough.source import open_source  # noqa: E402
from walkthrough.symbols import resolver_for  # noqa: E402

pytestmark = pytest.mark.sphinx

M = "torch._pipeline.driver"
PAGE = f'''\
# Entry

The driver calls {{torch-symbol}}`{M}:helper`, steps with {{torch-symbol}}`{M}:legacy_step` and keeps
{{torch-fact}}`torch._pipeline.config.recompile_cap == 8` compiles.

```{{torch-excerpt}} {M}:entry
:start: prepared =

emphasize: helper(x)
if options => only <when> options are given
```

```{{torch-excerpt}} {M}:process
:start: seen = set()
:end: return out
```

```{{torch-excerpt}} {M}:legacy_step
```
'''
# 2.0.0: entry loses its options branch (a callout goes stale), process loses its start anchor,
# legacy_step is renamed (gone, with a successor), the recompile cap doubles (a false fact).
DRIVER_2 = edit(edit(edit(DRIVER, "    if options:\n        prepared.append(options)\n", ""),
                     "    seen = set()\n    for node in nodes:\n        seen.add(node)\n",
                     "    seen = frozenset(nodes)\n"),
                "def legacy_step(state, budget):", "def budget_steps(state, budget):")
CONFIG_2 = edit(CONFIG_TEXT, "recompile_cap = 8", "recompile_cap = 16")


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    root = tmp_path_factory.mktemp("release")
    old = write_tree(root / "torch-1", "1.0.0")
    new = write_tree(root / "torch-2", "2.0.0", {PIPELINE: DRIVER_2, CONFIG: CONFIG_2}, git="c" * 40)
    src = root / "src"
    src.mkdir()
    (src / "conf.py").write_text(
        "extensions = ['myst_parser', 'walkthrough']\n"
        f"walkthrough_torch = {str(new)!r}\n"
        f"walkthrough_reference_torch = {str(old)!r}\n"
        "walkthrough_stage_hooks = False\n")
    (src / "index.md").write_text(PAGE)
    write_lock(compute_lock(resolver_for(open_source(str(old))), scan_docs(src), []), src / "walkthrough.lock.json")
    warnings = io.StringIO()
    with docutils_namespace():  # as sphinx-build does: later in-process builds start from a clean docutils
        app = Sphinx(str(src), str(src), str(root / "html"), str(root / "doctrees"), "html",
                     status=io.StringIO(), warning=warnings, freshenv=True)
        app.build()
    html = (root / "html" / "index.html").read_text()
    blocks = html.split('<div class="wt-drift ')
    return {"old": old, "new": new, "src": src, "html": html, "warnings": warnings.getvalue(), "blocks": blocks}


def _block(project, symbol: str) -> str:
    found = [b for b in project["blocks"][1:] if f'data-symbol="{M}:{symbol}"' in b]
    assert len(found) == 1, f"no drift block for {symbol}"
    return found[0]


def test_drift_is_content_not_an_error(project):
    assert project["warnings"] == ""
    assert "torch 2.0.0+cpu" in project["html"]


def test_changed_excerpt_lists_its_stale_callout_and_diff(project):
    block = _block(project, "entry")
    assert block.startswith('wt-drift-changed" data-status="CHANGED"')
    assert "changed since torch 1.0.0" in block
    assert "stale callout <code>if options</code>: only &lt;when&gt; options are given" in block
    assert 'class="wt-line wt-emph"' in block  # the emphasis that still matches is kept
    assert '<details class="wt-drift-diff">' in block and "\n-    if options:" in block  # the diff, one click away
    assert "/blob/" + "c" * 40 + "/" in block  # the release's own commit


def test_lost_anchors_fall_back_to_the_whole_symbol(project):
    block = _block(project, "process")
    assert "no longer match: the whole of <code>torch._pipeline.driver:process</code> is shown" in block
    lines = DRIVER_2.splitlines()
    first, last = lines.index("def process(graph):") + 1, lines.index("    return out") + 1
    assert '<span class="nf">process</span>' in block and f"lines {first}–{last}" in block  # def to return
    assert "frozenset" in block


def test_gone_excerpt_shows_the_reference_code_and_a_successor(project):
    block = _block(project, "legacy_step")
    assert block.startswith('wt-drift-missing" data-status="MISSING"') and "gone in torch 2.0.0" in block
    assert "torch 1.0.0+cpu" in block and "legacy_step" in block  # the reference's code, labelled as such
    assert "The code below is torch 1.0.0" in block
    assert f"<code>{M}:budget_steps</code>" in block  # where it went


def test_symbol_links_and_facts_say_what_this_release_has(project):
    html = project["html"]
    assert 'class="wt-drift-mark wt-drift-missing"' in html and ">gone in 2.0.0</sup>" in html
    assert "/blob/" + "a" * 40 + "/" + PIPELINE in html  # the gone symbol links the reference's lines
    assert "torch 2.0.0: 16" in html and "the page claims torch._pipeline.config.recompile_cap == 8" in html
    assert "wt-fact-stale" in html


def test_views_use_verify_statuses(project):
    """The plain functions the directives call, without Sphinx: one classifier (verify's) decides."""
    lock = read_lock(project["src"] / "walkthrough.lock.json")
    view = open_release(open_source(str(project["new"])), lock, str(project["old"]), hooks=[])
    assert not view.is_reference and view.release == "2.0.0" and view.reference_version == "1.0.0"
    spec = next(s for s in scan_docs(project["src"])[0].excerpts if s.target.endswith(":entry"))
    shown = excerpt_view(view, "index", spec)
    assert shown.status == view.finding("excerpt", f"index: {spec.key}").status == "CHANGED"
    assert [s.pattern for s in shown.excerpt.stale] == ["if options"]
    assert symbol_view(view, f"{M}:legacy_step").status == "MISSING"
    assert symbol_view(view, f"{M}:helper").status == "SAME"
    claim = next(iter(scan_docs(project["src"])[0].facts))
    fact = fact_view(view, claim, evaluate(view.target, claim))
    assert (fact.status, fact.result.actual) == ("CHANGED", "16")


def test_the_reference_build_stays_strict(tmp_path):
    old = write_tree(tmp_path / "t", "1.0.0", {PIPELINE: DRIVER_2})
    with pytest.raises(Exception, match="annotation pattern 'if options' not found"):
        build_excerpt(resolver_for(open_source(str(old))),
                      ExcerptSpec(f"{M}:entry", start="prepared =", annotations=(("if options", "x"),)))


def test_a_rebuild_reuses_the_verify_report(project, tmp_path, monkeypatch):
    """Nothing is re-classified that did not change: the report is kept beside the doctrees, keyed by its inputs."""
    from walkthrough.releases import context

    lock = read_lock(project["src"] / "walkthrough.lock.json")
    first = open_release(open_source(str(project["new"])), lock, str(project["old"]), hooks=[], cache=tmp_path)
    monkeypatch.setattr(context, "verify", lambda *args: pytest.fail("verify ran again with nothing changed"))
    again = open_release(open_source(str(project["new"])), lock, str(project["old"]), hooks=[], cache=tmp_path)
    assert again.report.findings == first.report.findings
    with pytest.raises(pytest.fail.Exception, match="verify ran again"):  # another hook list is another report
        open_release(open_source(str(project["new"])), lock, str(project["old"]), hooks=[(f"{M}:helper", "x")],
                     cache=tmp_path)


def test_a_release_recording_without_what_the_page_shows_falls_back_to_the_reference(tmp_path):
    """torch 2.11 cannot run the guards example (recompile_limit is a torch.compile argument since 2.12): its
    recording ended in a TypeError, so a page asking for the compile's metrics shows the reference's recording."""
    from tracers.vocabulary.releases import REFERENCE_TORCH

    docs = Path(__file__).resolve().parents[3] / "docs" / "_traces" / "cpu"
    failed = docs / "2.11.0" / "guards_recompile-cpu-cold.json"
    if not failed.is_file():
        pytest.skip("the 2.11.0 recordings are not committed")
    old = write_tree(tmp_path / "torch-1", "1.0.0")
    new = write_tree(tmp_path / "torch-2", "2.0.0", git="c" * 40)
    src = tmp_path / "src"
    for release, recording in (("2.0.0", failed), (REFERENCE_TORCH, docs / REFERENCE_TORCH / failed.name)):
        (src / "_traces" / "cpu" / release).mkdir(parents=True)
        (src / "_traces" / "cpu" / release / failed.name).write_bytes(recording.read_bytes())
    (src / "conf.py").write_text(
        "extensions = ['myst_parser', 'walkthrough', 'walkthrough.sphinx.traces']\n"
        f"walkthrough_torch = {str(new)!r}\nwalkthrough_reference_torch = {str(old)!r}\n"
        "walkthrough_stage_hooks = False\nexclude_patterns = ['_traces']\n"
        "walkthrough_trace_versions = {'cpu': '2.11.0'}\n")
    (src / "index.md").write_text(f"# Guards\n\nSee {{torch-symbol}}`{M}:helper`.\n\n"
                                  "```{torch-trace} guards_recompile\n:device: cpu\n:artifacts: compilation_metrics\n```\n")
    write_lock(compute_lock(resolver_for(open_source(str(old))), scan_docs(src), []), src / "walkthrough.lock.json")
    warnings = io.StringIO()
    with docutils_namespace():
        app = Sphinx(str(src), str(src), str(tmp_path / "html"), str(tmp_path / "doctrees"), "html",
                     status=io.StringIO(), warning=warnings, freshenv=True)
        app.build()
    html = (tmp_path / "html" / "index.html").read_text()
    assert warnings.getvalue() == ""
    assert "torch 2.0.0’s recording of this example lacks what this page shows" in html.replace("&#8217;", "’")
    assert "TypeError" in html and f"This one was recorded with torch {REFERENCE_TORCH}." in html


def test_the_changelog_groups_by_chapter_and_stage_and_escapes():
    from walkthrough.releases.changes import changelog, render_findings
    from walkthrough.successors import Successor
    from walkthrough.verify import Finding, Place, Report

    findings = (
        Finding("symbol", "torch:compile", ("chapters/01-entry",), "CHANGED", Place("torch/__init__.py", 1, 9),
                Place("torch/__init__.py", 3, 12), ("hook",), diff="--- a\n+++ b\n-x <old>\n+x <new>"),
        Finding("symbol", "torch._dynamo:reset", ("chapters/01-entry",), "SAME", Place("a.py", 1, 2), Place("a.py", 1, 2)),
        Finding("excerpt", "chapters/09-inductor: m:f", ("chapters/09-inductor",), "MISSING", Place("m.py", 5, 9), None,
                successors=(Successor("m:f_v2", "m.py", 7, 12, "similar code", 0.8),)),
    )
    report = Report("2.13.0", "a" * 40, "2.15.0", "c" * 40, "2.15.0", findings, 0.1)
    groups = {group.chapter: group for group in changelog(report)}
    assert [f.name for f in groups["chapters/01-entry"].findings] == ["torch:compile"]
    assert groups["chapters/01-entry"].unchanged == 1 and "torch.compile entry" in groups["chapters/01-entry"].stages
    assert "Inductor entry" in groups["chapters/09-inductor"].stages
    html = render_findings(groups["chapters/01-entry"].findings, report)
    assert "hook target <code>torch:compile</code>" in html and "-x &lt;old&gt;" in html
    assert "/blob/" + "a" * 40 + "/torch/__init__.py#L1-L9" in html and "/blob/" + "c" * 40 + "/torch/__init__.py#L3-L12" in html
    gone = render_findings(groups["chapters/09-inductor"].findings, report)
    assert "<code>m:f_v2</code>" in gone and "similar code 0.80" in gone


def test_a_page_is_re_read_when_its_release_recording_lands_and_not_before(tmp_path):
    from tracers.vocabulary.releases import REFERENCE_TORCH

    recording = Path(__file__).resolve().parents[3] / "docs" / "_traces" / "cpu" / REFERENCE_TORCH / "mlp-cpu-cold.json"
    old = write_tree(tmp_path / "torch-1", "1.0.0")
    new = write_tree(tmp_path / "torch-2", "2.0.0", git="c" * 40)
    src = tmp_path / "src"
    (src / "_traces" / "cpu" / REFERENCE_TORCH).mkdir(parents=True)
    (src / "_traces" / "cpu" / REFERENCE_TORCH / recording.name).write_bytes(recording.read_bytes())
    (src / "conf.py").write_text(
        "extensions = ['myst_parser', 'walkthrough', 'walkthrough.sphinx.traces']\n"
        f"walkthrough_torch = {str(new)!r}\nwalkthrough_reference_torch = {str(old)!r}\n"
        "walkthrough_stage_hooks = False\nexclude_patterns = ['_traces']\n")
    (src / "index.md").write_text(f"# MLP\n\nSee {{torch-symbol}}`{M}:helper`.\n\n```{{torch-trace}} mlp\n:device: cpu\n```\n")
    write_lock(compute_lock(resolver_for(open_source(str(old))), scan_docs(src), []), src / "walkthrough.lock.json")

    def build() -> tuple[str, str]:
        status = io.StringIO()
        with docutils_namespace():
            app = Sphinx(str(src), str(src), str(tmp_path / "html"), str(tmp_path / "doctrees"), "html",
                         status=status, warning=io.StringIO())
            app.build()
        return (tmp_path / "html" / "index.html").read_text(), status.getvalue()

    html, _ = build()
    assert f"No CPU recording of this example with torch 2.0.0 is committed: this one was recorded with torch {REFERENCE_TORCH}." in html
    _, status = build()
    assert "0 added, 0 changed, 0 removed" in status  # nothing re-read while nothing changed
    (src / "_traces" / "cpu" / "2.0.0").mkdir()
    (src / "_traces" / "cpu" / "2.0.0" / recording.name).write_bytes(recording.read_bytes())
    html, status = build()
    assert "No CPU recording of this example" not in html

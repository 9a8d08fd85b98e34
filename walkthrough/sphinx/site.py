"""The site shell's Sphinx side: the ``{pipeline-map}`` directive and the torch/verify banner on every torch page."""

from __future__ import annotations

from pathlib import Path

from docutils import nodes
from sphinx import addnodes
from sphinx.application import Sphinx
from sphinx.environment import BuildEnvironment
from sphinx.util.docutils import SphinxDirective

from tracers.vocabulary.releases import GITHUB_REPO
from walkthrough import __version__
from walkthrough.banner import PageStatus, RecordedReport, ReleaseStatus, ReportFormatError, page_status, read_reports
from walkthrough.lock import LockError, read_lock
from walkthrough.pipeline import pipeline_boxes
from walkthrough.sphinx.directives import WalkthroughError, _resolver, release_view
from walkthrough.sphinx.verify_counts import VerifyCounts

PIPELINE_DIRECTIVE = "pipeline-map"


def _doc_link(target: str, text: str, classes: list[str]) -> nodes.inline:
    """A link to another page by docname, resolved (and checked) by Sphinx when the page is written.

    The classes go on a wrapper: resolving a doc reference keeps only the text of what it wraps.
    """
    link = addnodes.pending_xref("", refdomain="std", reftype="doc", reftarget="/" + target,
                                 refexplicit=True, refwarn=True)
    link += nodes.Text(text)
    return nodes.inline("", "", link, classes=classes)


class PipelineMap(SphinxDirective):
    """``{pipeline-map}``: the stages of tracers/tracefile/stages.py in order, each box linked to its chapter once written."""

    def run(self) -> list[nodes.Node]:
        self.env.wt_pipeline_docs = getattr(self.env, "wt_pipeline_docs", set()) | {self.env.docname}
        steps = nodes.enumerated_list(classes=["wt-pipeline"])
        for box in pipeline_boxes(self.env.found_docs):
            item = nodes.list_item(classes=["wt-stage"] + ([] if box.linked else ["wt-stage-todo"]))
            head = nodes.paragraph(classes=["wt-stage-head"])
            # The box is labelled with its chapter's number, the one the prose and the sidebar use; the stage's
            # place in the pipeline is the boxes' order (a stage number beside it would read as a chapter).
            if box.chapter_number is not None:
                label = f"ch. {box.chapter_number}"
                head += nodes.inline(label, label, classes=["wt-stage-chapter"])
            if box.linked:
                head += _doc_link(box.chapter, box.title, ["wt-stage-title"])
            else:
                head += nodes.inline(box.title, box.title, classes=["wt-stage-title"])
            item += head
            entry = nodes.paragraph(classes=["wt-stage-entry"])
            for index, name in enumerate(box.entry_points):
                if index:
                    entry += nodes.Text(" ")
                entry += nodes.literal(name, name)
            item += entry
            if not box.linked:
                item += nodes.paragraph("chapter to come", "chapter to come", classes=["wt-stage-note"])
            steps += item
        figure = nodes.container(classes=["wt-pipeline-map"])
        figure += nodes.rubric("The pipeline, stage by stage", "The pipeline, stage by stage")
        figure += steps
        return [figure]


def _status(app: Sphinx, docname: str) -> PageStatus | None:
    """The banner's data for one page, computed from the lock and the recorded verify reports."""
    lock_path = Path(app.srcdir, app.config.walkthrough_lock)
    reports_dir = Path(app.srcdir, app.config.walkthrough_verify_reports)
    try:
        lock = read_lock(lock_path)
        reports = read_reports(reports_dir)
    except (LockError, ReportFormatError) as exc:
        raise WalkthroughError(str(exc)) from None
    resolver = _resolver(app.config)
    status = page_status(lock, docname, reports, resolver.version, resolver.source.git_version)
    if status is not None and docname == app.config.root_doc:  # the front page speaks for the whole site
        status = page_status(lock, docname, reports, resolver.version, resolver.source.git_version, whole_site=True)
    if status is not None:
        # Re-read the page when the data its banner shows changes.
        app.env.note_dependency(str(lock_path))
        for report in reports:
            app.env.note_dependency(str(reports_dir / f"{report.release}.md"))
    return status


CHANGES_PAGE = "changes"  # docs/changes.md: what changed in this release (the {release-changes} directive)


def _release_drift(app: Sphinx, docname: str) -> ReleaseStatus | None:
    """For a site built against another release than the lock's: how much of this page drifted there."""
    view = release_view(app.env)
    if view.is_reference or view.lock is None:
        return None
    statuses = {(f.kind, f.name): f.status for f in view.report.findings}
    live = RecordedReport(view.release, view.target.version, statuses)
    status = page_status(view.lock, docname, (live,), view.target.version, view.target.source.git_version)
    return status.releases[0] if status else None


def _release_line(app: Sphinx, drift: ReleaseStatus) -> nodes.paragraph:
    view = release_view(app.env)
    line = nodes.paragraph(classes=["wt-banner-release", f"wt-{drift.state}"])
    line += nodes.Text(f"This is the walkthrough for torch {view.release}; its text was written against torch "
                       f"{view.reference_version}. Here: {drift.text}")
    if drift.drifted:
        line += nodes.Text(" — marked where they appear below")
    line += nodes.Text(". ")
    if CHANGES_PAGE in app.env.found_docs:
        line += _doc_link(CHANGES_PAGE, f"What changed in torch {view.release}", ["wt-changes-link"])
    return line


VERIFY_PAGE = "verify/index"  # docs/verify/index.md: the verify reports, the summary and "What changed", grouped


def _banner(app: Sphinx, status: PageStatus) -> nodes.container:
    """One quiet line: the torch the excerpts come from, and how they fare against the lock and other releases.

    Drift in another release is news about that release, not a fault of the page: it is said in words (the
    reports have the detail), and the front page only points to it.
    """
    base = status.torch_version.split("+", 1)[0]
    line = nodes.paragraph(classes=["wt-banner-line"])
    source = nodes.inline(classes=["wt-banner-source"])
    source += nodes.Text("Excerpts and source links from ")
    source += nodes.strong(f"torch {status.torch_version}", f"torch {status.torch_version}")
    if status.git_version:
        short = status.git_version[:10]
        source += nodes.Text(" (git ")
        commit = nodes.reference("", "", refuri=f"{GITHUB_REPO}/tree/{status.git_version}", internal=False)
        commit += nodes.literal(short, short)
        source += commit
        source += nodes.Text(")")
    line += source
    verify = nodes.inline(classes=["wt-banner-verify"])
    locked = release_view(app.env).reference_version or base
    verify += nodes.Text(f"checked against torch {locked}: {status.entries}/{status.entries} current")
    reports_dir = app.config.walkthrough_verify_reports.strip("/")
    if status.releases and app.env.docname == app.config.root_doc:
        verify += nodes.Text("; other releases: ")
        target = VERIFY_PAGE if VERIFY_PAGE in app.env.found_docs else f"{reports_dir}/SUMMARY"
        if target in app.env.found_docs:
            verify += _doc_link(target, "see what drifted", ["wt-verify-link"])
        else:
            verify += nodes.Text(", ".join(release.release for release in status.releases))
    elif status.releases:
        verify += nodes.Text("; in other releases:")
        for index, release in enumerate(status.releases):
            chip = nodes.inline(classes=["wt-release", f"wt-release-{release.state}"])
            docname = f"{reports_dir}/{release.release}"
            if docname in app.env.found_docs:
                chip += _doc_link(docname, release.release, ["wt-release-name"])
            else:
                chip += nodes.inline(release.release, release.release, classes=["wt-release-name"])
            chip += nodes.Text(f" {release.short}")
            verify += nodes.Text(" " if index == 0 else " · ")
            verify += chip
    line += nodes.Text(" · ")
    line += verify
    banner = nodes.container(classes=["wt-banner"])
    banner += line
    drift = _release_drift(app, app.env.docname)
    if drift is not None:
        banner += _release_line(app, drift)
    return banner


def add_banner(app: Sphinx, doctree: nodes.document) -> None:
    """Put the banner under the page's title, on every page whose torch content is in the lock."""
    if not app.config.walkthrough_lock:
        return  # no lock, nothing to say about verify status
    status = _status(app, app.env.docname)
    if status is None:
        return
    section = next(iter(doctree.findall(nodes.section)), None)
    if section is not None and section.children and isinstance(section[0], nodes.title):
        section.insert(1, _banner(app, status))
    else:
        doctree.insert(0, _banner(app, status))


def _outdated(app: Sphinx, env: BuildEnvironment, added: set[str], changed: set[str],
              removed: set[str]) -> list[str]:
    """A page with the pipeline map links chapters only once they exist: re-read it when pages come or go."""
    if added or removed:
        return sorted(getattr(env, "wt_pipeline_docs", set()) - removed)
    return []


def _purge(app: Sphinx, env: BuildEnvironment, docname: str) -> None:
    getattr(env, "wt_pipeline_docs", set()).discard(docname)


def _merge(app: Sphinx, env: BuildEnvironment, docnames: set[str], other: BuildEnvironment) -> None:
    env.wt_pipeline_docs = getattr(env, "wt_pipeline_docs", set()) | getattr(other, "wt_pipeline_docs", set())


def setup(app: Sphinx) -> dict:
    app.setup_extension("walkthrough")  # the lock check, the resolver and the static folder
    app.add_config_value("walkthrough_verify_reports", "verify", "env", [str])
    app.add_directive(PIPELINE_DIRECTIVE, PipelineMap)
    app.add_directive("verify-counts", VerifyCounts)
    app.add_css_file("site.css")
    app.connect("doctree-read", add_banner)
    app.connect("env-get-outdated", _outdated)
    app.connect("env-purge-doc", _purge)
    app.connect("env-merge-info", _merge)
    return {"version": __version__, "parallel_read_safe": True, "parallel_write_safe": True}

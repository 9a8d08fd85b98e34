"""The release site's Sphinx side: the version switcher on every page and the ``{release-changes}`` page body."""

from __future__ import annotations

from pathlib import Path

from docutils import nodes
from sphinx import addnodes
from sphinx.application import Sphinx
from sphinx.util.docutils import SphinxDirective

from walkthrough import __version__
from walkthrough.banner import ReportFormatError, read_reports
from walkthrough.sphinx.directives import WalkthroughError, release_view
from walkthrough.releases import switcher
from walkthrough.releases.catalog import label, supported
from walkthrough.releases.changes import changelog, render_findings
from walkthrough.sphinx.site import _doc_link
from walkthrough.verify import DRIFT

CHANGES_DIRECTIVE = "release-changes"


def _switcher(app: Sphinx) -> switcher.Switcher | None:
    path = app.config.walkthrough_switcher
    if not path:
        return None
    try:
        return switcher.Switcher.read(Path(path))
    except (OSError, ValueError, KeyError) as exc:
        raise WalkthroughError(f"walkthrough_switcher {path}: not a release list ({exc})") from None


def add_switcher(app: Sphinx, pagename: str, templatename: str, context: dict, doctree) -> None:  # noqa: ANN001
    """Above each page's body: the same page in every release this site carries."""
    found = _switcher(app)
    if found is None or pagename not in app.env.found_docs or "body" not in context:
        return
    html = switcher.render(switcher.links(found, release_view(app.env).release, pagename))
    context["body"] = html + context["body"]


class ReleaseChanges(SphinxDirective):
    """``{release-changes}``: in a build for another release, what changed since the reference, by chapter;
    in the reference build, every supported release with its verify counts and its page."""

    has_content = False

    def run(self) -> list[nodes.Node]:
        view = release_view(self.env)
        if view.is_reference:
            return self._overview(view.release)
        report = view.report
        intro = nodes.paragraph()
        counts = report.counts()
        summary = ", ".join(f"{counts[s]} {s}" for s in ("SAME", "MOVED", "CHANGED", "MISSING", "INHERITED",
                                                        "UNCHECKED") if counts[s])
        intro += nodes.Text(f"torch {report.target_version} (git {report.target_git[:12]}) against the reference "
                            f"torch {report.baseline_version}, from the same verify run as the pages' marks: "
                            f"{summary}. Every hook target, symbol link, excerpt and fact of the walkthrough "
                            "is listed below when it is not the same, grouped by chapter and pipeline stage.")
        out: list[nodes.Node] = [intro]
        for group in changelog(report):
            if not group.findings:
                continue
            head = nodes.rubric(classes=["wt-changes-chapter"])
            if group.chapter in self.env.found_docs:
                # Not explicit: Sphinx puts the chapter's title in when it resolves the link.
                link = addnodes.pending_xref("", refdomain="std", reftype="doc", reftarget="/" + group.chapter,
                                             refexplicit=False, refwarn=True)
                link += nodes.inline(group.chapter, group.chapter)
                head += link
            else:
                head += nodes.Text(group.chapter)
            if group.stages:
                head += nodes.Text(f" — {', '.join(group.stages)}")
            out.append(head)
            if group.unchanged:
                text = (f"{group.unchanged} more {'entry' if group.unchanged == 1 else 'entries'} of this chapter "
                        f"{'is' if group.unchanged == 1 else 'are'} the same.")
                out.append(nodes.paragraph(text, text, classes=["wt-muted"]))
            out.append(nodes.raw("", render_findings(group.findings, report), format="html"))
        return out

    def _overview(self, reference: str) -> list[nodes.Node]:
        """The reference build: which releases there are, how each fares, and where its own page is."""
        try:
            reports = {r.release: r for r in read_reports(Path(self.env.srcdir, self.config.walkthrough_verify_reports))}
        except ReportFormatError as exc:
            raise WalkthroughError(str(exc)) from None
        built = _switcher(self.env.app)
        intro = nodes.paragraph()
        intro += nodes.Text(f"This is the reference build (torch {reference}): its pages are the ones the lock was "
                            "written against, so nothing here drifted. Each other release has its own build of the "
                            "walkthrough and its own page of what changed.")
        items = nodes.bullet_list()
        reports_dir = self.config.walkthrough_verify_reports.strip("/")
        # The same page in each built release, as the switcher links it.
        this_page = {found.release: found for found in switcher.links(built, reference, self.env.docname)
                     if found.exists} if built else {}
        for release in supported():
            if release == reference:
                continue
            item = nodes.paragraph()
            item += nodes.strong(label(release), label(release))
            if release in this_page:
                item += nodes.Text(": ")
                link = nodes.reference("", "", refuri=this_page[release].href, internal=False)
                link += nodes.Text("what changed")
                item += link
            report = reports.get(release)
            if report is not None:
                counts = report.counts()
                drifted = sum(c[status] for c in counts.values() for status in DRIFT)
                item += nodes.Text(f"; verify: {drifted} entries drifted (")
                if f"{reports_dir}/{release}" in self.env.found_docs:
                    item += _doc_link(f"{reports_dir}/{release}", "report", [])
                else:
                    item += nodes.Text("report")
                item += nodes.Text(")")
            items += nodes.list_item("", item)
        return [intro, items]


def setup(app: Sphinx) -> dict:
    app.setup_extension("walkthrough.sphinx.site")  # the banner's release line, the doc links, the release view
    # The release list of a site that carries several releases (written by python -m walkthrough build --all).
    app.add_config_value("walkthrough_switcher", "", "html", [str])
    app.add_directive(CHANGES_DIRECTIVE, ReleaseChanges)
    app.connect("html-page-context", add_switcher)
    return {"version": __version__, "parallel_read_safe": True, "parallel_write_safe": True}

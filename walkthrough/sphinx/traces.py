"""The Sphinx side of recorded traces, kept thin: the torch-trace directive, its tabs, download and links."""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

from docutils import nodes
from docutils.parsers.rst import directives
from sphinx.application import Sphinx
from sphinx.errors import NoUri

from tracers.analysis.report_model import build_report
from tracers.vocabulary.releases import REFERENCE_TORCH, source_url
from tracers.report.fragment import report_body, report_header, stylesheet_path
from tracers.report.options import Links, RenderOptions
from tracers.report.artifacts import selection_problems
from tracers.report.options import DEFAULT_ARTIFACTS, EMBED_PARTS, parse_parts, split_list
from tracers.tracefile.names import CACHE_MODES, DEVICES, Recording, TraceName, find_recording, recording_pattern
from tracers.tracefile.chrome import TraceFileError, load
from tracers.tracefile.events import Trace
from tracers.tracefile.stages import STAGE_BY_ID, USER_STAGE
from walkthrough import __version__
from walkthrough.html_ids import scope_ids
from walkthrough.sphinx.directives import PageDirective, WalkthroughError, _resolver, release_view
from walkthrough.symbols import SymbolNotFound

TRACE_DIRECTIVE = "torch-trace"
DEVICE_LABELS = {"cpu": "CPU", "cuda": "CUDA"}
SYNC_GROUP = "torch-trace-device"  # every trace's tabs on a page switch together
RAW_CLASS = "wt-trace-html"
CHAPTER_PLACEHOLDER = "torch-trace-chapter:"  # survives HTML escaping; resolved per builder at write time
_PLACEHOLDER = re.compile(re.escape(CHAPTER_PLACEHOLDER) + r"([\w./-]+)")
_SOURCE_URLS: dict[tuple[str, str], str | None] = {}  # (walkthrough_torch, target) -> link; resolving parses files


def _choice(values: tuple[str, ...]):  # noqa: ANN202 - a docutils option converter
    return lambda argument: directives.choice(argument, values)


class TorchTrace(PageDirective):
    """``{torch-trace} stem``: the recording ``<walkthrough_traces>/<device>/<release>/<stem>-<device>-<cache>.json``.

    :device: cpu, cuda or both (default: tabs for whichever recordings exist)
    :cache: cold (default) or warm
    :parts: findings, counts, timeline, tree, code, kernels, artifacts (default: timeline, tree, counts, artifacts)
    :artifacts: kinds or torch's names (default: graph, guards, break, recompile, code)
    :compile: one compile id, e.g. 0/0: only its artifacts
    :open: stage ids whose tree nodes start open (default: the top two levels), inside the tree's fold: the tree
           itself starts folded under one line
    :caption: a line under the header
    :rank: N: rank N's trace of a distributed run (``<stem>-<device>-<cache>-rank<N>.json``)
    """

    required_arguments = 1
    has_content = False
    option_spec = {
        "device": _choice((*DEVICES, "both")),
        "cache": _choice(CACHE_MODES),
        "parts": directives.unchanged_required,
        "artifacts": directives.unchanged_required,
        "compile": directives.unchanged_required,
        "open": directives.unchanged_required,
        "caption": directives.unchanged,
        "rank": directives.nonnegative_int,
    }


    def run(self) -> list[nodes.Node]:
        stem = self.arguments[0]
        device = self.options.get("device", "both")
        cache = self.options.get("cache", "cold")
        devices = DEVICES if device == "both" else (device,)
        root = Path(self.env.srcdir, self.config.walkthrough_traces)
        rank = int(self.options["rank"]) if "rank" in self.options else None
        release = release_view(self.env).release
        recordings = [found for name in devices
                      if (found := find_recording(root, TraceName(stem, name, cache, rank), REFERENCE_TORCH,
                                                  prefer=release))]
        for recording in recordings:
            if recording.release != release:
                # Re-read the page once this release's own recording lands (see _outdated; a dependency
                # on a file that does not exist yet would re-read it on every build).
                own = root / recording.device / release / recording.path.name
                self.env.wt_trace_fallbacks = getattr(self.env, "wt_trace_fallbacks", {})
                self.env.wt_trace_fallbacks.setdefault(self.env.docname, set()).add(str(own))
        if not recordings:
            pattern = recording_pattern(root, TraceName(stem, devices[0], cache, rank), devices)
            raise WalkthroughError(f"{self.where}: no recorded trace of {stem!r} ({cache}): looked for {pattern}")
        options = self._options(stem)
        loaded = [(recording, self._load(recording)) for recording in recordings]
        problems = selection_problems([trace for _, trace in loaded], options.artifacts, options.compile_id)
        self._fallbacks: dict[str, str] = {}
        if problems and release != REFERENCE_TORCH:
            loaded = self._fall_back(loaded, root, stem, cache, "; ".join(problems))
            problems = selection_problems([trace for _, trace in loaded], options.artifacts, options.compile_id)
        if problems:
            raise WalkthroughError(f"{self.where}: {'; '.join(problems)}")
        blocks = [(recording, self._block(recording, trace, options)) for recording, trace in loaded]
        if device != "both":
            return [blocks[0][1]]
        return [_tab_set(blocks)]

    def _fall_back(self, loaded: list[tuple[Recording, Trace]], root: Path, stem: str, cache: str,
                   why: str) -> list[tuple[Recording, Trace]]:
        """A release's own recording lacks what the page shows (its run may have failed there): the reference's instead."""
        out = []
        for recording, trace in loaded:
            other = find_recording(root, TraceName(stem, recording.device, cache), REFERENCE_TORCH)
            if other is None or other.release == recording.release:
                out.append((recording, trace))
                continue
            ended = f" (its run ended: {trace.info.status}: {trace.info.error})" if trace.info.status != "ok" else ""
            self._fallbacks[recording.device] = (
                f"torch {recording.release}'s recording of this example lacks what this page shows{ended}: "
                f"{why}. This one was recorded with torch {other.release}.")
            out.append((other, self._load(other)))
        return out

    def _options(self, stem: str) -> RenderOptions:
        try:
            parts = parse_parts(self.options["parts"]) if "parts" in self.options else EMBED_PARTS
        except ValueError as exc:
            raise WalkthroughError(f"{self.where}: :parts: {exc}") from None
        opened = self.options.get("open")
        unknown = [stage for stage in split_list(opened or "") if stage not in STAGE_BY_ID and stage != USER_STAGE]
        if unknown:
            raise WalkthroughError(f"{self.where}: :open: unknown stage id(s) {', '.join(unknown)}; "
                                   f"choose from {', '.join(STAGE_BY_ID)}")
        return RenderOptions(
            parts=parts,
            artifacts=split_list(self.options.get("artifacts", "")) or DEFAULT_ARTIFACTS,
            compile_id=self.options.get("compile"),
            open_stages=frozenset(split_list(opened)) if opened else None,
            caption=self.options.get("caption") or "",
            title=stem,
        )

    def _load(self, recording: Recording) -> Trace:
        self.env.note_dependency(str(recording.path))
        try:
            return load(recording.path)
        except TraceFileError as exc:
            raise WalkthroughError(f"{self.where}: {exc}") from None

    def _block(self, recording: Recording, trace: Trace, options: RenderOptions) -> nodes.Element:
        options = replace(options, expected_torch=self.declared_releases(recording.device))
        self.check_release("trace", recording.path.name, recording.device, trace.info.torch_version)
        links = Links(chapter_url=self._chapter_url, source_url=self._source_url, page_url=self._page_url)
        try:
            report = build_report(trace)
            header = report_header(report, options, links)
            body = "".join(_part(report, links, options, part) for part in options.parts)
        except (TypeError, ValueError, KeyError, AttributeError) as exc:
            # The loader checks the file's shape, not every value's type: a hand-edited trace ends here.
            raise WalkthroughError(f"{self.where}: {recording.path}: trace file is damaged "
                                   f"({type(exc).__name__}: {exc})") from None
        block = nodes.container(classes=["wt-trace"])
        block += nodes.raw("", header, format="html", classes=[RAW_CLASS])
        release = release_view(self.env).release
        if recording.device in getattr(self, "_fallbacks", {}):
            text = self._fallbacks[recording.device]
            block += nodes.paragraph(text, text, classes=["wt-trace-release"])
        elif recording.release != release:
            # A site built for another release than the recording's: say so where the reader sees the trace.
            text = (f"No {recording.device.upper() if recording.device == 'cuda' else 'CPU'} recording of this "
                    f"example with torch {release} is committed: this one was recorded with torch "
                    f"{recording.release}.")
            block += nodes.paragraph(text, text, classes=["wt-trace-release"])
        block += self._download(recording)
        block += nodes.raw("", body, format="html", classes=[RAW_CLASS])
        return block

    def _download(self, recording: Recording) -> nodes.paragraph:
        """A link to the JSON through Sphinx's download mechanism: it copies the file into _downloads/."""
        reference = self.download(recording.path)
        hint = nodes.inline("", " — the trace file; open it in ", classes=["wt-muted"])
        hint += nodes.reference("ui.perfetto.dev", "ui.perfetto.dev", refuri="https://ui.perfetto.dev")
        return nodes.paragraph("", "Download ", reference, hint, classes=["wt-trace-download"])

    def _chapter_url(self, stage_id: str) -> str | None:
        """The stage's chapter, only once that page exists (many are still to be written).

        A placeholder for now: the builder turns it into a relative URL when the page is written.
        """
        stage = STAGE_BY_ID.get(stage_id)
        if stage is None or stage.chapter not in self.env.found_docs:
            return None
        return f"{CHAPTER_PLACEHOLDER}{stage.chapter}"

    def _page_url(self, path: str) -> str | None:
        """A page of this site (``chapters/05-graph-breaks#section``, as findings name them), once it exists."""
        page, _, section = path.partition("#")
        if page not in self.env.found_docs:
            return None
        return f"{CHAPTER_PLACEHOLDER}{page}" + (f"#{section}" if section else "")

    def _source_url(self, target: str) -> str | None:
        """Torch's lines of a recorded target in the torch this site is built from; None if it lacks it."""
        if target.startswith(f"{USER_STAGE}:"):
            return None  # a region the script marked: its code is the user's, not torch's
        key = (self.config.walkthrough_torch, target)
        if key not in _SOURCE_URLS:
            resolver = _resolver(self.config)
            try:
                symbol = resolver.resolve(target)
            except (SymbolNotFound, ValueError):
                _SOURCE_URLS[key] = None
            else:
                _SOURCE_URLS[key] = source_url(symbol.path, symbol.start, symbol.end, resolver.source.git_version)
        return _SOURCE_URLS[key]


TREE_FOLD_CLASS = "wt-tree-fold"


def _part(report, links: Links, options: RenderOptions, part: str) -> str:  # noqa: ANN001 - a report model Report
    """One part of a trace block. On a chapter page the call tree starts folded, under one line that says what
    it holds: it is hundreds of timed rows, there for the reader who opens it (the nodes ``:open:`` names are
    open inside the fold)."""
    html = report_body(report, links, replace(options, parts=(part,)))
    if part != "tree":
        return html
    calls = len(report.trace.spans)
    summary = f"Call tree: {calls} timed call{'s' if calls != 1 else ''}, nested as they ran"
    return f'<details class="{TREE_FOLD_CLASS}"><summary>{summary}</summary>{html}</details>'


def _tab_set(blocks: list[tuple[Recording, nodes.Element]]) -> nodes.Element:
    """sphinx-design's tab-set, built as its directives build it, so MyST and rST pages get the same."""
    from sphinx_design.shared import create_component

    tab_set = create_component("tab-set", classes=["sd-tab-set"])
    for recording, block in blocks:
        label_text = DEVICE_LABELS.get(recording.device, recording.device)
        label = nodes.rubric(label_text, label_text, classes=["sd-tab-label"])
        label["sync_id"] = recording.device
        label["sync_group"] = SYNC_GROUP
        content = create_component("tab-content", classes=["sd-tab-content"], children=[block])
        tab_set += create_component("tab-item", classes=["sd-tab-item"], children=[label, content])
    return tab_set


def resolve_chapter_links(app: Sphinx, doctree: nodes.document, docname: str) -> None:
    """Chapter placeholders in trace HTML -> URLs relative to the page, as this builder spells them; and the ids
    inside each block made the page's own (the same recording shown twice, or in two tabs, repeats its ids)."""

    def url(match: re.Match[str]) -> str:
        try:
            return app.builder.get_relative_uri(docname, match[1])
        except NoUri:
            return "#"
    for index, raw in enumerate([raw for raw in doctree.findall(nodes.raw) if RAW_CLASS in raw["classes"]]):
        html = raw.astext()
        scoped = scope_ids(_PLACEHOLDER.sub(url, html), f"wt{index}-")
        if scoped != html:
            raw.replace_self(nodes.raw("", scoped, format="html", classes=raw["classes"]))


def _outdated(app: Sphinx, env, added: set[str], changed: set[str], removed: set[str]) -> list[str]:  # noqa: ANN001
    """Pages that show another release's recording, re-read once their own release's recording exists."""
    fallbacks = getattr(env, "wt_trace_fallbacks", {})
    return sorted(doc for doc, paths in fallbacks.items() if any(Path(p).is_file() for p in paths))


def _purge(app: Sphinx, env, docname: str) -> None:  # noqa: ANN001
    getattr(env, "wt_trace_fallbacks", {}).pop(docname, None)


def _merge(app: Sphinx, env, docnames: set[str], other) -> None:  # noqa: ANN001
    env.wt_trace_fallbacks = {**getattr(env, "wt_trace_fallbacks", {}),
                              **{doc: paths for doc, paths in getattr(other, "wt_trace_fallbacks", {}).items()
                                 if doc in docnames}}


def _add_static(app: Sphinx, config) -> None:  # noqa: ANN001 - a Sphinx Config
    config.html_static_path.append(str(Path(stylesheet_path()).parent))


def setup(app: Sphinx) -> dict:
    app.setup_extension("walkthrough")  # the torch tree that source links resolve in
    app.setup_extension("sphinx_design")  # tabs for CPU / CUDA
    app.add_config_value("walkthrough_traces", "_traces", "env", [str])
    # Releases other than the reference that traces of a device may have been recorded with, e.g.
    # {"cuda": "2.11.0"} when CUDA traces come from a GPU machine with another torch.
    app.add_config_value("walkthrough_trace_versions", {}, "env", [dict])
    app.add_directive(TRACE_DIRECTIVE, TorchTrace)
    app.add_css_file(Path(stylesheet_path()).name)
    app.connect("config-inited", _add_static)
    app.connect("doctree-resolved", resolve_chapter_links)
    app.connect("env-get-outdated", _outdated)
    app.connect("env-purge-doc", _purge)
    app.connect("env-merge-info", _merge)
    return {"version": __version__, "parallel_read_safe": True, "parallel_write_safe": True}

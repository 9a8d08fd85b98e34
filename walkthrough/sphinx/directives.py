"""The Sphinx side, kept thin: the torch-excerpt directive, the torch-symbol and torch-fact roles, the lock check."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from docutils import nodes
from docutils.parsers.rst import directives
from sphinx import addnodes
from sphinx.application import Sphinx
from sphinx.errors import SphinxError
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective, SphinxRole

from tracers.vocabulary.releases import REFERENCE_TORCH, source_url
from tracers.tracefile.names import TraceName, find_recording, recording_pattern
from tracers.report.templating import render_from
from tracers.report.versions import VersionCheck, check_version
from tracers.tracefile.chrome import TraceFileError, load
from walkthrough import __version__
from walkthrough.excerpt import Excerpt, ExcerptError, build, parse_spec
from walkthrough.facts import Claim, evaluate, evaluate_live
from walkthrough.lock import LOCK_COMMAND, LockError, compute_lock, read_lock, stage_hooks, stale_reasons
from walkthrough.pages import EXCERPT_DIRECTIVE, FACT_ROLE, SYMBOL_ROLE, PageError, role_target, scan_docs
from walkthrough.ranlines import RanLines, parse_trace_option, ran_lines
from walkthrough.releases.context import ReleaseView, open_release
from walkthrough.releases.display import fact_value, render_excerpt_view, symbol_mark
from walkthrough.releases.drift import FactView, excerpt_view, fact_view, symbol_view
from walkthrough.render import render_excerpt, symbol_url
from walkthrough.source import SourceError, open_source
from walkthrough.symbols import Resolver, SymbolNotFound, resolver_for

STATIC = Path(__file__).parent.parent / "static"  # walkthrough/static, shipped as package data
_RESOLVERS: dict[str, Resolver] = {}
_VIEWS: dict[tuple, ReleaseView] = {}


logger = logging.getLogger(__name__)


class WalkthroughError(SphinxError):
    category = "walkthrough error"


class PageDirective(SphinxDirective):
    """A directive over recorded data: errors name the page's file and line, a recording from an
    undeclared torch release is warned about, and the recording can be offered for download."""

    @property
    def where(self) -> str:
        """``chapters/01-entry.md:12``."""
        source, line = self.get_source_info()
        return f"{os.path.relpath(source, self.env.srcdir) if source else self.env.docname}:{line}"

    def declared_releases(self, device: str) -> frozenset[str]:
        """Releases the site expects besides the reference for a device (conf.py's walkthrough_trace_versions)."""
        declared = getattr(self.config, "walkthrough_trace_versions", {}).get(device) or ()
        # A site built for another release expects that release's recordings too.
        return frozenset((declared,) if isinstance(declared, str) else declared) | {release_view(self.env).release}

    def check_release(self, kind: str, name: str, device: str, torch_version: str) -> VersionCheck:
        """Which torch recorded a file (a ``kind``: trace, measurement, toolbox recording); a warning
        unless it is the reference or declared, subtype ``<first word of kind>_version``."""
        version = check_version(torch_version, REFERENCE_TORCH, self.declared_releases(device))
        if not version.expected:
            logger.warning(f"{kind} {name} ({device}) was {version.message}; declare the release in "
                           f"walkthrough_trace_versions or record it again",
                           type="walkthrough", subtype=f"{kind.split()[0]}_version", location=(self.env.docname, self.lineno))
        return version

    def download(self, path: Path) -> addnodes.download_reference:
        """A link to a recorded file through Sphinx's download mechanism (copied into _downloads/)."""
        doc_dir = Path(self.env.doc2path(self.env.docname)).parent
        target = Path(os.path.relpath(path, doc_dir)).as_posix()
        return addnodes.download_reference("", "", nodes.literal(path.name, path.name), reftarget=target,
                                           refdoc=self.env.docname, refexplicit=True, reftype="download",
                                           refdomain="", refwarn=False)


def _resolver(config) -> Resolver:  # noqa: ANN001 - a Sphinx Config
    spec = config.walkthrough_torch
    if spec not in _RESOLVERS:
        try:
            _RESOLVERS[spec] = resolver_for(open_source(spec))
        except SourceError as exc:
            raise WalkthroughError(str(exc)) from None
    return _RESOLVERS[spec]


def release_view(env) -> ReleaseView:  # noqa: ANN001 - a Sphinx BuildEnvironment
    """The release this site is built for, against the lock: the reference (strict) or another (drift shown).

    One verify run per release and process (the same classifier as ``python -m walkthrough verify``)."""
    config = env.config
    lock_path = Path(env.srcdir, config.walkthrough_lock) if config.walkthrough_lock else None
    resolver = _resolver(config)
    key = (config.walkthrough_torch, config.walkthrough_reference_torch, str(lock_path),
           lock_path.stat().st_mtime_ns if lock_path and lock_path.exists() else 0, config.walkthrough_stage_hooks)
    if key not in _VIEWS:
        try:
            lock = read_lock(lock_path) if lock_path else None
        except LockError as exc:
            raise WalkthroughError(str(exc)) from None
        if lock is None:  # nothing locked yet: the installed tree is its own reference
            _VIEWS[key] = ReleaseView(resolver, lock, resolver, None)  # type: ignore[arg-type]
        else:
            hooks = stage_hooks() if config.walkthrough_stage_hooks else []
            try:
                _VIEWS[key] = open_release(resolver.source, lock, config.walkthrough_reference_torch, hooks,
                                           cache=Path(env.doctreedir))
            except SourceError as exc:
                raise WalkthroughError(str(exc)) from None
            if not _VIEWS[key].is_reference:
                logger.info(f"walkthrough: torch {resolver.version} is not the locked {lock.torch_version}; "
                            "drift is shown in the pages")
    return _VIEWS[key]


def _drift_mark(text: str, title: str, status: str) -> nodes.raw:
    """A small badge after a symbol link or fact: what drifted, the details in its tooltip."""
    html = render_from("walkthrough", "drift_mark.html", status=status.lower(), tip=title or text, text=text)
    return nodes.raw("", html, format="html")


class TorchExcerpt(SphinxDirective):
    """``{torch-excerpt} module:qualname`` with :start:/:end:/:emphasize:/:caption: and callout lines.

    ``:trace: EXAMPLE [DEVICE/CACHE]`` marks the lines that ran in that recorded example (cpu/cold by default).
    """

    required_arguments = 1
    has_content = True
    option_spec = {"start": directives.unchanged, "end": directives.unchanged,
                   "emphasize": directives.unchanged, "caption": directives.unchanged,
                   "trace": directives.unchanged_required}

    def run(self) -> list[nodes.Node]:
        options = {key: value or "" for key, value in self.options.items()}
        where = f"{self.env.docname}:{self.lineno}"
        view = release_view(self.env)
        try:
            spec = parse_spec(self.arguments[0], options, list(self.content))
            if not view.is_reference:
                return [self._drifted(view, spec)]
            excerpt = build(_resolver(self.config), spec)
            ran = self._ran_lines(excerpt) if spec.trace else None
        except (ValueError, SymbolNotFound, ExcerptError) as exc:
            raise WalkthroughError(f"{where}: {exc}") from None
        return [nodes.raw("", render_excerpt(excerpt, ran), format="html")]

    def _drifted(self, view: ReleaseView, spec) -> nodes.raw:  # noqa: ANN001 - an ExcerptSpec
        """Another release: its code, marked when it drifted from the reference; never an error for drift."""
        shown = excerpt_view(view, self.env.docname, spec)
        ran = None
        if spec.trace and shown.excerpt is not None and not shown.from_reference:
            ran = self._ran_lines(shown.excerpt)
        return nodes.raw("", render_excerpt_view(shown, ran, view.target.source.git_version), format="html")

    def _ran_lines(self, excerpt: Excerpt) -> RanLines:
        """The recording is found as torch-trace finds it: this build's release, else the reference, else the newest."""
        example, device, cache = parse_trace_option(excerpt.spec.trace)
        root = Path(self.env.srcdir, getattr(self.config, "walkthrough_traces", "_traces"))
        name = TraceName(example, device, cache)
        recording = find_recording(root, name, REFERENCE_TORCH, prefer=release_view(self.env).release)
        if recording is None:
            raise ValueError(f":trace: no recorded trace of {example!r} ({device}, {cache}): looked for "
                             f"{recording_pattern(root, name)}")
        self.env.note_dependency(str(recording.path))
        try:
            return ran_lines(excerpt, load(recording.path), example)
        except TraceFileError as exc:
            raise ValueError(f":trace: {exc}") from None


class TorchSymbol(SphinxRole):
    """``{torch-symbol}`module:qualname``` (or ``title <module:qualname>``): a link to its exact lines."""

    def run(self) -> tuple[list[nodes.Node], list[nodes.system_message]]:
        title, target = role_target(self.text)
        resolver = _resolver(self.config)
        view = release_view(self.env)
        if not view.is_reference:
            try:
                return self._drifted(view, title, target), []
            except ValueError as exc:
                raise WalkthroughError(f"{self.env.docname}:{self.lineno}: {exc}") from None
        try:
            symbol = resolver.resolve(target)
        except (ValueError, SymbolNotFound) as exc:
            raise WalkthroughError(f"{self.env.docname}:{self.lineno}: {exc}") from None
        label = title or target.partition(":")[2]
        reference = nodes.reference("", "", internal=False, classes=["wt-symbol"],
                                    refuri=symbol_url(symbol, resolver.source.git_version))
        reference += nodes.literal(label, label)
        return [reference], []

    def _drifted(self, view: ReleaseView, title: str, target: str) -> list[nodes.Node]:
        shown = symbol_view(view, target)
        label = title or target.partition(":")[2]
        node: nodes.Element = nodes.literal(label, label)
        if shown.symbol is not None:
            link = nodes.reference("", "", internal=False, classes=["wt-symbol"],
                                   refuri=symbol_url(shown.symbol, shown.git_version))
            link += node
            node = link
        text, tip = symbol_mark(shown)
        return [node, _drift_mark(text, tip, shown.status)] if text else [node]


class TorchFact(SphinxRole):
    """``{torch-fact}`dotted.name == literal```: shows the value, and fails the build when torch disagrees."""

    def run(self) -> tuple[list[nodes.Node], list[nodes.system_message]]:
        title, text = role_target(self.text)
        where = f"{self.env.docname}:{self.lineno}"
        resolver = _resolver(self.config)
        try:
            claim = Claim.parse(text)
        except ValueError as exc:
            raise WalkthroughError(f"{where}: {exc}") from None
        view = release_view(self.env)
        result = evaluate(resolver, claim)
        if result.status == "unknown" and self.config.walkthrough_torch == "installed":
            result = evaluate_live(claim, result)  # not a literal: ask the installed torch itself
        if not view.is_reference and not result.holds:
            # Another release: a claim that no longer holds is content, shown beside what the release has.
            shown = fact_view(view, claim, result)
            return self._drifted(title or claim.expected_text, shown, resolver, fact_value(shown)), []
        if not result.holds:
            detail = f"torch {resolver.version} has {result.actual}" if result.actual else result.reason
            raise WalkthroughError(f"{where}: fact {claim.text} is false: {detail}")
        label = title or claim.expected_text
        node: nodes.Element = nodes.literal(label, label, classes=["wt-fact"])
        if result.line:
            reference = nodes.reference("", "", internal=False, classes=["wt-fact-link"],
                                        refuri=source_url(result.path, result.line, None,
                                                          resolver.source.git_version))
            reference += node
            node = reference
        return [node], []

    @staticmethod
    def _drifted(label: str, shown: FactView, resolver: Resolver, mark: str) -> list[nodes.Node]:
        """The claim as written, then what this release has (linked to its line when there is one)."""
        result = shown.result
        nodes_out: list[nodes.Node] = [nodes.literal(label, label, classes=["wt-fact", "wt-fact-stale"])]
        if mark:
            nodes_out.append(_drift_mark(mark, f"the page claims {result.claim.text}", shown.status.lower()))
        if result.line:
            link = nodes.reference("", "", internal=False, classes=["wt-fact-link"],
                                   refuri=source_url(result.path, result.line, None, resolver.source.git_version))
            link += nodes_out[0]
            nodes_out[0] = link
        return nodes_out


def _check_key(resolver: Resolver, pages: list, hooks: list, lock_path: Path) -> str:
    """What the lock check's outcome depends on: the torch tree, every page's references, the hooks, the lock."""
    source = resolver.source
    digest = hashlib.sha256(repr((source.version, source.git_version, source.origin, pages, hooks)).encode())
    digest.update(lock_path.read_bytes())
    return digest.hexdigest()


def check_lock(app: Sphinx) -> None:
    """Fail the build when the lock no longer matches the pages and the torch they are built from."""
    if not app.config.walkthrough_lock:
        return
    path = Path(app.srcdir, app.config.walkthrough_lock)
    hooks = stage_hooks() if app.config.walkthrough_stage_hooks else []
    view = release_view(app.env)
    # Another release is checked for drift, not against the lock: the lock must still fit the pages,
    # which the reference tree decides.
    resolver = view.reference if view.is_reference or view.reference is not None else None
    if resolver is None:
        logger.info("walkthrough: no tree of the locked torch here, so the lock's freshness is not checked")
        return
    # Resolving every locked symbol parses dozens of torch's largest files; an incremental build whose
    # inputs to this check are unchanged reuses the last passing check (kept beside the doctrees).
    passed = Path(app.doctreedir, "walkthrough-lock-check")
    try:
        pages = scan_docs(Path(app.srcdir))
        key = _check_key(resolver, pages, hooks, path) if path.exists() else ""
        if key and passed.exists() and passed.read_text(encoding="utf-8") == key:
            return
        reasons = stale_reasons(read_lock(path), compute_lock(resolver, pages, hooks))
    except (LockError, PageError) as exc:
        raise WalkthroughError(str(exc)) from None
    if reasons:
        shown = "; ".join(reasons[:5]) + (f"; and {len(reasons) - 5} more" if len(reasons) > 5 else "")
        raise WalkthroughError(f"{path.name} is stale ({shown}): run {LOCK_COMMAND}")
    passed.parent.mkdir(parents=True, exist_ok=True)
    passed.write_text(key, encoding="utf-8")


def _add_static(app: Sphinx, config) -> None:  # noqa: ANN001 - a Sphinx Config
    config.html_static_path.append(str(STATIC))


def setup(app: Sphinx) -> dict:
    app.add_config_value("walkthrough_torch", "installed", "env", [str])
    app.add_config_value("walkthrough_lock", "walkthrough.lock.json", "env", [str])
    app.add_config_value("walkthrough_stage_hooks", True, "env", [bool])
    # The locked release's tree, for a build against another release: diffs and the code of gone excerpts.
    app.add_config_value("walkthrough_reference_torch", "auto", "env", [str])
    app.add_directive(EXCERPT_DIRECTIVE, TorchExcerpt)
    app.add_role(SYMBOL_ROLE, TorchSymbol())
    app.add_role(FACT_ROLE, TorchFact())
    app.add_css_file("walkthrough.css")
    app.connect("config-inited", _add_static)
    app.connect("builder-inited", check_lock)
    return {"version": __version__, "parallel_read_safe": True, "parallel_write_safe": True}

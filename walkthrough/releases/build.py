"""Build the walkthrough for one torch release, or for every supported one into one site with a switcher."""

from __future__ import annotations

import contextlib
import importlib.util
import io
import re
import sys
import time
import webbrowser  # noqa: F401 - tests stand a browser in through it
from dataclasses import dataclass
from html import escape
from pathlib import Path

from tracers.commands.browser import show
from tracers.vocabulary.releases import REFERENCE_TORCH
from tracers.vocabulary.sites import SiteMarker, user_sites
from tracers.tracefile.atomic import write_text_atomic
from walkthrough import __version__
from walkthrough.bundle import site_sources
from walkthrough.releases.catalog import installed_release, label, supported
from walkthrough.releases.switcher import SWITCHER_FILE, Switcher, site_pages
from walkthrough.source import SourceError, open_source

ROOT = Path(__file__).resolve().parent.parent.parent  # the checkout: conf.py and docs/
DEFAULT_OUT = Path("build") / "releases"  # in a checkout; an installed package builds into user_sites()
CHECKOUT_SITE = Path("build") / "html"  # what `nox -s docs` builds in a clone; `open` uses it when built for its torch
# What the pages import while Sphinx builds them (the `docs` extra), checked first so a missing one is one line.
SITE_MODULES = ("sphinx", "myst_parser", "sphinx_design", "sphinx_copybutton", "furo", "pygments")


@dataclass(frozen=True)
class Planned:
    release: str  # e.g. 2.15.0
    spec: str  # what the build reads it from: installed, a version (cached wheel), a wheel, a directory
    version: str = ""  # the full version, e.g. 2.15.0+cpu
    git: str = ""  # its git commit


@dataclass(frozen=True)
class Place:
    """Where a build reads its sources and where it puts the site unless --out says otherwise."""

    conf: Path  # the directory holding conf.py
    docs: Path
    root: Path  # build/releases in a checkout; the per-user site dir for an installed package


@dataclass(frozen=True)
class Built:
    planned: Planned
    out: Path
    seconds: float
    returncode: int  # sphinx-build's: 0 built, else it printed why
    output: str  # Sphinx's warnings and errors

    @property
    def ok(self) -> bool:
        return self.returncode == 0


def plan(spec: str) -> Planned:
    """One release from a spec; opening it here (fetching a version's wheel once) turns a bad spec into one line. A
    release number outside the supported ones is refused before anything is fetched; its wheel, given as a file or
    an unpacked folder, still builds."""
    if re.fullmatch(r"\d+\.\d+\.\d+", spec) and spec not in supported():
        raise SourceError(f"torch {spec}: not a release the walkthrough is built for (supported: "
                          f"{', '.join(supported())}); to build it anyway, pass its wheel file or a folder holding "
                          "its torch/")
    source = open_source(spec)
    return Planned(source.base_version, spec, source.version, source.git_version)


def plan_all(releases: tuple[str, ...] | None = None) -> list[Planned]:
    """Every supported release (or the ones given): the installed torch where it is that release, else its wheel."""
    wanted = releases or supported()
    unknown = [r for r in wanted if r not in supported()]
    if unknown:
        raise SourceError(f"not a supported release: {', '.join(unknown)} (supported: {', '.join(supported())}; "
                          "the list is walkthrough/releases/catalog.py)")
    installed = installed_release()
    planned = []
    for release in wanted:
        spec = "installed" if release == installed else release
        planned.append(plan(spec))
    return planned


def build_one(planned: Planned, out: Path, doctrees: Path, *, docs: Path = ROOT / "docs", conf: Path = ROOT,
              switcher: Path | None = None, progress=None) -> Built:  # noqa: ANN001 - a print-like callable
    """sphinx-build for one release, warnings as errors (drift is content, so it never warns); ``progress`` is
    told each chapter read, as "chapters 3/24"."""
    overrides = {"walkthrough_torch": planned.spec, "html_title": f"torch.compile, stage by stage — torch {planned.release}"}
    if switcher is not None:
        overrides["walkthrough_switcher"] = str(switcher.resolve())
    started = time.perf_counter()
    captured, terminal = io.StringIO(), sys.stderr

    def told(text: str) -> None:  # progress reaches the terminal; what else the build prints is captured
        with contextlib.redirect_stderr(terminal):
            progress(text)

    with contextlib.redirect_stderr(captured):
        returncode = _sphinx(docs, conf, out, doctrees, overrides, captured, told if progress else None)
    if returncode == 0:  # a built site says which torch it is for: trace pages written later link to it then
        marker(planned).write(out)
    return Built(planned, out, time.perf_counter() - started, returncode, captured.getvalue())


def _sphinx(docs: Path, conf: Path, out: Path, doctrees: Path, overrides: dict, warnings: io.StringIO,
            progress) -> int:  # noqa: ANN001 - a print-like callable, or None
    """What ``sphinx-build -W --keep-going -q -b html`` does, told of each chapter read; 0 built, else Sphinx's."""
    from sphinx.application import Sphinx
    from sphinx.util.docutils import docutils_namespace, patch_docutils

    counts = {"done": 0, "all": 0}

    def before_reading(app, env, docnames) -> None:  # noqa: ANN001 - Sphinx's event arguments
        counts["all"] = len(docnames)

    def read(app, doctree) -> None:  # noqa: ANN001
        counts["done"] += 1
        done, every = counts["done"], max(1, counts["all"] // 10)  # about ten lines, not one per page
        if progress is not None and (done % every == 0 or done == counts["all"]):
            progress(f"      chapters {done}/{counts['all']} read")

    try:
        with patch_docutils(conf), docutils_namespace():
            app = Sphinx(docs, conf, out, doctrees, "html", overrides, status=None, warning=warnings,
                         warningiserror=True)
            app.connect("env-before-read-docs", before_reading)
            app.connect("doctree-read", read)
            app.build()
            return app.statuscode
    except Exception as error:  # noqa: BLE001 - as sphinx-build: the build failed, its message is the output
        print(f"{type(error).__name__}: {error}", file=warnings)
        return 2


def marker(planned: Planned) -> SiteMarker:
    return SiteMarker(planned.release, planned.version or planned.release, planned.git, __version__)


def place(docs: Path | None) -> Place:
    """A checkout builds from its conf.py and docs/ into build/releases (as always); an installed package from the
    copy its wheel carries into the per-user site dir (tracers/vocabulary/sites.py), where trace pages find it."""
    sources = site_sources()
    if sources is None:
        raise SourceError("this install carries no site sources (walkthrough/_site/): reinstall the package from its "
                          "wheel, or run from a checkout")
    if sources.checkout:
        return Place(sources.conf, docs or Path("docs"), DEFAULT_OUT)
    return Place(sources.conf, docs or sources.docs, user_sites())


def require_site_modules() -> None:
    missing = [name for name in SITE_MODULES if importlib.util.find_spec(name) is None]
    if missing:
        raise SourceError(f"building the walkthrough needs {', '.join(missing)}: "
                          "pip install 'torch-compile-walkthrough[docs]'")


def build_site(planned: list[Planned], out: Path, *, docs: Path = ROOT / "docs", conf: Path = ROOT,
               progress=print) -> list[Built]:  # noqa: ANN001 - a print-like callable
    """Each release into ``out/<release>/``, with the switcher's release list and a root page opening the reference."""
    out.mkdir(parents=True, exist_ok=True)
    pages = site_pages(docs)
    reference = REFERENCE_TORCH if any(p.release == REFERENCE_TORCH for p in planned) else planned[0].release
    listing = Switcher(reference, {p.release: pages for p in planned})
    listing.write(out / SWITCHER_FILE)
    built = []
    for index, item in enumerate(planned, 1):
        progress(f"[{index}/{len(planned)}] torch {item.release} from {item.spec} → {out / item.release}/ ...")
        result = build_one(item, out / item.release, out / ".doctrees" / item.release, docs=docs, conf=conf,
                           switcher=out / SWITCHER_FILE, progress=progress)
        progress(f"      {'built' if result.ok else 'FAILED'} in {result.seconds:.1f} s" +
                 ("" if result.ok else f":\n{result.output.rstrip()}"))
        built.append(result)
    write_text_atomic(out / "index.html", landing_page(listing, {b.planned.release for b in built if b.ok}))
    return built


def landing_page(listing: Switcher, ok: set[str]) -> str:
    """The site's root: opens the reference's walkthrough, and lists every release with its "what changed" page."""
    rows = []
    for release in listing.pages:
        if release not in ok:
            rows.append(f"<li>torch {escape(label(release))}: its build failed</li>")
            continue
        changes = (f' · <a href="{escape(release)}/changes.html">what changed since {escape(listing.reference)}</a>'
                   if release != listing.reference and "changes" in listing.pages[release] else "")
        rows.append(f'<li><a href="{escape(release)}/index.html">torch {escape(label(release))}</a>{changes}</li>')
    start = f"{escape(listing.reference)}/index.html"
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="refresh" content="0; url={start}">
<title>torch.compile, stage by stage — every release</title>
<link rel="icon" href="data:,">
</head><body>
<h1>torch.compile, stage by stage</h1>
<p>The walkthrough for each supported torch release; it opens the reference,
<a href="{start}">torch {escape(listing.reference)}</a>.</p>
<ul>{"".join(rows)}</ul>
</body></html>
"""


def _say(text: str) -> None:
    print(text, file=sys.stderr, flush=True)  # progress goes to stderr; stdout says where the site is


def _chosen(releases: str) -> tuple[str, ...] | None:
    return tuple(r.strip() for r in releases.split(",") if r.strip()) if releases else None


def _checked_place(docs: Path | None) -> Place:
    where = place(docs)
    if not where.docs.is_dir():
        raise SourceError(f"{where.docs}: no docs directory (run from the repository root, or pass --docs)")
    require_site_modules()
    return where


def main_build(spec: str | None, all_releases: bool, out: Path | None, releases: str, docs: Path | None) -> int:
    """The ``python -m walkthrough build`` command: 0 built, 1 a build failed (Sphinx said why), 2 bad input."""
    where = _checked_place(docs)
    if all_releases:
        return _build_all(plan_all(_chosen(releases)), out or where.root, where)
    planned = plan(spec or "installed")
    return _build_release(planned, out or where.root / planned.release, where)


def _build_all(planned: list[Planned], root: Path, where: Place) -> int:
    built = build_site(planned, root, docs=where.docs, conf=where.conf, progress=_say)
    failed = [b.planned.release for b in built if not b.ok]
    print(f"site: {root / 'index.html'} ({len(built) - len(failed)} of {len(built)} releases built"
          + (f"; failed: {', '.join(failed)}" if failed else "") + ")")
    return 1 if failed else 0


def _build_release(planned: Planned, target: Path, where: Place) -> int:
    _say(f"building the walkthrough for torch {planned.release} from {planned.spec} → {target}/ ...")
    result = build_one(planned, target, target / ".doctrees", docs=where.docs, conf=where.conf, progress=_say)
    if not result.ok:
        _say(result.output.rstrip())
        print(f"walkthrough build: torch {planned.release} failed after {result.seconds:.1f} s (Sphinx's messages above)")
        return 1
    print(f"site: {target / 'index.html'} (torch {planned.release}, {result.seconds:.1f} s)")
    return 0


def built_for(site: Path, planned: Planned) -> bool:
    """Whether ``site`` holds the walkthrough built for ``planned``'s torch: its marker says so, or (a plain
    ``nox -s docs`` build, which writes none) its pages link torch's source at that torch's commit."""
    if not (site / "index.html").is_file():
        return False
    found = SiteMarker.read(site)
    if found is not None:
        return found.release == planned.release and (not planned.git or found.torch_git == planned.git)
    if not planned.git:
        return False
    needle = f"/blob/{planned.git}/"
    for page in sorted(site.glob("chapters/*.html")) or sorted(site.glob("*.html")):
        try:
            if needle in page.read_text(encoding="utf-8", errors="replace"):
                return True
        except OSError:
            continue
    return False


def clone_sites() -> list[Path]:
    """The ``build/html`` of the clone this package runs from, and of the current directory when it is a clone."""
    sources, found = site_sources(), []
    if sources is not None and sources.checkout:
        found.append(sources.conf / CHECKOUT_SITE)
    here = Path.cwd()
    if (here / "conf.py").is_file() and (here / "docs" / "index.md").is_file():
        found.append(here / CHECKOUT_SITE)
    return list(dict.fromkeys(path.resolve() for path in found))


def open_target(planned: Planned) -> Path:
    """The one rule of ``open`` (console script and ``python -m`` alike): a clone's ``build/html`` when it is built
    for this torch, else the per-user cache's ``<release>/`` (built there when missing or stale)."""
    for site in clone_sites():
        if built_for(site, planned):
            return site
    return user_sites() / planned.release


def main_open(spec: str | None, all_releases: bool, out: Path | None, releases: str, docs: Path | None) -> int:
    """The ``open`` command: the built site in a browser, built first when it is missing or was built by another
    version of this package or from another torch build. 0 opened; 1, 2 as ``build``'s; 3 no browser (the path
    printed instead)."""
    if all_releases:
        root = out or user_sites()
        index = root / "index.html"
        if not index.is_file():  # a site of every release is built once; `build --all` refreshes it
            where = _checked_place(docs)
            code = _build_all(plan_all(_chosen(releases)), root, where)
            if code:
                return code
    else:
        planned = plan(spec or "installed")
        target = out or open_target(planned)
        index = target / "index.html"
        in_clone = out is None and target != user_sites() / planned.release  # a clone's build/html, built for it
        if not in_clone and SiteMarker.read(target) != marker(planned):
            code = _build_release(planned, target, _checked_place(docs))
            if code:
                return code
    print(f"opening {index}")
    return show(index)

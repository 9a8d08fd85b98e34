"""``python -m walkthrough compare --torch A --torch B SCRIPT``: trace under both releases, compare, write and print."""

from __future__ import annotations

import shutil
import sys
from dataclasses import dataclass, replace
from pathlib import Path

from tracers.report.links import chapter_site
from tracers.terminal.style import style_for
from tracers.tracefile.atomic import write_text_atomic
from tracers.tracefile.chrome import TraceFileError, load
from tracers.tracefile.names import run_name
from tracers.tracefile.stages import STAGE_BY_ID
from walkthrough.lock import LockError
from walkthrough.releases.build import place
from walkthrough.releases.builds import Build, machine_build
from walkthrough.releases.venvs import unsupported_line, venvs_note
from walkthrough.source import VERSION_RE, SourceError

from . import entries
from .compute import Traced, comparison, moved_stages, relative
from .model import Comparison, ReleaseSide, StageChanges, to_json
from .page import PageLinks, render_page
from .runs import CompareError, Program, interpreter, trace_release
from .summary import render

DEFAULT_OUT = Path("compare")
REPORT, PAGE = "comparison.json", "comparison.html"  # in the comparison's folder, beside each release's runs


class UsageError(Exception):
    """Bad input: one line, exit status 2."""


@dataclass(frozen=True)
class CompareOptions:
    releases: tuple[str, str]
    program: Program
    repeat: int = 3
    out: Path = DEFAULT_OUT
    build: str = ""  # cpu or cuda on both sides; "": this machine's (cuda where it has a GPU)


def check(options: CompareOptions) -> None:
    """One line for the first bad value, before anything is installed or run."""
    if len(options.releases) != 2:
        raise UsageError(f"give two releases, --torch A --torch B (got {len(options.releases)})")
    for release in options.releases:
        if not VERSION_RE.match(release):
            raise UsageError(f"{release!r}: not a torch version like 2.15.0")
        if unsupported_line(release):  # before either venv is made
            raise UsageError(unsupported_line(release))
    if options.releases[0] == options.releases[1]:
        raise UsageError(f"both releases are {options.releases[0]}: compare two different ones")
    if options.repeat < 1:
        raise UsageError(f"--repeat {options.repeat}: give 1 or more runs per release")
    program = options.program
    if not program.module and not Path(program.script).is_file():
        raise UsageError(f"{program.script}: no such script")
    if options.out.exists() and not options.out.is_dir():
        raise UsageError(f"--out {options.out}: a file, not a directory")
    folder = folder_for(options)
    if folder.exists():
        # A rerun replaces its own earlier comparison; a folder holding anything else is not ours to remove.
        foreign = sorted(path.name for path in folder.iterdir() if path.name not in {*options.releases, REPORT, PAGE})
        if foreign or not folder.is_dir():
            raise UsageError(f"{folder}: exists and holds other files ({', '.join(foreign[:3]) or 'a file'}); "
                             "move it or give another --out")


def folder_for(options: CompareOptions) -> Path:
    """``OUT/<run>-<A>-vs-<B>/``: one comparison's runs, report and page."""
    a, b = options.releases
    return options.out / f"{run_name(options.program.script, options.program.module)}-{a}-vs-{b}"


def _side(release: str, python: Path, runs: tuple, folder: Path, build: Build) -> tuple[ReleaseSide, Traced]:  # noqa: ANN001
    try:
        traces = [load(Path(run.trace)) for run in runs]
    except TraceFileError as exc:
        raise CompareError(f"torch {release}: {exc}") from None
    info = traces[0].info
    kept = tuple(replace(run, trace=relative(run.trace, folder), output=relative(run.output, folder)) for run in runs)
    side = ReleaseSide(release, info.torch_version, info.torch_git_sha, _shown(python), kept, build.label)
    return side, Traced(side, traces)


def build_note(a: Build, b: Build, machine: str) -> str:
    """Which builds ran, said where it matters: two kinds (never made so, but said if found), CUDA without a GPU."""
    if a.label != b.label:
        return f"different builds: {a.label} against {b.label}; their times are not comparable (a CUDA build imports more)"
    if a.kind == "cuda" and machine == "cpu":
        return (f"both sides are {a.label} builds, run on a machine without a GPU (--build cuda): CUDA itself is not used, "
                "but a CUDA build imports more than a CPU build, so these times are not a CPU build's")
    return ""


def _shown(python: Path) -> str:
    """The interpreter as the report names it: from the working dir when under it, else with ``~`` for the home
    directory (a release venv in the per-user cache): the report is data others read, not this machine's paths."""
    path = Path(python).absolute()
    try:
        return str(path.relative_to(Path.cwd()))
    except ValueError:
        pass
    try:
        return str(Path("~") / path.relative_to(Path.home()))
    except ValueError:
        return str(python)


def what_changed(result: Comparison, python_a: Path, python_b: Path) -> Comparison:
    """The comparison with the walkthrough's what-changed entries for every stage that moved."""
    moved = moved_stages(result.stages, result.a.release, result.b.release)
    if not moved:
        return result
    try:
        report, note = entries.between(entries.release_tree(python_a), entries.release_tree(python_b))
    except (SourceError, LockError, OSError) as exc:
        return replace(result, changes_note=f"the walkthrough's entries could not be compared: {exc}")
    found = entries.by_stage(report, [stage for stage, _ in moved])
    changes = tuple(StageChanges(stage, why, *found[stage]) for stage, why in moved)
    return replace(result, changes=changes, compared_entries=len(report.findings), changes_note=note)


def links_for(result: Comparison) -> PageLinks:
    """Chapters in the walkthrough the tracer's pages use; each release's own pages where that release is built."""
    base, _ = chapter_site(None, result.b.torch_version)
    try:
        releases = place(None).root
    except SourceError:
        releases = None

    def chapter_url(stage: str) -> str | None:
        known = STAGE_BY_ID.get(stage)
        return f"{base}{known.chapter}.html" if base and known else None

    def release_url(release: str, docname: str) -> str | None:
        page = releases / release / f"{docname}.html" if releases is not None else None
        return page.resolve().as_uri() if page is not None and page.is_file() else None

    return PageLinks(chapter_url, release_url)


def run_compare(options: CompareOptions) -> int:
    """The whole command; exit 0 when the script succeeded in every run, 1 when it failed in one (the comparison is
    still written), 2 for bad input, 1 when no comparison could be made."""
    check(options)
    folder = folder_for(options)
    if folder.exists():
        shutil.rmtree(folder)  # its own earlier comparison (check() made sure): old runs never mix with new
    build = options.build or machine_build()
    # Both releases' Pythons first: a release that cannot be had stops the command before anything is traced.
    found = [interpreter(release, build) for release in options.releases]
    pythons = [python for python, _ in found]
    sides = []
    for release, (python, kind) in zip(options.releases, found):
        runs = trace_release(release, python, options.program, folder / release, options.repeat)
        sides.append(_side(release, python, runs, folder, kind)[1])
    program = options.program
    result = comparison(program.command, program.device, program.cache, sides[0], sides[1])
    result = replace(result, build_note=build_note(found[0][1], found[1][1], machine_build()))
    print("comparing the walkthrough's entries of the stages that moved ...", file=sys.stderr, flush=True)
    result = what_changed(result, *pythons)
    report = write_text_atomic(folder / REPORT, to_json(result))
    page = write_text_atomic(folder / PAGE, render_page(result, links_for(result)))
    print(render(result, style_for(sys.stdout), [str(report), str(page)]))
    note = venvs_note()
    if note:
        print(note, file=sys.stderr)
    failed = any(code != 0 for side in (result.a, result.b) for code in side.exit_codes)
    return 1 if failed else 0

"""The one way a trace is saved (command line, API, ``%%trace``, pytest): its name claimed, the file, its page."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from tracers.analysis.report_model import Report, build_report
from tracers.analysis.trace_facts import TraceFacts
from tracers.tracefile.atomic import write_text_atomic
from tracers.tracefile.chrome import write_atomic
from tracers.tracefile.events import Trace, rank_of
from tracers.tracefile.names import TraceName, claim_name, inside, release_name
from tracers.vocabulary.imports import import_failure

from .links import links_for


class ReportUnavailable(Exception):
    """The page needs Jinja2 (the `page` extra); the message says so in one line."""


def write_report(trace: Trace, trace_file: Path, out_dir: Path | None = None, site: str | None = None,
                 facts: TraceFacts | None = None) -> Path:
    """The old call form of :func:`write_page` (analyses the trace itself; ``facts``: its analysis, if had)."""
    return write_page(build_report(trace, facts), trace_file, out_dir, site)


def write_page(report: Report, trace_file: Path, out_dir: Path | None = None, site: str | None = None) -> Path:
    """Write ``<trace stem>.html`` of ``report`` (beside the trace unless ``out_dir``); returns its path."""
    try:
        from .executed import installed_source
        from .options import PAGE_ARTIFACTS, PAGE_PAYLOAD_CHARS, RenderOptions
        from .page import report_page_pieces
    except ImportError as error:
        raise ReportUnavailable(import_failure("the HTML page", error)) from None
    page_dir = out_dir or trace_file.parent
    page_dir.mkdir(parents=True, exist_ok=True)
    page = page_dir / f"{trace_file.stem}.html"
    options = RenderOptions(title=trace_file.stem, max_total_payload_chars=PAGE_PAYLOAD_CHARS, artifacts=PAGE_ARTIFACTS)
    trace = report.trace
    torch = installed_source() if trace.info.lines_recorded or trace.executed_lines else None
    pieces = report_page_pieces(report, links_for(trace, trace_file, page_dir, site), options, torch)
    return write_text_atomic(page, pieces)  # written as it is made; whole or absent, Ctrl-C or not


@dataclass(frozen=True)
class Saved:
    """What saving a trace did: the files written, the name they took, and what the user must be told."""

    name: TraceName
    trace: Path | None  # None: the trace could not be written (``error`` says why)
    page: Path | None = None
    notes: tuple[str, ...] = ()  # the name was taken by another run; no page, and why
    error: str | None = None

    @property
    def written(self) -> list[Path]:
        return [path for path in (self.trace, self.page) if path is not None]


def save_trace(trace: Trace, out: Path, run: str, started: float, *, facts: TraceFacts | None = None,
               page: bool = True, site: str | None = None, keep_paths: bool = False) -> Saved:
    """The old call form of :func:`save_report` (analyses the trace itself when it writes the page)."""
    report = build_report(trace, facts) if page else None
    return _save(trace, report, out, run, started, site, keep_paths)


def save_report(report: Report, out: Path, run: str, started: float, *, page: bool = True, site: str | None = None,
                keep_paths: bool = False) -> Saved:
    """Save ``report``'s trace and, with ``page``, its page: as :func:`_save` says."""
    return _save(report.trace, report if page else None, out, run, started, site, keep_paths)


def _save(trace: Trace, report: Report | None, out: Path, run: str, started: float, site: str | None,
          keep_paths: bool) -> Saved:
    """Write ``trace`` into ``out`` as ``<run>-<device>-<cache>[-rank<N>].json``, the name claimed against other
    runs that started before ``started`` ended, and its page beside it. A trace that cannot be written is an
    ``error``; a page that cannot be written is a note (the trace is what must not be lost). The notes are added
    to the trace's warnings before it is written."""
    info = trace.info
    wanted = TraceName(run, info.device, info.cache_mode, rank_of(info))
    name = claim_name(out, wanted, started)
    notes: list[str] = []
    if name != wanted:
        notes.append(f"{wanted.file_name} belongs to another run that is still running or was written after this "
                     f"one started: this run's files are named {name.run}-…")
        info.warnings.append(notes[-1])
    path = inside(out, name.file_name)
    try:
        write_atomic(trace, path, keep_paths=keep_paths)
    except OSError as error:  # e.g. the disk filled up during the run
        return Saved(name, None, None, tuple(notes), f"cannot write {path}: {error.strerror or error}")
    finally:
        release_name(out, name)
    if report is None:  # no page asked for
        return Saved(name, path, None, tuple(notes))
    page, note = _page_or_note(report, path, site)
    return Saved(name, path, page, (*notes, note) if note else tuple(notes))


def save_over(trace: Trace, report: Report | None, path: Path, site: str | None, keep_paths: bool,
              pid: int) -> tuple[Path | None, tuple[str, ...]]:
    """``trace`` written again where its run saved it (its name was claimed then), with what came after the run
    (``--vs-eager``'s eager timings), still as process ``pid``, the one that recorded it; with ``report``, its page.
    Returns the page and what the user must be told (a trace that cannot be written again stays as first saved)."""
    notes: list[str] = []
    try:
        write_atomic(trace, path, keep_paths=keep_paths, pid=pid)
    except OSError as error:
        notes.append(f"cannot write {path} again: {error.strerror or error}; it stays as first saved")
        trace.info.warnings.append(notes[-1])
    page, note = _page_or_note(report, path, site) if report is not None else (None, None)
    return page, (*notes, note) if note else tuple(notes)


def _page_or_note(report: Report, trace_file: Path, site: str | None) -> tuple[Path | None, str | None]:
    """The page beside ``trace_file``, or why there is none (also added to the trace's warnings): the trace is
    written already, and a page that cannot be is no reason to lose it."""
    try:
        return write_page(report, trace_file, site=site), None
    except ReportUnavailable as error:
        note = f"no HTML page: {error}"
    except OSError as error:
        note = f"no HTML page: cannot write it: {error.strerror or error}"
    report.trace.info.warnings.append(note)
    return None, note

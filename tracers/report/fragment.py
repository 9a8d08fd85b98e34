"""One recorded trace as an HTML fragment: header, counts, timeline, call tree and artifacts."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from importlib.resources import files

from markupsafe import Markup

from tracers.analysis.report_model import Report, build_report
from tracers.analysis.trace_facts import TraceFacts
from tracers.tracefile.events import Trace
from tracers.vocabulary.exported import export_line, export_of, troubles

from .artifacts import artifact_pieces, select
from .by_code import by_code_html, kernels_html
from .counts import render_counts
from .findings import report_findings
from .options import Links, RenderOptions
from .speed import runtime_html
from .templating import render, safe, stream
from .timeline import render_timeline
from .tree import render_tree
from .versions import check_version

STYLESHEET = "trace.css"


def stylesheet() -> str:
    """The CSS the fragment needs (pages also need the code colours: highlight.py)."""
    return files(__package__).joinpath("static", STYLESHEET).read_text(encoding="utf-8")


def stylesheet_path() -> str:
    return str(files(__package__).joinpath("static", STYLESHEET))


@dataclass(frozen=True)
class LogNote:
    """A trace read from torch's TORCH_TRACE log (tracers/torchlogs/): which torch wrote it, what a log lacks."""

    file: str
    written_by: str
    lacks: tuple[str, ...]
    export: str | None  # its torch.export part, beside compiles
    notes: tuple[str, ...]  # what reading it noticed (torchlogs/notes.py), a note a line: folded on the page


@dataclass(frozen=True)
class HeaderView:
    title: str | None
    version_class: str
    git: str
    version: str
    device: str
    cache: str
    python: str
    ended: str | None  # how a run that was not ok ended
    failed: str | None  # a compile that failed (the script may have gone on, eager)
    download: str | None
    caption: str | None
    missing: str | None  # hooked entry points this torch lacks
    log: LogNote | None


def render_header(trace: Trace, options: RenderOptions = RenderOptions(), links: Links = Links(),
                  trace_facts: TraceFacts | None = None) -> str:
    """The old call form of :func:`report_header` (analyses the trace itself)."""
    return report_header(build_report(trace, trace_facts), options, links)


def report_header(report: Report, options: RenderOptions = RenderOptions(), links: Links = Links()) -> str:
    """What was recorded, with which torch (marked when it is not the reference), where and how it ended (a compile
    that failed said so: the script may have gone on, eager); templates/header.html."""
    info = report.trace.info
    version = check_version(info.torch_version, options.reference_torch, options.expected_torch)
    version_text = f"torch {info.torch_version}"
    if not version.is_reference:
        version_text += f" · not the reference {options.reference_torch}"
    status = f"exit {info.exit_code}" if info.status == "exit" and info.exit_code is not None else info.status
    ended = status + (f": {info.error}" if info.error else "") if info.status != "ok" else None  # as the summary says
    view = HeaderView(options.title, "wt-trace-version" + ("" if version.is_reference else " wt-not-reference"),
                      info.torch_git_sha or "unknown", version_text,
                      info.device + (f" ({info.device_name})" if info.device_name else ""), info.cache_mode,
                      info.python, ended, _failed(report), links.download_url, options.caption,
                      ", ".join(sorted(info.targets_missing)) if info.targets_missing else None, _log_note(info))
    return render("header.html", view=view)


def _failed(report: Report) -> str | None:
    """A compile that failed, and an export's problems: the page's head says what the summary's does."""
    return ", ".join(part for part in (report.failed, *troubles(export_of(report.trace.info.from_log))) if part) or None


def _log_note(info) -> LogNote | None:  # noqa: ANN001 - RunInfo
    log = info.from_log
    if not log:
        return None
    export = export_of(log)  # a log of export alone says so in the findings' place instead
    return LogNote(log.get("file", "?"), log.get("written_by", "?"), tuple(log.get("cannot_give", [])),
                   export_line(export) if export and export.get("with_compiles") else None, _reading_notes(log))


def _reading_notes(log: dict) -> tuple[str, ...]:
    """The notes the reader wrote; a trace read from a log before it wrote them: its counts of damage and the
    record kinds it lacks."""
    if "reading_notes" in log:
        return tuple(log["reading_notes"])
    notes = [f"{count} × {kind}" for kind, count in sorted((log.get("problems") or {}).items())]
    if log.get("missing_record_kinds"):
        notes.append(f"no {', '.join(log['missing_record_kinds'])} records (an older torch, or cut short)")
    return tuple(notes)


def report_body(report: Report, links: Links = Links(), options: RenderOptions = RenderOptions()) -> str:
    """The parts asked for, in the order asked for."""
    return "".join(stream("fragment.html", rendered=_parts(report, links, options)))


def _parts(report: Report, links: Links, options: RenderOptions) -> Iterator[tuple[str, Iterable[Markup]]]:
    """Each part asked for, by name, as pieces of HTML, made when the page reaches it."""
    trace, facts = report.trace, report.facts
    for part in options.parts:
        if part == "artifacts":  # the page's bulk at scale: made group by group as it is written
            chosen = select(trace.artifacts, options.artifacts, options.compile_id)
            yield part, artifact_pieces(chosen, trace.spans, facts, options.max_payload_chars,
                                        options.max_total_payload_chars, report.guard_failures)
            continue
        if part == "findings":
            html = report_findings(report, links, export_of(trace.info.from_log))
        elif part == "timeline":
            html = render_timeline(trace.spans, facts, links, trace.artifacts)
        elif part == "tree":
            html = render_tree(trace.spans, links, options.open_stages)
        elif part == "counts":
            html = render_counts(facts, trace.info, report.recompile_cause)
        elif part == "code":
            html = by_code_html(report.by_code)
        elif part == "kernels":
            html = kernels_html(report.kernels)
        elif part == "runtime":  # --vs-eager / --profile
            html = runtime_html(report.speed)
        else:
            raise ValueError(f"unknown part {part!r}")
        yield part, (safe(html),)


def render_fragment(trace: Trace, facts: TraceFacts | None = None, links: Links = Links(),
                    options: RenderOptions = RenderOptions()) -> str:
    """The old call form of :func:`report_fragment` (analyses the trace itself)."""
    return report_fragment(build_report(trace, facts), links, options)


def report_fragment(report: Report, links: Links = Links(), options: RenderOptions = RenderOptions()) -> str:
    """The whole block, self-contained but for the stylesheet: for pages that link the trace themselves."""
    return "".join(fragment_pieces(report, links, options))


def fragment_pieces(report: Report, links: Links = Links(), options: RenderOptions = RenderOptions()) -> Iterator[Markup]:
    """:func:`report_fragment` in pieces, each part made as it is reached: the page is written without holding it."""
    return stream("fragment.html", header=safe(report_header(report, options, links)),
                  rendered=_parts(report, links, options))

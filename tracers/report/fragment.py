"""One recorded trace as an HTML fragment: header, counts, timeline, call tree and artifacts."""

from __future__ import annotations

from importlib.resources import files

from tracers.analysis.report_model import Report, build_report
from tracers.analysis.trace_facts import TraceFacts
from tracers.tracefile.events import Trace
from tracers.vocabulary.exported import export_line, export_of

from .artifacts import render_artifacts, select
from .by_code import by_code_html, kernels_html
from .counts import render_counts
from .findings import report_findings
from .options import Links, RenderOptions
from .speed import runtime_html
from .text import esc
from .timeline import render_timeline
from .tree import render_tree
from .versions import check_version

STYLESHEET = "trace.css"


def stylesheet() -> str:
    """The CSS the fragment needs (pages also need a Pygments style for the code)."""
    return files(__package__).joinpath("static", STYLESHEET).read_text(encoding="utf-8")


def stylesheet_path() -> str:
    return str(files(__package__).joinpath("static", STYLESHEET))


def render_header(trace: Trace, options: RenderOptions = RenderOptions(), links: Links = Links(),
                  trace_facts: TraceFacts | None = None) -> str:
    """The old call form of :func:`report_header` (analyses the trace itself)."""
    return report_header(build_report(trace, trace_facts), options, links)


def report_header(report: Report, options: RenderOptions = RenderOptions(), links: Links = Links()) -> str:
    """What was recorded, with which torch (marked when it is not the reference), where and how it ended (a compile
    that failed said so: the script may have gone on, eager)."""
    info = report.trace.info
    version = check_version(info.torch_version, options.reference_torch, options.expected_torch)
    version_classes = "wt-trace-version" + ("" if version.is_reference else " wt-not-reference")
    version_text = f"torch {info.torch_version}"
    if not version.is_reference:
        version_text += f" · not the reference {options.reference_torch}"
    facts = [f'<span class="{version_classes}" title="torch git {esc(info.torch_git_sha or "unknown")}">'
             f'{esc(version_text)}</span>']
    device = info.device + (f" ({info.device_name})" if info.device_name else "")
    facts.append(f"<span>{esc(device)}</span>")
    facts.append(f"<span>{esc(info.cache_mode)} caches</span>")
    facts.append(f"<span>Python {esc(info.python)}</span>")
    if info.status != "ok":
        ended = info.status + (f": {info.error}" if info.error else "")
        facts.append(f'<span class="wt-flag">run ended: {esc(ended)}</span>')
    if report.failed:
        facts.append(f'<span class="wt-flag">{esc(report.failed)}</span>')
    title = f'<span class="wt-trace-title">{esc(options.title)}</span> ' if options.title else ""
    download = ""
    if links.download_url:
        download = (f' <a class="wt-download" href="{esc(links.download_url)}" download>trace JSON</a>'
                    ' <span class="wt-muted">(open it in <a href="https://ui.perfetto.dev">Perfetto</a>)</span>')
    caption = f'<div class="wt-caption">{esc(options.caption)}</div>' if options.caption else ""
    missing = ""
    if info.targets_missing:
        names = ", ".join(sorted(info.targets_missing))
        missing = f'<p class="wt-note">This torch lacks some hooked entry points: {esc(names)}.</p>'
    return (f'<div class="wt-trace-header">{title}{" · ".join(facts)}{download}</div>{caption}{missing}'
            f'{_from_log_note(info)}')


def _from_log_note(info) -> str:  # noqa: ANN001 - RunInfo
    """A trace read from torch's TORCH_TRACE log (tracers/torchlogs/): which torch wrote it, what a log lacks."""
    log = info.from_log
    if not log:
        return ""
    lacks = "".join(f"<li>{esc(item)}</li>" for item in log.get("cannot_give", []))
    damage = ", ".join(f"{count} × {kind}" for kind, count in sorted((log.get("problems") or {}).items()))
    damage_note = f" Damage met reading it (skipped): {esc(damage)}." if damage else ""
    missing = log.get("missing_record_kinds") or []
    missing_note = f" It has no {esc(', '.join(missing))} records (an older torch, or cut short)." if missing else ""
    export = export_of(log)  # a log of export alone says so in the findings' place instead
    export_note = (f'<p class="wt-from-export">{esc(export_line(export))}</p>'
                   if export and export.get("with_compiles") else "")
    return (f'<div class="wt-note wt-from-log"><p>Read from torch\'s own TORCH_TRACE log '
            f'<code>{esc(log.get("file", "?"))}</code>, written by {esc(log.get("written_by", "?"))}.'
            f'{damage_note}{missing_note} A log does not hold:</p><ul>{lacks}</ul>{export_note}</div>')


def report_body(report: Report, links: Links = Links(), options: RenderOptions = RenderOptions()) -> str:
    """The parts asked for, in the order asked for."""
    trace, facts = report.trace, report.facts
    rendered = []
    for part in options.parts:
        if part == "findings":
            html = report_findings(report, links, export_of(trace.info.from_log))
        elif part == "timeline":
            html = render_timeline(trace.spans, facts, links, trace.artifacts)
        elif part == "tree":
            html = render_tree(trace.spans, links, options.open_stages)
        elif part == "counts":
            html = render_counts(facts, trace.info, report.guard_failures)
        elif part == "code":
            html = by_code_html(report.by_code)
        elif part == "kernels":
            html = kernels_html(report.kernels)
        elif part == "runtime":  # --vs-eager / --profile
            html = runtime_html(report.speed)
        elif part == "artifacts":
            chosen = select(trace.artifacts, options.artifacts, options.compile_id)
            html = render_artifacts(chosen, trace.spans, facts, options.max_payload_chars,
                                    options.max_total_payload_chars, report.guard_failures)
        else:
            raise ValueError(f"unknown part {part!r}")
        rendered.append(f'<section class="wt-trace-part" data-part="{part}">{html}</section>')
    return "".join(rendered)


def render_fragment(trace: Trace, facts: TraceFacts | None = None, links: Links = Links(),
                    options: RenderOptions = RenderOptions()) -> str:
    """The old call form of :func:`report_fragment` (analyses the trace itself)."""
    return report_fragment(build_report(trace, facts), links, options)


def report_fragment(report: Report, links: Links = Links(), options: RenderOptions = RenderOptions()) -> str:
    """The whole block, self-contained but for the stylesheet: for pages that link the trace themselves."""
    return (f'<div class="wt-trace">{report_header(report, options, links)}'
            f'{report_body(report, links, options)}</div>')

"""`python -m tracers merge`: rank traces in, one merged trace, its page and the multi-rank summary out."""

from __future__ import annotations

import sys
from pathlib import Path

from tracers.capture.options import TraceOptions
from tracers.report.save import open_in_browser
from tracers.terminal.style import style_for
from tracers.tracefile.validation import Dropped
from tracers.tracefile.names import parse

from .merge import MergedRun, MergeError, find_rank_files, load_merged, load_run, write_merged
from .summary import as_json, markers, render, report


def _write(run: MergedRun, out: Path, page: bool, quiet: bool, site: str | None = None,
           open_page: bool = False) -> int:
    result = report(run)
    try:
        write_merged(run, out, markers(result), as_json(result))
    except OSError as error:
        print(f"merge: cannot write {out}: {error.strerror or error}", file=sys.stderr)
        return 2
    written = [str(out)]
    if page:
        from .page import PageUnavailable, write_page

        try:
            page_path = write_page(result, out, site=site)
            written.append(str(page_path))
            if open_page:
                open_in_browser(page_path)
        except PageUnavailable as error:
            print(f"merge: no HTML page: {error}", file=sys.stderr)
        except OSError as error:
            print(f"merge: no HTML page: cannot write it: {error.strerror or error}", file=sys.stderr)
    if quiet:
        print("\n".join(written), file=sys.stderr)
    else:
        print(render(result, style_for(sys.stderr), written), file=sys.stderr)
    return 0


def write_run(run: MergedRun, out: Path, page: bool, quiet: bool, site: str | None = None) -> int:
    """Write a merged run, its page and its summary (``trace`` does this for a run's processes)."""
    return _write(run, out, page, quiet, site)


def run_merge(inputs: list[str], out: str | None, page: bool = True, quiet: bool = False) -> int:
    """The ``merge`` command; 0 merged, 2 nothing usable to merge (the message says why)."""
    try:
        files = find_rank_files(inputs)
        run = load_run(files)
    except MergeError as error:
        print(f"merge: {error}", file=sys.stderr)
        return 2
    target = Path(out) if out else files[0].parent / run.file_name
    return _write(run, target, page, quiet)


def merge_run(directory: Path, name: str, cache: str, nproc: int, since: float, options: TraceOptions) -> int:
    """After ``trace --nproc``: merge the rank traces this launch wrote (newer than ``since``)."""
    files = []
    for path in sorted(directory.glob(f"{name}-*-{cache}-rank*.json")):
        parsed = parse(path.name)
        if parsed and parsed.run == name and parsed.rank is not None and parsed.rank < nproc \
                and path.stat().st_mtime >= since - 1:
            files.append(path)
    if not files:
        print(f"trace: no rank wrote a trace into {directory}/ (did torchrun start the ranks?)", file=sys.stderr)
        return 1
    try:
        run = load_run(files, world_size=nproc)
    except MergeError as error:
        print(f"trace: cannot merge the ranks' traces: {error}", file=sys.stderr)
        return 1
    return _write(run, directory / run.file_name, options.page, options.quiet, options.site, options.open_page)


def merged_page(path: Path, out_dir: Path | None, site: str | None = None, dropped: Dropped | None = None) -> Path:
    """``report MERGED.json``: the multi-rank page of a merge made earlier (here or on another machine). What the
    file holds that cannot be used is left out and counted in ``dropped``.

    Raises MergeError or PageUnavailable (one line each) and OSError; the report command says them."""
    from .page import write_page

    result = report(load_merged(path, dropped))
    if out_dir:
        out_dir.mkdir(parents=True, exist_ok=True)
    return write_page(result, path, out_dir, site)

"""A merged run written out: its trace, its page and the multi-rank summary; and the page of a merge read back."""

from __future__ import annotations

import sys
from pathlib import Path

from tracers.report.save import open_in_browser
from tracers.terminal.style import style_for
from tracers.tracefile.validation import Dropped

from .merge import MergedRun, load_merged, write_merged
from .summary import as_json, markers, render, report


def write_run(run: MergedRun, out: Path, page: bool, quiet: bool, site: str | None = None,
              open_page: bool = False) -> int:
    """Write a merged run, its page and its summary; 0 written, 2 the trace could not be."""
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


def merged_page(path: Path, out_dir: Path | None, site: str | None = None, dropped: Dropped | None = None) -> Path:
    """``report MERGED.json``: the multi-rank page of a merge made earlier (here or on another machine). What the
    file holds that cannot be used is left out and counted in ``dropped``.

    Raises MergeError or PageUnavailable (one line each) and OSError; the report command says them."""
    from .page import write_page

    result = report(load_merged(path, dropped))
    if out_dir:
        out_dir.mkdir(parents=True, exist_ok=True)
    return write_page(result, path, out_dir, site)

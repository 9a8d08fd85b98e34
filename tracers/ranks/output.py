"""A merged run written out: its trace, its page and the multi-rank summary; and the page of a merge read back."""

from __future__ import annotations

import sys
from pathlib import Path

from tracers.terminal.style import style_for
from tracers.tracefile.validation import Dropped
from tracers.vocabulary.printable import printable_value

from .merge import MergedRun, load_merged, write_merged
from .summary import as_json, markers, render, report


def write_run(run: MergedRun, out: Path, page: bool, quiet: bool, site: str | None = None) -> int:
    """Write a merged run, its page and its summary; 0 written, 2 the trace could not be (opening the page is the
    command's: tracers/commands/browser.py)."""
    result = report(run)
    # merge refuses torch's logs: a run read from them is report's (torchlogs/merged_run.py)
    clock_warning(run, "report" if any(trace.info.from_log for _, trace in run.present) else "merge")
    try:
        write_merged(run, out, markers(result), as_json(result))
    except OSError as error:
        print(printable_value(f"merge: cannot write {out}: {error.strerror or error}"), file=sys.stderr)
        return 2
    written = [str(out)]
    if page:
        from .page import PageUnavailable, write_page

        try:
            page_path = write_page(result, out, site=site)
            written.append(str(page_path))
        except PageUnavailable as error:
            print(printable_value(f"merge: no HTML page: {error}"), file=sys.stderr)
        except OSError as error:
            print(printable_value(f"merge: no HTML page: cannot write it: {error.strerror or error}"),
                  file=sys.stderr)
    if quiet:
        print("\n".join(printable_value(path) for path in written), file=sys.stderr)
    else:
        print(render(result, style_for(sys.stderr), written), file=sys.stderr)
    return 0


def clock_warning(run: MergedRun, command: str) -> None:
    """One line when the ranks' clocks disagreed beyond reason (ranks/clock.py), before the summary."""
    if run.alignment.disagreement:
        print(printable_value(f"{command}: warning: {run.alignment.disagreement}"), file=sys.stderr)


def merged_report(path: Path, out_dir: Path | None, site: str | None = None,
                  dropped: Dropped | None = None) -> tuple[Path, str]:
    """``report MERGED.json``: the multi-rank page of a merge made earlier (here or on another machine), and the
    summary the merge printed (the same report model). What the file holds that cannot be used is left out and
    counted in ``dropped``. Raises MergeError or PageUnavailable (one line each) and OSError; the command says them."""
    from .page import write_page

    run = load_merged(path, dropped)
    result = report(run)
    if out_dir:
        out_dir.mkdir(parents=True, exist_ok=True)
    page = write_page(result, path, out_dir, site)
    clock_warning(run, "report")
    return page, render(result, style_for(sys.stderr), [str(page)])

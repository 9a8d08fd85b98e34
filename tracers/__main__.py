"""Command line: ``python -m tracers trace SCRIPT ...``, ``merge``, ``report``, ``diff``, ``record``, ``measure``."""

from __future__ import annotations

import argparse
import sys
from dataclasses import asdict
from pathlib import Path

from tracers.capture.cachemode import MODES

from tracers.capture.options import DEVICES, SessionOptions, add_session_arguments

LOCK_FILE = "docs/walkthrough.lock.json"  # the walkthrough's lock: the spans its excerpts show
SCRIPT = "torch-compile-trace"  # the console script (pyproject's [project.scripts])


class _RawEpilog(argparse.HelpFormatter):
    """Wrapped description and option help, the epilog's example lines as written."""

    def add_text(self, text: str | None) -> None:
        if text and text.startswith("Example:"):
            self._add_item(lambda: text + "\n", [])
        else:
            super().add_text(text)


def _positive(text: str) -> int:
    """A count of 1 or more, for argparse (its error names the option and the value)."""
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number of 1 or more")
    return value


def _prog() -> str:
    """The name help and usage lines call this command by: the console script's own, or python -m's."""
    return SCRIPT if Path(sys.argv[0]).name == SCRIPT else "python -m tracers"


def options_after_script(args: list[str], parser: argparse.ArgumentParser) -> list[str]:
    """The script's arguments that are also ``trace``'s options: they go to the script, as designed, but a
    user who wrote ``trace crashes.py --device cuda`` most likely meant them for the tracer."""
    valued = {flag: action.nargs != 0 for action in parser._actions for flag in action.option_strings
              if flag.startswith("--") and flag != "--help"}
    found: list[str] = []
    for index, arg in enumerate(args):
        flag = arg.split("=", 1)[0]
        if flag in valued:
            takes = valued[flag] and "=" not in arg and index + 1 < len(args)
            found.append(f"{arg} {args[index + 1]}" if takes else arg)
    return found


def _parser() -> argparse.ArgumentParser:
    # The console script (pyproject's [project.scripts]) names itself in usage lines; python -m names the module.
    prog = _prog()
    parser = argparse.ArgumentParser(
        prog=prog, formatter_class=argparse.RawDescriptionHelpFormatter,
        description="See what torch.compile does with your program: trace a script, then read the summary,\n"
                    "the HTML page or the trace file; render, merge and compare saved traces.",
        epilog=f"Start with:\n  {prog} trace my_script.py\n  {prog} trace --help      (the tracer's options)")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    trace = commands.add_parser(
        "trace", help="run a script under the tracer",
        description="Run SCRIPT as __main__ with its own ARGS, record what torch.compile did, "
                    "print a summary and write a Chrome Trace Event file (open it in ui.perfetto.dev) "
                    "and an HTML page beside it. The tracer's options go before SCRIPT (or -m MODULE): "
                    "everything after it is the script's own.",
        epilog=f"Example:\n  {prog} trace --cache warm train.py --epochs 1",
        formatter_class=_RawEpilog,
    )
    add_session_arguments(trace)
    trace.add_argument("--out", default="traces", metavar="DIR", help="directory for the trace (default: traces)")
    trace.add_argument("--quiet", action="store_true", help="print only the trace's path, no summary")
    trace.add_argument("--tree", action="store_true",
                       help="print the whole stage tree (a long one is cut to its outer levels; the page has it all)")
    trace.add_argument("--keep-paths", action="store_true",
                       help="keep absolute paths in the trace (by default the working dir, site-packages, "
                            "temp dir, Python prefix and home become ./ <site-packages> <tmp> <python> ~)")
    trace.add_argument("--open", action="store_true", help="open the trace's HTML page in a browser afterwards")
    trace.add_argument("--no-page", dest="page", action="store_false", help="write only the trace, no HTML page")
    trace.add_argument("--site", metavar="URL_OR_DIR",
                       help="walkthrough site the page's chapter links point to (default: build/html if built here, "
                            "else the walkthrough built for this trace's torch in the user cache)")
    trace.add_argument("--nproc", type=int, metavar="N",
                       help="run the script on N local ranks through torchrun's launcher (one trace per rank), "
                            "then merge them into one timeline and print the multi-rank summary")
    trace.add_argument("-m", dest="module", metavar="MODULE",
                       help="run MODULE as python -m does (it and ARGS come last), instead of a SCRIPT")
    trace.add_argument("script", metavar="SCRIPT", nargs="?", help="the Python script to run")
    trace.add_argument("args", nargs=argparse.REMAINDER, metavar="ARGS", help="arguments for the script")
    parser._trace = trace  # type: ignore[attr-defined]  # -m MODULE is split off with its option table

    record = commands.add_parser(
        "record", help="re-record the site's example traces",
        description="Trace each example (default: every docs/examples/*.py) cold, in a fresh process, "
                    "into docs/_traces/<device>/<torch version>/.",
    )
    record.add_argument("--device", choices=DEVICES, default="cpu")
    record.add_argument("--cache", choices=MODES, default="cold",
                        help="warm: run each example once first (own fresh cache dir), then trace the second run")
    record.add_argument("--lines", action="store_true",
                        help="also count executed lines in the hooked functions and docs/walkthrough.lock.json's spans")
    record.add_argument("--nproc", type=int, metavar="N",
                        help="run each example on N local ranks (torchrun): a trace per rank and their merge "
                             "(for docs/examples/distributed/*.py)")
    record.add_argument("examples", nargs="*", metavar="EXAMPLE")

    report = commands.add_parser(
        "report", help="render a saved trace as an HTML page",
        description="Write TRACE.html (stage timeline, call tree, counts, graphs, guards, break and recompile "
                    "reasons, generated code; spans link to the walkthrough's chapters and torch's source at "
                    "the commit the trace was recorded with). Works offline; any trace this tool wrote, "
                    "including ones recorded on another machine. A TORCH_TRACE log (or a directory of rank "
                    "logs) becomes this tool's trace file, its page and summary (ranks merged, with divergence).",
    )
    report.add_argument("trace_file", metavar="TRACE.json",
                        help="a trace this tool wrote, a merged one, or torch's own TORCH_TRACE log "
                             "(dedicated_log_torch_trace_*.log, gzip too) or a directory of them, one per rank")
    report.add_argument("--out", metavar="DIR", help="where the page goes (default: beside the trace)")
    report.add_argument("--open", action="store_true", help="open the page in a browser")
    report.add_argument("--run", metavar="N", type=_positive,
                        help="a directory of TORCH_TRACE logs holding several runs (two logs of a rank): read "
                             "the N-th of each rank by when it starts, 1 the earliest (default: the latest)")
    report.add_argument("--site", metavar="URL_OR_DIR",
                        help="walkthrough site for chapter links (default: build/html if built here, else the "
                             "walkthrough built for the trace's torch in the user cache)")
    report.add_argument("--source-root", dest="source_roots", action="append", metavar="DIR",
                        help="a directory whose Python files a TORCH_TRACE log may name, read for the qualified "
                             "names of compiled functions (repeatable; the current directory and the installed "
                             "torch are allowed without it; no other file a log names is opened)")

    merge = commands.add_parser(
        "merge", help="merge the traces of a distributed run's ranks into one timeline",
        description="Merge rank traces (<script>-<device>-<cache>-rank<N>.json, written by the tracer under torchrun) "
                    "into one Chrome trace with one process per rank on one aligned clock, write its HTML page, "
                    "and print the ranks side by side with where they diverge. A rank that crashed or was "
                    "killed contributes its partial trace; a rank with no trace is named.",
    )
    merge.add_argument("inputs", nargs="+", metavar="DIR_OR_FILE",
                       help="rank trace files, or directories holding one run's rank traces")
    merge.add_argument("--out", metavar="FILE",
                       help="the merged trace (default: <script>-<device>-<cache>-ranks.json beside the rank traces)")
    merge.add_argument("--no-page", dest="page", action="store_false", help="write only the merged trace")
    merge.add_argument("--quiet", action="store_true", help="print only the paths written")

    diff = commands.add_parser(
        "diff", help="compare two traces stage by stage",
        description="Show which stages and targets ran in one trace and not the other, time per stage side "
                    "by side, and the generated kernels (e.g. CPU vs CUDA, cold vs warm, two torch releases).",
    )
    diff.add_argument("a", metavar="A.json")
    diff.add_argument("b", metavar="B.json")
    _measure_parser(commands)
    return parser


def _measure_parser(commands) -> None:  # noqa: ANN001 - argparse's subparsers action
    from tracers.measure.command import DEFAULT_BATCH_SIZES, DEFAULT_OUT

    measure = commands.add_parser(
        "measure", help="time eager against torch.compile across batch sizes",
        description="Time EXAMPLE's build(batch_size) -> (callable, args) eager and compiled, each mode and batch "
                    "size in a fresh process: first call with cold and warm compile caches, steady-state time per "
                    "call (median of timed blocks, after warm-up), speedup, break-even calls, peak memory. Writes "
                    "DIR/<device>/<torch release>/EXAMPLE.json and SVG charts beside it.",
    )
    measure.add_argument("--device", choices=("cpu", "cuda"), default="cpu",
                         help="cuda: the example's tensors go to the GPU (torch's default device), timing "
                              "synchronizes it (default: cpu)")
    measure.add_argument("--batch-sizes", default=DEFAULT_BATCH_SIZES, metavar="N,N,...",
                         help=f"batch sizes to build the example with (default: {DEFAULT_BATCH_SIZES})")
    measure.add_argument("--modes", default="", metavar="MODE,...",
                         help="torch.compile modes: default, reduce-overhead, max-autotune-no-cudagraphs, "
                              "max-autotune (default: default, plus reduce-overhead on cuda); eager is always measured")
    measure.add_argument("--backend", default="inductor", help="torch.compile backend (default: inductor)")
    measure.add_argument("--repeats", type=int, default=20, metavar="N",
                         help="timed samples of the steady state, each a block of calls of at least 2 ms (default 20)")
    measure.add_argument("--warmup", type=int, default=5, metavar="N",
                         help="untimed calls after the first, before timing the steady state (default 5)")
    measure.add_argument("--no-warm", dest="warm", action="store_false",
                         help="skip the warm-cache runs (a run that fills a fresh cache, then one that reuses it)")
    measure.add_argument("--threads", type=int, default=0, metavar="N",
                         help="torch's CPU threads in each run (torch.set_num_threads; default: torch's own choice)")
    measure.add_argument("--out", default=DEFAULT_OUT, metavar="DIR", help=f"output root (default: {DEFAULT_OUT})")
    measure.add_argument("--run-timeout", type=float, default=600.0, metavar="S",
                         help="stop a run's process after S seconds (default 600)")
    measure.add_argument("example", metavar="EXAMPLE", help="a Python file defining build(batch_size)")


def _split_module(argv: list[str]) -> tuple[list[str], str | None, list[str]]:
    """``trace [options] -m MODULE [ARGS]``: everything after MODULE is the module's, as with ``python -m``,
    even words that look like this command's options. Returns (our argv, module, its args)."""
    trace_parser = _parser()._trace  # type: ignore[attr-defined]
    valued = {flag for action in trace_parser._actions if action.nargs != 0 for flag in action.option_strings}
    index = 1
    while index < len(argv):
        word = argv[index]
        if word == "-m" or (word.startswith("-m") and not word.startswith("--")):
            module = word[2:] or (argv[index + 1] if index + 1 < len(argv) else "")
            rest = argv[index + 1:] if word[2:] else argv[index + 2:]
            return argv[:index], module, rest
        if not word.startswith("-") or word == "--":
            break  # the script: what follows is its own
        index += 2 if word in valued else 1
    return argv, None, []


def main(argv: list[str] | None = None) -> int:
    """Run one command; Ctrl-C that reaches here (reading logs, writing a page) is one line and the shell's 130."""
    try:
        return _run(sys.argv[1:] if argv is None else argv)
    except KeyboardInterrupt:
        print("interrupted (Ctrl-C): stopped before finishing; files already written are complete, none is half "
              "written", file=sys.stderr)
        return 130


def _run(argv: list[str]) -> int:
    module = None
    if argv[:1] == ["trace"]:
        argv, module, module_args = _split_module(argv)
    options = _parser().parse_args(argv)
    if options.command == "trace":
        from tracers.capture.options import TraceOptions
        from tracers.vocabulary.usage import UsageError

        from .trace_command import run_trace

        if module is not None:
            if not module:
                print("trace: -m needs a module name: python -m tracers trace -m package.module [ARGS]", file=sys.stderr)
                return 2
            options.script, options.args = module, module_args
        elif not options.script:
            print(f"trace: give a SCRIPT to run, or -m MODULE ({_prog()} trace --help)", file=sys.stderr)
            return 2
        misplaced = options_after_script(options.args, _parser()._trace)  # type: ignore[attr-defined]
        if misplaced:
            words = " ".join(misplaced)
            print(f"trace: note: {words} came after {options.script}, so the script gets "
                  f"{'it' if len(misplaced) == 1 else 'them'}; for the tracer, put "
                  f"{'it' if len(misplaced) == 1 else 'them'} before the script: "
                  f"{_prog()} trace {words} {options.script} ...", file=sys.stderr)
        try:
            session = SessionOptions.from_namespace(options)
            return run_trace(TraceOptions(
                script=options.script, args=options.args, module=module is not None, **asdict(session),
                out=options.out, quiet=options.quiet, open_page=options.open, site=options.site, page=options.page,
                keep_paths=options.keep_paths, nproc=options.nproc, tree=options.tree,
            ))
        except UsageError as error:
            print(f"trace: {error}", file=sys.stderr)
            return 2
    if options.command == "diff":
        return _diff(options.a, options.b)
    if options.command == "merge":
        from tracers.ranks.merge_command import run_merge

        return run_merge(options.inputs, options.out, page=options.page, quiet=options.quiet)
    if options.command == "measure":
        return _measure(options, argv)
    if options.command == "report":
        return _report(options.trace_file, options.out, options.open, options.site, options.run,
                       options.source_roots)
    from .record_command import record

    return record(options.examples, options.device, cache=options.cache, lines_lock=LOCK_FILE if options.lines else None,
                  nproc=options.nproc)


def _diff(path_a: str, path_b: str) -> int:
    from pathlib import Path

    from tracers.analysis.diff import diff
    from tracers.terminal.diff import render_diff
    from tracers.terminal.style import style_for
    from tracers.tracefile.chrome import TraceFileError, load

    try:
        a, b = load(Path(path_a)), load(Path(path_b))
    except TraceFileError as error:
        print(f"diff: {error}", file=sys.stderr)
        return 2
    print(render_diff(diff(a, b), style_for(sys.stdout)))
    return 0


def _measure(options: argparse.Namespace, argv: list[str]) -> int:
    from tracers.measure.command import MeasureOptions, UsageError, run_measure

    try:
        return run_measure(MeasureOptions(
            example=options.example, device=options.device, batch_sizes=options.batch_sizes, modes=options.modes,
            backend=options.backend, repeats=options.repeats, warmup=options.warmup, warm=options.warm,
            out=options.out, run_timeout=options.run_timeout, threads=options.threads,
        ), tuple(argv))
    except UsageError as error:
        print(f"measure: {error}", file=sys.stderr)
        return 2


def _report(trace_file: str, out: str | None, open_page: bool, site: str | None, run: int | None = None,
            source_roots: list[str] | None = None) -> int:
    from pathlib import Path

    from tracers.ranks.merge import MergeError, is_merged_file
    from tracers.ranks.page import PageUnavailable
    from tracers.tracefile.validation import Dropped
    from tracers.tracefile.chrome import TraceFileError, load

    from tracers.report.save import ReportUnavailable, open_in_browser, write_report

    path, out_dir = Path(trace_file), Path(out) if out else None
    from tracers.torchlogs.load import looks_like_log

    if looks_like_log(path):  # torch's own TORCH_TRACE log, or a directory of them (one per rank)
        from tracers.torchlogs.command import report_logs

        return report_logs(path, out_dir, open_page, site, run, source_roots=tuple(source_roots or ()))
    dropped = Dropped()
    try:
        if is_merged_file(path):  # a distributed run's merge: the multi-rank page
            from tracers.ranks.merge_command import merged_page

            page = merged_page(path, out_dir, site, dropped)
        else:
            trace = load(path, dropped)
            _read_warning(path, dropped)
            dropped.clear()
            page = write_report(trace, path, out_dir, site)
    except (TraceFileError, MergeError) as error:
        print(f"report: {error}", file=sys.stderr)
        return 2
    except (ReportUnavailable, PageUnavailable) as error:
        print(f"report: {error}", file=sys.stderr)
        return 2
    except OSError as error:
        print(f"report: cannot write the page for {path}: {error.strerror or error}", file=sys.stderr)
        return 2
    _read_warning(path, dropped)
    print(page)
    if open_page:
        open_in_browser(page)
    return 0


def _read_warning(path, dropped) -> None:  # noqa: ANN001 - a Path and a tracefile.checked.Dropped
    if dropped:
        print(f"report: warning: {path}: left out what could not be used: {dropped.describe()}", file=sys.stderr)


if __name__ == "__main__":
    sys.exit(main())

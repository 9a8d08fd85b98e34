"""Command line: ``python -m tracers trace SCRIPT ...``, ``record`` and ``diff A.json B.json``."""

from __future__ import annotations

import argparse
import sys

from .cachemode import MODES


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m tracers", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    trace = commands.add_parser(
        "trace", help="run a script under the tracer",
        description="Run SCRIPT as __main__ with its own ARGS, record what torch.compile did, "
                    "print a summary and write a Chrome Trace Event file (open it in ui.perfetto.dev).",
    )
    trace.add_argument("--device", choices=("cpu", "cuda"), default="cpu",
                       help="cuda: require a GPU and make it torch's default device (default: cpu)")
    trace.add_argument("--cache", choices=MODES, default="cold",
                       help="cold: compile caches off, fresh cache dir (default); warm: keep your caches")
    trace.add_argument("--out", default="traces", metavar="DIR", help="directory for the trace (default: traces)")
    trace.add_argument("--no-code", dest="keep_code", action="store_false",
                       help="leave generated code out of the trace file")
    trace.add_argument("--quiet", action="store_true", help="print only the trace's path, no summary")
    trace.add_argument("--deep", nargs="?", const=100.0, type=float, default=None, metavar="MIN_US",
                       help="also record Python function calls of at least MIN_US microseconds (default 100) "
                            "with viztracer, on their own track of the same file")
    trace.add_argument("--lines", nargs="?", const="", default=None, metavar="LOCK",
                       help="count how often each line ran inside the hooked torch functions; with a "
                            "walkthrough lock file (docs/walkthrough.lock.json), inside its excerpts too")
    trace.add_argument("script", metavar="SCRIPT", help="the Python script to run")
    trace.add_argument("args", nargs=argparse.REMAINDER, metavar="ARGS", help="arguments for the script")

    record = commands.add_parser(
        "record", help="re-record the site's example traces",
        description="Trace each example (default: every docs/examples/*.py) cold, in a fresh process, "
                    "into docs/_traces/<device>/<torch version>/.",
    )
    record.add_argument("--device", choices=("cpu", "cuda"), default="cpu")
    record.add_argument("--cache", choices=MODES, default="cold",
                        help="warm: run each example once first (own fresh cache dir), then trace the second run")
    record.add_argument("--lines", nargs="?", const="docs/walkthrough.lock.json", default=None, metavar="LOCK",
                        help="also count executed lines in the hooked functions and the lock's excerpts "
                             "(default lock: docs/walkthrough.lock.json)")
    record.add_argument("examples", nargs="*", metavar="EXAMPLE")

    diff = commands.add_parser(
        "diff", help="compare two traces stage by stage",
        description="Show which stages and targets ran in one trace and not the other, time per stage side "
                    "by side, and the generated kernels (e.g. CPU vs CUDA, cold vs warm, two torch releases).",
    )
    diff.add_argument("a", metavar="A.json")
    diff.add_argument("b", metavar="B.json")
    return parser


def main(argv: list[str] | None = None) -> int:
    options = _parser().parse_args(argv)
    if options.command == "trace":
        from .trace_command import TraceOptions, UsageError, run_trace

        try:
            return run_trace(TraceOptions(
                script=options.script, args=options.args, device=options.device, cache=options.cache,
                out=options.out, keep_code=options.keep_code, quiet=options.quiet, deep_min_us=options.deep,
                lines=options.lines,
            ))
        except UsageError as error:
            print(f"trace: {error}", file=sys.stderr)
            return 2
    if options.command == "diff":
        return _diff(options.a, options.b)
    from .record import record

    return record(options.examples, options.device, cache=options.cache, lines_lock=options.lines)


def _diff(path_a: str, path_b: str) -> int:
    from pathlib import Path

    from .chrome import TraceFileError, load
    from .diff import diff, render_diff
    from .summary import style_for

    try:
        a, b = load(Path(path_a)), load(Path(path_b))
    except TraceFileError as error:
        print(f"diff: {error}", file=sys.stderr)
        return 2
    print(render_diff(diff(a, b), style_for(sys.stdout)))
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""``trace [OPTIONS] SCRIPT|-m MODULE [ARGS]``: its arguments, the split of a module's own, the run (trace_run.py)."""

from __future__ import annotations

import argparse
from dataclasses import asdict
from pathlib import Path

from tracers.capture.options import SessionOptions, TraceOptions, add_session_arguments
from tracers.vocabulary.usage import UsageError

from .parsing import RawEpilog, positive_seconds, prog, top_parser

HELP = "run a script under the tracer"


def add_arguments(trace: argparse.ArgumentParser) -> None:
    """The tracer's options, then SCRIPT and everything after it (the script's own)."""
    trace.description = ("Run SCRIPT as __main__ with its own ARGS, record what torch.compile did, "
                         "print a summary and write a Chrome Trace Event file (open it in ui.perfetto.dev) "
                         "and an HTML page beside it. The tracer's options go before SCRIPT (or -m MODULE): "
                         "everything after it is the script's own.")
    trace.epilog = f"Example:\n  {prog()} trace --cache warm train.py --epochs 1"
    trace.formatter_class = RawEpilog
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
    trace.add_argument("--check-fixes", action="store_true",
                       help="after the traced run, run the script again once per fix the tracer can apply by itself "
                            "(a torch setting, an argument of your torch.compile call), each in a fresh process, and "
                            "say beside each fix what it did: counts before -> after, exit status, output. The script "
                            "runs 1 + (number of fixes) times, so it must be one that can run again")
    trace.add_argument("--fix-timeout", dest="fix_timeout", type=positive_seconds, metavar="SECONDS",
                       help="with --check-fixes: each run with a fix is stopped after SECONDS (default: three times "
                            "the first run's time, at least 120) and said to have timed out")
    # The traced run of --vs-eager or --check-fixes, started by trace_vs_eager.py or trace_fix_checks.py: it hands
    # its trace to that file's writer.
    trace.add_argument("--hand-off", dest="hand_off", metavar="FILE", help=argparse.SUPPRESS)
    # A run of --check-fixes' own: the one fix it runs with (a Remedy's JSON, analysis/finding_type.py).
    trace.add_argument("--apply-fix", dest="apply_fix", metavar="JSON", help=argparse.SUPPRESS)
    trace.add_argument("-m", dest="module", metavar="MODULE",
                       help="run MODULE as python -m does (it and ARGS come last), instead of a SCRIPT")
    trace.add_argument("script", metavar="SCRIPT", nargs="?", help="the Python script to run")
    trace.add_argument("args", nargs=argparse.REMAINDER, metavar="ARGS", help="arguments for the script")


def _trace_parser() -> tuple[argparse.ArgumentParser, argparse.ArgumentParser]:
    """The whole command line, and ``trace``'s own parser in it."""
    parser = top_parser({"trace": "trace"}, lambda _: __import__(__name__, fromlist=["_"]), "trace")
    subparsers = next(action for action in parser._actions if isinstance(action, argparse._SubParsersAction))
    return parser, subparsers.choices["trace"]


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


def split_module(argv: list[str]) -> tuple[list[str], str | None, list[str]]:
    """``trace [options] -m MODULE [ARGS]``: everything after MODULE is the module's, as with ``python -m``,
    even words that look like this command's options. Returns (our argv, module, its args)."""
    _, trace_parser = _trace_parser()
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


def misplaced_note(misplaced: list[str], program: str) -> str:
    """The note for tracer options written after the program (``crashes.py`` or ``-m pkg.train``): the command to
    type instead names the program as it was given, ``-m`` kept."""
    words, them = " ".join(misplaced), "it" if len(misplaced) == 1 else "them"
    who, before = ("the module", "-m") if program.startswith("-m ") else ("the script", "the script")
    return (f"note: {words} came after {program}, so {who} gets {them}; for the tracer, put {them} before {before}: "
            f"{prog()} trace {words} {program} ...")


def main(argv: list[str]) -> int:
    """``trace``'s whole command line (``argv[0] == "trace"``): parsed, checked, run."""
    argv, module, module_args = split_module(argv)
    parser, trace_parser = _trace_parser()
    options = parser.parse_args(argv)
    if module is not None:
        if not module:
            print_error("-m needs a module name: python -m tracers trace -m package.module [ARGS]")
            return 2
        options.script, options.args = module, module_args
    elif not options.script:
        print_error(f"give a SCRIPT to run, or -m MODULE ({prog()} trace --help)")
        return 2
    misplaced = options_after_script(options.args, trace_parser)
    if misplaced:
        print_error(misplaced_note(misplaced, f"-m {module}" if module is not None else options.script))
    from .trace_run import run_trace
    from .trace_vs_eager import check_one_process, hand_off_to, run_with_eager

    try:
        session = SessionOptions.from_namespace(options)
        chosen = TraceOptions(
            script=options.script, args=options.args, module=module is not None, **asdict(session),
            out=options.out, quiet=options.quiet, open_page=options.open, site=options.site, page=options.page,
            keep_paths=options.keep_paths, nproc=options.nproc, tree=options.tree, check_fixes=options.check_fixes,
            fix_timeout_s=options.fix_timeout,
        )
        if options.hand_off is not None:
            return run_trace(chosen, hand_off_to(Path(options.hand_off)))
        if chosen.check_fixes:
            from .trace_fix_checks import check_alone, run_with_fix_checks

            check_alone(chosen)
            ours = list(argv)
            ours.remove("--check-fixes")  # the first: it came before the script, or the script would have it
            return run_with_fix_checks(chosen, [*ours, *(["-m", module, *module_args] if module is not None else [])])
        if chosen.vs_eager:
            check_one_process(chosen)
            return run_with_eager(chosen, argv)
        return run_trace(chosen)
    except UsageError as error:
        print_error(str(error))
        return 2


def print_error(text: str) -> None:
    """One line on stderr, named for the command."""
    from .say import say

    say("trace", text)

"""The command line: ``python -m walkthrough lock``, ``verify``, ``build``, ``open``, ``record`` and ``compare``."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from tracers.commands.parsing import Parser
from tracers.vocabulary.printable import printable_value
from walkthrough.lock import DEFAULT_LOCK, LockError, compute_lock, read_lock, stage_hooks, stale_reasons, write_lock
from walkthrough.pages import PageError, scan_docs
from walkthrough.source import SourceError, open_source
from walkthrough.symbols import resolver_for

DEFAULT_DOCS = Path("docs")
SCRIPT = "torch-compile-walkthrough"


class UsageError(Exception):
    """Bad input from the user: reported in one line, exit status 2."""


def _parser() -> argparse.ArgumentParser:
    # The console script (pyproject's [project.scripts]) names itself in usage lines; python -m names the module.
    prog = SCRIPT if Path(sys.argv[0]).name == SCRIPT else "python -m walkthrough"
    parser = Parser(
        prog=prog, formatter_class=argparse.RawDescriptionHelpFormatter,
        description="The walkthrough of torch.compile, stage by stage: build it for your torch and open it,\n"
                    "or check it against another torch release.",
        epilog=f"Start with:\n  {prog} open      (builds the walkthrough for the installed torch, then opens it)")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    lock = commands.add_parser("lock", help="refresh the lock file for the reference torch")
    lock.add_argument("--against", default="installed", metavar="SOURCE",
                      help="torch tree to lock against: installed (default), VERSION, WHEEL or DIR")
    lock.add_argument("--lock", type=Path, default=DEFAULT_LOCK, help=f"lock file (default {DEFAULT_LOCK})")
    lock.add_argument("--docs", type=Path, default=DEFAULT_DOCS, help="docs dir to scan (default docs)")
    lock.add_argument("--check", action="store_true", help="do not write: exit 1 when the lock is stale")
    verify = commands.add_parser("verify", help="check the walkthrough against another torch release")
    verify.add_argument("--against", default="installed", metavar="SOURCE",
                        help="installed (default), a version such as 2.15.0 (fetched with pip), a wheel or a dir")
    verify.add_argument("--baseline", default="auto", metavar="SOURCE",
                        help="the locked release's tree, for diffs and hints (default: installed if it is "
                             "the locked release, else fetched)")
    verify.add_argument("--lock", type=Path, default=None,
                        help=f"lock file (default {DEFAULT_LOCK}; from an installed package, the one it carries)")
    verify.add_argument("--json", type=Path, metavar="FILE", help="also write the report as JSON")
    verify.add_argument("--markdown", type=Path, metavar="FILE", help="also write the report as markdown")
    verify.add_argument("--no-diff-text", action="store_true",
                        help="markdown report with diff sizes and links only (no torch code in it)")
    verify.add_argument("--diffs", action="store_true", help="print the diffs of CHANGED entries in the terminal")
    where = ("Where: in a checkout, build/releases/<release> (build/releases with --all); from an installed "
             "package, the per-user cache (~/.cache/torch-compile-walkthrough/site/<release>, or under "
             "$XDG_CACHE_HOME or $TORCH_WALKTHROUGH_CACHE), where trace pages of that torch release link to it.")
    build = commands.add_parser("build", help="build the walkthrough site for a torch release, or for all of them",
                                description="Build the site against one torch release (drift from the reference "
                                            "shown in the pages), or every supported release into one site with a "
                                            "version switcher. Nothing is installed or imported. " + where)
    opener = commands.add_parser(
        "open", help="open the walkthrough in a browser, building it first if needed",
        description="Open the site built for a torch release (the installed one by default). Where: a clone's "
                    "build/html (nox -s docs; the clone this package runs from, or the current directory) when it "
                    "was built for that torch; else the per-user cache (~/.cache/torch-compile-walkthrough/site/"
                    "<release>, or under $XDG_CACHE_HOME or $TORCH_WALKTHROUGH_CACHE), built there first when "
                    "missing or stale, with progress (chapters read / all). The same for torch-compile-walkthrough "
                    "open and python -m walkthrough open. With no browser here it prints the path, then "
                    "'no browser: printed the path instead', and exits 3.")
    for command in (build, opener):
        which = command.add_mutually_exclusive_group()
        which.add_argument("--torch", metavar="SPEC", default=None,
                           help="installed (default), a version such as 2.15.0 (its wheel fetched once), a wheel or "
                                "a dir")
        which.add_argument("--all", action="store_true", dest="all_releases",
                           help="every supported release into OUT/<release>/, with a root page and a switcher")
        command.add_argument("--releases", default="", metavar="LIST",
                             help="with --all: only these supported releases, comma-separated (e.g. 2.13.0,2.15.0)")
        command.add_argument("--out", type=Path, default=None,
                             help="output dir (default: see Where above; OUT/<release> is one release's site)")
        command.add_argument("--docs", type=Path, default=None,
                             help="docs dir (default: docs in a checkout, the installed package's copy otherwise)")
    record = commands.add_parser(
        "record", help="record the site's example traces with another torch release, in its own venv",
        description="Make the release's venv in the per-user cache (venvs/torch-RELEASE-BUILD) from its wheel on "
                    "first use, then run "
                    "python -m tracers record there with this checkout on its path; every other option is "
                    "tracers record's own (--device, --cache, --lines, --nproc, EXAMPLE...).")
    record.add_argument("--torch", metavar="RELEASE", required=True, help="the release, e.g. 2.15.0")
    _compare_parser(commands)
    return parser


def _compare_parser(commands) -> None:  # noqa: ANN001 - argparse's subparsers action
    compare = commands.add_parser(
        "compare", help="trace one script under two torch releases and show what changed for it",
        description="Trace SCRIPT (or -m MODULE) under torch A and torch B, each in its own Python (the running one "
                    "when its torch is that release, else its venv in the per-user cache, venvs/torch-RELEASE-BUILD, made once "
                    "from the release's wheel), "
                    "with the same options; then compare: stage times and compile time by your functions side by "
                    "side, counts, the findings gained, lost or changed, the walkthrough's what-changed entries for "
                    "the stages that moved, and the generated code per compiled graph. Writes "
                    "OUT/<script>-A-vs-B/comparison.json and .html, each run's trace and output beside them. Exit 1 "
                    "when the script failed under either release (the comparison is still written).")
    compare.add_argument("--torch", metavar="RELEASE", action="append", required=True, dest="releases",
                         help="a release, e.g. 2.14.1; give it twice: --torch A --torch B")
    compare.add_argument("--device", choices=("cpu", "cuda"), default="cpu", help="as tracers trace (default cpu)")
    compare.add_argument("--cache", choices=("cold", "warm"), default="cold", help="as tracers trace (default cold)")
    compare.add_argument("--repeat", type=int, default=3, metavar="N",
                         help="trace N times under each release and compare medians and findings over every run; "
                              "changes within the run-to-run spread are said as such, never as changes (default 3)")
    compare.add_argument("--build", choices=("cpu", "cuda"), default="",
                         help="the build of torch on both sides (default: cuda where this machine has a GPU, else "
                              "cpu); release venvs live in the per-user cache")
    compare.add_argument("--out", type=Path, default=Path("compare"), help="output root (default: compare)")
    compare.add_argument("-m", dest="module", metavar="MODULE",
                         help="run MODULE as python -m does (it and ARGS come last), instead of a SCRIPT")
    compare.add_argument("script", metavar="SCRIPT", nargs="?", help="the Python script to run")
    compare.add_argument("args", nargs=argparse.REMAINDER, metavar="ARGS", help="arguments for the script")


def cmd_compare(args: argparse.Namespace) -> int:
    from walkthrough.compare.command import CompareOptions, UsageError as CompareUsage, run_compare
    from walkthrough.compare.runs import CompareError, Program

    if args.module:
        script, rest = args.module, [*([args.script] if args.script else []), *args.args]
    elif args.script:
        script, rest = args.script, args.args
    else:
        raise UsageError("give a SCRIPT to run, or -m MODULE (python -m walkthrough compare --help)")
    program = Program(script, tuple(rest), bool(args.module), args.device, args.cache)
    try:
        return run_compare(CompareOptions(tuple(args.releases), program, args.repeat, args.out, args.build))
    except CompareUsage as exc:
        raise UsageError(str(exc)) from None
    except CompareError as exc:
        print(f"walkthrough: compare: {printable_value(exc)}", file=sys.stderr)
        return 1


def _reference() -> str:
    from tracers.vocabulary.releases import REFERENCE_TORCH

    return REFERENCE_TORCH


def cmd_lock(args: argparse.Namespace) -> int:
    source = open_source(args.against)
    if source.base_version != _reference():
        raise UsageError(f"the lock is written for the reference torch {_reference()} (tracers/vocabulary/releases.py); "
                         f"{args.against} is torch {source.version}")
    if not args.docs.is_dir():
        raise UsageError(f"{args.docs}: no docs directory (run from the repository root, or pass --docs)")
    current = compute_lock(resolver_for(source), scan_docs(args.docs), stage_hooks())
    if args.check:
        reasons = stale_reasons(read_lock(args.lock), current)
        for reason in reasons:
            print(f"stale: {reason}")
        print(f"{args.lock}: {'stale' if reasons else 'up to date'}")
        return 1 if reasons else 0
    write_lock(current, args.lock)
    print(f"{args.lock}: {len(current.symbols)} symbols, {len(current.excerpts)} excerpts, "
          f"{len(current.facts)} facts locked against torch {current.torch_version} "
          f"(git {current.git_version[:12]})")
    return 0


def _default_lock() -> Path:
    """A checkout's docs/walkthrough.lock.json; an installed package verifies against the lock its wheel carries."""
    from walkthrough.bundle import site_sources

    sources = site_sources()
    return DEFAULT_LOCK if sources is None or sources.checkout else sources.docs / DEFAULT_LOCK.name


def cmd_verify(args: argparse.Namespace) -> int:
    from walkthrough import report as reports
    from walkthrough.releases.context import reference_source
    from walkthrough.verify import verify

    lock = read_lock(args.lock or _default_lock())
    target = open_source(args.against)
    baseline = reference_source(args.baseline, lock)
    result = verify(lock, resolver_for(target), resolver_for(baseline) if baseline else None, stage_hooks())
    print(reports.terminal(result, diffs=args.diffs))
    if args.json:
        _write(args.json, reports.to_json(result))
    if args.markdown:
        _write(args.markdown, reports.markdown(result, diff_text=not args.no_diff_text))
    return result.exit_code


def _write(path: Path, text: str) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise UsageError(f"{path}: cannot write ({exc.strerror})") from None
    print(f"wrote {path}")


def main(argv: list[str] | None = None) -> int:
    parser = _parser()
    args, tracer_args = parser.parse_known_args(argv)
    if args.command != "record" and tracer_args:
        parser.error(f"unrecognized arguments: {' '.join(tracer_args)}")
    if args.command in ("build", "open") and args.releases and not args.all_releases:
        parser.error("--releases chooses among the releases --all builds; for one release use --torch")
    try:
        if args.command in ("build", "open"):
            if args.out is not None and args.out.exists() and not args.out.is_dir():
                raise UsageError(f"--out {args.out}: a file, not a directory")
            from walkthrough.releases.build import main_build, main_open

            run = main_build if args.command == "build" else main_open
            return run(args.torch, args.all_releases, args.out, args.releases, args.docs)
        if args.command == "record":
            from walkthrough.releases.venvs import record_with_release

            return record_with_release(args.torch, tracer_args)
        if args.command == "compare":
            return cmd_compare(args)
        return cmd_lock(args) if args.command == "lock" else cmd_verify(args)
    except (UsageError, SourceError, LockError, PageError, ValueError) as exc:
        print(f"walkthrough: error: {printable_value(exc)}", file=sys.stderr)  # a typed path: shown, not obeyed
        return 2
    except KeyboardInterrupt:
        print("walkthrough: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())

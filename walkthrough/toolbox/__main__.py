"""``python -m walkthrough.toolbox record|tools``: run each debugging tool on one example and record what it showed."""

from __future__ import annotations

import argparse
import importlib.util
import shlex
import sys
from pathlib import Path

from tracers.commands.parsing import Parser

from .recording import TOOLBOX_DIR
from .tools import PLAIN, TOOL_BY_ID, TOOLS

DEFAULT_EXAMPLE = "docs/examples/graph_breaks.py"


def _parser() -> argparse.ArgumentParser:
    parser = Parser(prog="python -m walkthrough.toolbox", description=__doc__)  # a mistake: one line, as elsewhere
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    record = commands.add_parser(
        "record", help="run every tool on one example and write the recording",
        description="Run the example once plainly, then under each tool (TORCH_LOGS, TORCH_TRACE + tlparse, "
                    "TORCH_COMPILE_DEBUG, torch._dynamo.explain, depyf, this toolkit), each in a fresh process "
                    "with an empty compile cache; decide from each tool's real output what it shows; write "
                    "DIR/<torch version>/<example>-<device>.json with costs and path-scrubbed excerpts.",
        epilog="Exit status: 0 every tool ran; 1 a tool failed or is not installed (the recording says which and "
               "why); 2 bad input, or the example fails on its own; 130 interrupted (nothing written).",
    )
    record.add_argument("--example", default=DEFAULT_EXAMPLE, metavar="SCRIPT",
                        help=f"the program every tool runs (default: {DEFAULT_EXAMPLE})")
    record.add_argument("--device", choices=("cpu", "cuda"), default="cpu",
                        help="cuda: run the example with the GPU as torch's default device (default: cpu)")
    record.add_argument("--tools", metavar="IDS",
                        help=f"comma-separated tool ids (default: all): {', '.join(tool.id for tool in TOOLS)}")
    record.add_argument("--out", default=str(TOOLBOX_DIR), metavar="DIR",
                        help=f"where recordings go (default: {TOOLBOX_DIR})")
    record.add_argument("--timeout", type=float, default=600.0, metavar="S",
                        help="time limit per command in seconds (default: 600)")
    record.add_argument("--keep", metavar="DIR",
                        help="keep every tool's raw output under DIR (default: a temporary directory, removed)")
    record.add_argument("args", nargs="*", metavar="ARGS", help="arguments for the example, after --")
    commands.add_parser("tools", help="list the tools, how each is run, and whether it is installed",
                        description="The tool table: id, name, how a user runs it, and what is missing.")
    return parser


def _tools(spec: str | None) -> list:
    if spec is None:
        return list(TOOLS)
    chosen = []
    for tool_id in filter(None, (part.strip() for part in spec.split(","))):
        if tool_id not in TOOL_BY_ID or tool_id == PLAIN.id:
            raise ValueError(f"--tools: unknown tool {tool_id!r} (choose from "
                             f"{', '.join(tool.id for tool in TOOLS)})")
        chosen.append(TOOL_BY_ID[tool_id])
    if not chosen:
        raise ValueError("--tools: no tool named")
    return chosen


def _list_tools() -> int:
    torch = importlib.util.find_spec("torch")
    print(f"{'torch':<20} {'':<24} {'installed' if torch else 'MISSING: every tool needs torch'}")
    for tool in TOOLS:
        missing = tool.missing()
        print(f"{tool.id:<20} {tool.name:<24} {'MISSING: ' + missing if missing else 'installed'}")
        print(f"{'':<20} {tool.usage}")
    return 0


def main(argv: list[str] | None = None) -> int:
    options = _parser().parse_args(argv)
    if options.command == "tools":
        return _list_tools()
    from .record_command import record
    from .runner import Setting

    try:
        tools = _tools(options.tools)
        if not Path(options.example).is_file():
            raise ValueError(f"{options.example}: no such file")
        if importlib.util.find_spec("torch") is None:
            raise ValueError(f"torch is not importable in this Python ({sys.executable})")
        if options.timeout <= 0:
            raise ValueError("--timeout: must be more than 0 seconds")
    except ValueError as error:
        print(f"record: {error}", file=sys.stderr)
        return 2
    out = Path(options.out)
    if out.exists() and not out.is_dir():
        print(f"record: --out {out}: not a directory", file=sys.stderr)
        return 2
    setting = Setting(options.example, tuple(options.args), options.device, options.timeout)
    command = shlex.join(["python", "-m", "walkthrough.toolbox", *(argv if argv is not None else sys.argv[1:])])
    try:
        return record(setting, tools, out, Path(options.keep) if options.keep else None, command=command)
    except KeyboardInterrupt:
        print("\nrecord: interrupted; nothing written", file=sys.stderr)
        return 130
    except OSError as error:
        print(f"record: {error.strerror or error}: {getattr(error, 'filename', '') or ''}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())

"""Recorded example outputs: what an example that runs its own processes printed, and its tables, as JSON under
docs/_outputs/<torch>/ (``python -m walkthrough.outputs docs/examples/pgo_two_processes.py``)."""

from __future__ import annotations

import argparse
import json
import platform
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from html import escape
from pathlib import Path

from tracers.commands.parsing import Parser
from tracers.tracefile.atomic import write_text_atomic
from tracers.tracefile.scrub import scrub

FORMAT_VERSION = 1
OUTPUTS_DIR = Path("docs/_outputs")


class OutputError(Exception):
    """A recording that cannot be read or made; the message is one line."""


@dataclass(frozen=True)
class Table:
    columns: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    marked: tuple[int, ...] = ()  # rows the example points at (the part of a key that changed)


@dataclass(frozen=True)
class OutputRecording:
    example: str  # the example's stem
    command: str
    torch_version: str
    torch_git: str
    python: str
    recorded_at: str
    stdout: str
    tables: dict[str, Table]
    format: int = FORMAT_VERSION

    def to_json(self) -> str:
        return json.dumps(asdict(self), indent=1, ensure_ascii=False) + "\n"


def load(path: Path) -> OutputRecording:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        if data.get("format") != FORMAT_VERSION:
            raise OutputError(f"{path}: format {data.get('format')!r}, this reader knows {FORMAT_VERSION}")
        tables = {name: Table(tuple(t["columns"]), tuple(tuple(str(c) for c in row) for row in t["rows"]),
                              tuple(t.get("marked", ()))) for name, t in data.get("tables", {}).items()}
        return OutputRecording(data["example"], data["command"], data["torch_version"], data["torch_git"],
                               data["python"], data["recorded_at"], data["stdout"], tables)
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise OutputError(f"{path}: not a recorded output ({exc})") from None


def _version_key(name: str) -> tuple[int, ...]:
    return tuple(int(part) if part.isdigit() else -1 for part in name.split("."))


def find(root: Path, example: str, preferred: tuple[str, ...]) -> Path | None:
    """``root/<release>/<example>.json`` for the first preferred release that has one, else the newest."""
    for release in preferred:
        path = root / release / f"{example}.json"
        if path.is_file():
            return path
    others = sorted(root.glob(f"*/{example}.json"), key=lambda path: _version_key(path.parent.name))
    return others[-1] if others else None


def record(example: Path, root: Path = OUTPUTS_DIR, timeout: float = 900) -> Path:
    """Run ``python EXAMPLE --json FILE`` in a fresh process; keep what it printed and the tables it wrote."""
    import torch  # the recording says which torch made it: the one this process imports

    with tempfile.TemporaryDirectory() as scratch:
        data_path = Path(scratch, "tables.json")
        try:
            done = subprocess.run([sys.executable, str(example), "--json", str(data_path)], capture_output=True,
                                  text=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            raise OutputError(f"{example}: still running after {timeout:.0f} s") from None
        if done.returncode != 0:
            tail = (done.stderr.strip().splitlines() or ["(no output)"])[-1]
            raise OutputError(f"{example}: exit status {done.returncode}: {tail}")
        tables = json.loads(data_path.read_text(encoding="utf-8")).get("tables", {}) if data_path.exists() else {}
    recording = OutputRecording(
        example.stem, f"python {example.as_posix()}", torch.__version__, torch.version.git_version or "",
        platform.python_version(), time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), scrub(done.stdout),
        {name: Table(tuple(t["columns"]), tuple(tuple(str(c) for c in row) for row in t["rows"]),
                     tuple(t.get("marked", ()))) for name, t in tables.items()})
    path = root / torch.__version__.split("+")[0] / f"{example.stem}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    write_text_atomic(path, recording.to_json())
    return path


def _e(text: object) -> str:
    return escape(str(text), quote=True)


def render_stdout(recording: OutputRecording) -> str:
    """The command and what it printed, as a console block."""
    return (f'<div class="highlight-console notranslate wt-output"><div class="highlight"><pre>'
            f'<span class="gp">$ </span>{_e(recording.command)}\n<span class="go">{_e(recording.stdout.rstrip())}'
            f"</span></pre></div></div>")


def render_table(table: Table) -> str:
    """A recorded table; the rows the example marked stand out."""
    head = "".join(f'<th scope="col">{_e(column)}</th>' for column in table.columns)
    rows = []
    for index, row in enumerate(table.rows):
        marked = ' class="wt-output-marked"' if index in table.marked else ""
        rows.append(f"<tr{marked}>" + "".join(f"<td><code>{_e(cell)}</code></td>" if cell else "<td></td>"
                                              for cell in row) + "</tr>")
    return (f'<table class="wt-output-table docutils"><thead><tr>{head}</tr></thead>'
            f'<tbody>{"".join(rows)}</tbody></table>')


def render(recording: OutputRecording, stdout: bool, tables: tuple[str, ...], caption: str) -> str:
    parts = [render_stdout(recording)] if stdout else []
    parts += [render_table(recording.tables[name]) for name in tables]
    note = (f"Recorded with torch {_e(recording.torch_version)}, Python {_e(recording.python)}, "
            f"{_e(recording.recorded_at[:10])}.")
    text = f"{_e(caption)} {note}" if caption else note
    return f'<figure class="wt-output-figure">{"".join(parts)}<figcaption>{text}</figcaption></figure>'


def main(argv: list[str] | None = None) -> int:
    parser = Parser(prog="python -m walkthrough.outputs", description=__doc__)
    parser.add_argument("examples", nargs="+", type=Path, metavar="EXAMPLE")
    parser.add_argument("--out", type=Path, default=OUTPUTS_DIR, help=f"root folder (default {OUTPUTS_DIR})")
    args = parser.parse_args(argv)
    for example in args.examples:
        try:
            print(f"wrote {record(example, args.out)}")
        except OutputError as exc:
            print(f"walkthrough.outputs: error: {exc}", file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""benchmarks/RESULTS.md: each benchmark owns one delimited section and rewrites only that."""

from __future__ import annotations

import os
import platform
from pathlib import Path

RESULTS = Path(__file__).resolve().parent / "RESULTS.md"


def write_section(name: str, text: str) -> None:
    start, end = f"<!-- {name}:start -->", f"<!-- {name}:end -->"
    block = f"{start}\n{text.strip()}\n{end}"
    current = RESULTS.read_text() if RESULTS.exists() else "# Benchmark results\n"
    if start in current and end in current:
        before, rest = current.split(start, 1)
        current = before + block + rest.split(end, 1)[1]
    else:
        current = current.rstrip("\n") + "\n\n" + block + "\n"
    RESULTS.write_text(current)


def machine_line() -> str:
    """The machine a result was measured on, as each section states it."""
    return f"- machine: {platform.system()} {platform.machine()}, {os.cpu_count()} CPUs, Python {platform.python_version()}"


def publish(name: str, lines: list[str], command: str) -> None:
    """End a section with where and how it was measured, write it into RESULTS.md and print it."""
    import torch

    lines = [*lines, machine_line(), f"- torch {torch.__version__} (git {torch.version.git_version[:12]})",
             f"- command: `{command}`"]
    write_section(name, "\n".join(lines))
    print("\n".join(lines))

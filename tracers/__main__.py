"""``python -m tracers COMMAND``: the commands live in tracers/commands/, one module each."""

from __future__ import annotations

import os
import sys
from pathlib import Path

# ``python -m`` puts the current directory first on sys.path, so a json.py there (or any module named like one the
# tracer imports) would be imported in place of Python's own and break the tracer before the script runs. The
# package is loaded already; the folder it came from takes that place instead (the script still gets its own folder
# first while it runs: capture/runner.py).
if not sys.flags.safe_path and sys.path and sys.path[0] in ("", os.getcwd()):
    sys.path[0] = str(Path(__file__).resolve().parent.parent)

from tracers.commands import main  # noqa: E402 - after the path is set

if __name__ == "__main__":
    sys.exit(main())

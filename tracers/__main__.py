"""``python -m tracers COMMAND``: the commands live in tracers/commands/, one module each."""

from __future__ import annotations

import sys

from tracers.commands import main

if __name__ == "__main__":
    sys.exit(main())

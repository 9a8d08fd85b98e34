"""The script again with compile off, in a fresh process: ``python -m tracers.measure.eager_run OUT DEVICE [-m] SCRIPT ...``."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from tracers.capture.runner import Outcome, check_module, check_script, hard_exits_handled, run_program
from tracers.tracefile.atomic import write_text_atomic
from tracers.tracefile.speed import EAGER, TimedRun

# TORCH_COMPILE_DISABLE alone still returns Dynamo's wrapper (its callback then declines every frame, at a cost per
# call); TORCHDYNAMO_DISABLE makes torch.compile hand back the function or module itself: eager as written.
COMPILE_OFF = {"TORCH_COMPILE_DISABLE": "1", "TORCHDYNAMO_DISABLE": "1"}


def main(argv: list[str]) -> int:
    out, device, rest = Path(argv[0]), argv[1], argv[2:]
    module = rest[:1] == ["-m"]
    rest = rest[1:] if module else rest
    program = check_module(rest[0]) if module else check_script(rest[0])
    import torch  # after the switches above are in the environment: Dynamo's config reads them on import

    from tracers.capture.devices import make_default
    from tracers.capture.speed import CallTimer

    if device == "cuda":
        make_default("cuda")
    timer = CallTimer(EAGER)
    timer.install()

    def write(outcome: Outcome) -> None:
        timer.uninstall()
        run = timer.result()
        run = TimedRun(EAGER, run.functions, run.timer, outcome.status, outcome.exit_code, run.note or outcome.error)
        write_text_atomic(out, json.dumps(run.as_json(), separators=(",", ":")))

    with hard_exits_handled(lambda code: write(Outcome("exit" if code else "ok", code))):
        outcome = run_program(program, rest[1:])
    write(outcome)
    del torch
    return 0


if __name__ == "__main__":
    if not all(os.environ.get(name) == value for name, value in COMPILE_OFF.items()):
        sys.exit("tracers.measure.eager_run runs only with compile off (tracers/measure/vs_eager.py starts it)")
    sys.exit(main(sys.argv[1:]))

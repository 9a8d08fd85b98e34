"""Run twice by ``trace --vs-eager``: the traced run writes its process id into MARKS; the eager run (compile off)
appends whether that process is still alive. Then, with a second argument, it ends as that argument says: ``wait``
prints "ready" and sleeps (for a signal), ``SIGKILL`` kills itself, ``SIGKILL-at-exit`` and ``SIGTERM-at-exit`` end it
by that signal once Python is exiting (after the tracer has saved its trace)."""

import atexit
import os
import signal
import sys
import time

import torch

marks = sys.argv[1]
ending = sys.argv[2] if len(sys.argv) > 2 else None
step = torch.compile(lambda x: (x * 2).relu(), backend="aot_eager")
for _ in range(20):
    step(torch.ones(4))
if os.environ.get("TORCHDYNAMO_DISABLE") == "1":  # the eager run
    traced = int(open(marks).read().split()[0])
    try:
        os.kill(traced, 0)
        state = "alive"
    except ProcessLookupError:
        state = "gone"
    with open(marks, "a") as out:
        out.write(f" {os.getpid()} {state}")
else:
    with open(marks, "w") as out:
        out.write(str(os.getpid()))
if ending == "wait":
    print("ready", flush=True)
    time.sleep(120)
elif ending == "SIGKILL":
    os.kill(os.getpid(), signal.SIGKILL)
elif ending and ending.endswith("-at-exit"):
    atexit.register(os.kill, os.getpid(), getattr(signal, ending.removesuffix("-at-exit")))
print("done")

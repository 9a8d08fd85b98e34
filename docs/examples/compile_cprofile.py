"""Profiling the compile itself: one function compiled with TORCH_COMPILE_CPROFILE=1 in a fresh process with its own
temporary directory; the profile files Dynamo wrote there, and the functions the compile spent its own time in."""

import glob
import json
import os
import pstats
import subprocess
import sys
import tempfile

import torch


def scale(x):
    return (torch.sin(x) * 2).sum()


def child() -> None:
    torch.compile(scale)(torch.randn(8))


def _name(key: tuple) -> str:
    path, _, name = key
    return name if path == "~" else f"{path.split('site-packages/')[-1] if 'site-packages/' in path else os.path.basename(path)}:{name}"


def _torch_caller(stats: pstats.Stats, key: tuple) -> str:
    """Up the callers, always the one that spent the most time in this function: the first of torch's functions
    outside the standard library's plumbing (threads, subprocesses), the place that asked for the work."""
    seen = set()
    while key not in seen:
        seen.add(key)
        callers = stats.stats[key][4]
        if not callers:
            return ""
        key = max(callers, key=lambda caller: callers[caller][3])
        if "/torch/" in key[0] and "/torch/utils/_" not in key[0]:
            return _name(key)
    return ""


def main() -> None:
    with tempfile.TemporaryDirectory() as scratch:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("TORCHINDUCTOR_", "TORCH_COMPILE_"))}
        env.update(TORCH_COMPILE_CPROFILE="1", TMPDIR=scratch, TORCHINDUCTOR_CACHE_DIR=os.path.join(scratch, "cache"))
        done = subprocess.run([sys.executable, __file__, "child"], env=env, check=True, capture_output=True,
                              text=True)
        logged = [line.split("Raw profile at ", 1)[1].replace(scratch, "$TMPDIR")
                  for line in done.stderr.splitlines() if "Raw profile at " in line]
        profiles = sorted(glob.glob(os.path.join(scratch, "*.profile")))
        files = [[os.path.basename(path), str(os.path.getsize(path) // 1024)] for path in profiles]
        stats = pstats.Stats(profiles[0])
        total = max(row[3] for row in stats.stats.values())  # the outermost call's cumulative time: the compile
        rows = []  # where the time was spent: each function's own time (not its callees'), largest first
        for key, (_, calls, own, _, _) in sorted(stats.stats.items(), key=lambda kv: -kv[1][2])[:12]:
            rows.append([_name(key), str(calls), f"{100 * own / total:.0f} %", _torch_caller(stats, key)])
    print(f"logged: {', '.join(logged)}")
    for name, size in files:
        print(f"wrote $TMPDIR/{name} ({size} KiB)")
    for name, calls, share, caller in rows:
        print(f"{share:>5}  {calls:>6} calls  {name}" + (f"  <- {caller}" if caller else ""))
    if "--json" in sys.argv:  # the same as data, for a recording (python -m walkthrough.outputs)
        tables = {"files": {"columns": ["profile file in $TMPDIR", "KiB"], "rows": files},
                  "top": {"columns": ["function (file:name)", "calls", "own time, share of the frame's compile",
                                  "reached from (torch's function up the busiest callers)"],
                          "rows": rows}}
        with open(sys.argv[sys.argv.index("--json") + 1], "w", encoding="utf-8") as out:
            json.dump({"tables": tables}, out)


if __name__ == "__main__":
    if sys.argv[1:] == ["child"]:
        child()
    else:
        main()

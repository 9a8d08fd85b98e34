"""When PGO writes its profile: one process compiles a function for two sizes and looks for the profile file in the
cache directory after each call, while it is still running — with no job id, with one, with a cache_key_tag too,
and with caches force-disabled."""

import glob
import json
import os
import subprocess
import sys
import tempfile

import torch


def scale(x):
    return torch.sin(x) * 2


def profiles() -> str:
    """The profile files in this process's cache directory, and their sizes."""
    found = sorted(glob.glob(os.path.join(os.environ["TORCHINDUCTOR_CACHE_DIR"], "dynamo", "code_state_*.pkl")))
    return ", ".join(f"{os.path.basename(path)} ({os.path.getsize(path)} bytes)" for path in found) or "none"


def child() -> None:
    compiled = torch.compile(scale, backend="eager")  # shapes are Dynamo's business: no backend needed
    compiled(torch.randn(8))
    after_first = profiles()  # the process is still running: nothing has exited yet
    compiled(torch.randn(16))  # a new size: a recompile, with the size marked dynamic
    print(json.dumps({"first": after_first, "second": profiles()}))


def main() -> None:
    settings = [("no job id", {}), ("TORCH_COMPILE_JOB_ID=demo", {"TORCH_COMPILE_JOB_ID": "demo"}),
                ("TORCH_COMPILE_JOB_ID=demo, TORCH_COMPILE_CACHE_KEY_TAG=v2",
                 {"TORCH_COMPILE_JOB_ID": "demo", "TORCH_COMPILE_CACHE_KEY_TAG": "v2"}),
                ("TORCH_COMPILE_JOB_ID=demo, TORCHINDUCTOR_FORCE_DISABLE_CACHES=1",
                 {"TORCH_COMPILE_JOB_ID": "demo", "TORCHINDUCTOR_FORCE_DISABLE_CACHES": "1"})]
    rows = []
    for label, extra in settings:
        with tempfile.TemporaryDirectory() as cache_dir:  # a fresh cache directory for each process
            env = {k: v for k, v in os.environ.items() if not k.startswith(("TORCHINDUCTOR_", "TORCH_COMPILE_"))}
            env.update(TORCHINDUCTOR_CACHE_DIR=cache_dir, **extra)
            done = subprocess.run([sys.executable, __file__, "child"], env=env, check=True, capture_output=True,
                                  text=True)
        found = json.loads(done.stdout.strip().splitlines()[-1])
        print(f"{label}: after the first compile {found['first']}; after the recompile {found['second']}")
        rows.append([label, found["first"], found["second"]])
    if "--json" in sys.argv:  # the same as data, for a recording (python -m walkthrough.outputs)
        table = {"columns": ["setting", "profile file after the first compile", "after the recompile"],
                 "rows": rows, "marked": [1]}
        with open(sys.argv[sys.argv.index("--json") + 1], "w", encoding="utf-8") as out:
            json.dump({"tables": {"written": table}}, out)


if __name__ == "__main__":
    if sys.argv[1:] == ["child"]:
        child()
    else:
        main()

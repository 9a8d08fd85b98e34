"""PGO across processes: the same function run in two fresh processes, with and without a job id."""

import json
import os
import subprocess
import sys
import tempfile

import torch


def scale(x):
    return torch.sin(x) * 2


def child() -> None:
    compiled = torch.compile(scale, backend="eager")  # shapes are Dynamo's business: no backend needed
    compiled(torch.randn(8))
    compiled(torch.randn(16))  # a new size: a recompile, unless the profile says the size varies
    print(torch._dynamo.utils.counters["stats"]["unique_graphs"])


def run_twice(job_id: str | None) -> list[str]:
    with tempfile.TemporaryDirectory() as cache_dir:
        env = {k: v for k, v in os.environ.items() if k not in ("TORCH_COMPILE_JOB_ID", "TORCH_COMPILE_STICKY_PGO_KEY")}
        env["TORCHINDUCTOR_CACHE_DIR"] = cache_dir  # both processes share one cache directory
        if job_id:
            env["TORCH_COMPILE_JOB_ID"] = job_id
        return [subprocess.run([sys.executable, __file__, "child"], env=env, check=True,
                               capture_output=True, text=True).stdout.strip() for _ in range(2)]


if __name__ == "__main__":
    if sys.argv[1:] == ["child"]:
        child()
    else:
        rows = []
        for job_id in (None, "pgo-demo"):
            first, second = run_twice(job_id)
            print(f"job id {job_id!r}: graphs compiled by the first process {first}, by the second {second}")
            rows.append([job_id or "none", first, second])
        if "--json" in sys.argv:  # the same numbers as data, for a recording (python -m walkthrough.outputs)
            table = {"columns": ["TORCH_COMPILE_JOB_ID", "graphs, first process", "graphs, second process"],
                     "rows": rows, "marked": [1]}
            with open(sys.argv[sys.argv.index("--json") + 1], "w", encoding="utf-8") as out:
                json.dump({"tables": {"graphs": table}}, out)

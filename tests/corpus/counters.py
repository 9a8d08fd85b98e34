"""torch's own counters for one run of a corpus program, read from torch in every process the run starts.

    python tests/corpus/counters.py [--nproc N] [--logs] PROGRAM [ARGS...]

prints a JSON object: per process that compiled (``main``, or ``rank0``, ``rank1``, ...) the graphs
(``counters["stats"]["unique_graphs"]`` plus compiled autograd's captures), graph breaks
(``len(torch._dynamo.utils.graph_break_reasons)``), frame compiles and recompiles (``convert_frame.FRAME_COMPILE_COUNTER``),
the recompile-limit warnings Dynamo logged, and the raw ``counters``. ``--logs`` runs it with
``TORCH_LOGS=recompiles,graph_breaks,dynamic`` (torch's logs go to stderr): how the truth files were worked out.
No tracer is involved: the program runs as ``python PROGRAM`` (or under torchrun with ``--nproc``)."""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
HOOK = HERE / "_hook"
KEYS = ("graphs", "graph_breaks", "frame_compiles", "recompiles", "recompile_limit_hits")


def hook_env(directory: str | Path, env: dict[str, str] | None = None) -> dict[str, str]:
    """The environment that makes every Python of the run dump torch's counters into ``directory``."""
    env = dict(os.environ if env is None else env)
    env["CORPUS_COUNTERS_DIR"] = str(directory)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(HOOK), env.get("PYTHONPATH", "")]))
    return env


def collect(directory: str | Path) -> dict[str, dict]:
    """The dumps in ``directory``, one per process that compiled, keyed ``main`` or ``rank<N>``."""
    records = [json.loads(path.read_text()) for path in sorted(Path(directory).glob("counters-*.json"))]
    ranked = [record for record in records if record.get("rank") is not None]
    if ranked:  # a launcher or spawn parent beside the ranks: it compiled nothing of the program's
        records = ranked + [record for record in records if record.get("rank") is None and record["frame_compiles"]]
    else:  # one process (a program that compiled nothing still has one)
        records = [max(records, key=lambda record: record["frame_compiles"])] if records else \
            [{**{name: 0 for name in KEYS}, "rank": None, "note": "torch._dynamo was never imported"}]
    found: dict[str, dict] = {}
    for record in records:
        key = f"rank{record['rank']}" if record.get("rank") is not None else "main"
        while key in found:
            key += "+"
        found[key] = record
    return found


def counts(found: dict[str, dict]) -> dict[str, dict[str, int]]:
    """Just the numbers the truth files declare."""
    return {key: {name: record[name] for name in KEYS} for key, record in sorted(found.items())}


def command(program: str | Path, args: list[str], nproc: int | None) -> list[str]:
    if nproc:
        return [sys.executable, "-m", "torch.distributed.run", "--standalone", f"--nproc-per-node={nproc}",
                str(program), *args]
    return [sys.executable, str(program), *args]


def run(program: str | Path, args: list[str] = (), nproc: int | None = None, logs: bool = False,
        timeout: float = 600) -> tuple[int, dict[str, dict]]:
    with tempfile.TemporaryDirectory(prefix="corpus-counters-") as directory:
        env = hook_env(directory)
        if logs:
            env["TORCH_LOGS"] = "recompiles,graph_breaks,dynamic"
        program = Path(program).resolve()
        done = subprocess.run(command(program, list(args), nproc), env=env, timeout=timeout, cwd=HERE.parent.parent)
        return done.returncode, collect(directory)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nproc", type=int)
    parser.add_argument("--logs", action="store_true")
    parser.add_argument("--raw", action="store_true", help="print each process's whole dump")
    parser.add_argument("program")
    parser.add_argument("args", nargs=argparse.REMAINDER)
    options = parser.parse_args()
    code, found = run(options.program, options.args, options.nproc, options.logs)
    print(json.dumps(found if options.raw else counts(found), indent=1))
    return code


if __name__ == "__main__":
    sys.exit(main())

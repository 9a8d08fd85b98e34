"""``record [EXAMPLE...]``: re-record the site's example traces, one fresh process per example."""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tracers.tracefile.names import CACHE_MODES, DEVICES
from tracers.vocabulary.durations import duration_s
from tracers.vocabulary.releases import public_version

HELP = "re-record the site's example traces"
LOCK_FILE = "docs/walkthrough.lock.json"  # the walkthrough's lock: the spans its excerpts show

EXAMPLES_DIR = Path("docs/examples")
TRACES_DIR = Path("docs/_traces")
# An example asks for more than a plain trace with a comment line of its own, e.g. ``# tracers-record: --vs-eager``;
# only options that change what is measured, never where it goes or what the site expects of the file.
MARKER = re.compile(r"^# tracers-record:(.*)$", re.MULTILINE)
DECLARABLE = ("--vs-eager", "--profile")


def add_arguments(record: argparse.ArgumentParser) -> None:
    """Device, cache mode, executed lines, ranks, the examples."""
    record.description = ("Trace each example (default: every docs/examples/*.py) cold, in a fresh process, "
                          "into docs/_traces/<device>/<torch version>/.")
    record.add_argument("--device", choices=DEVICES, default="cpu")
    record.add_argument("--cache", choices=CACHE_MODES, default="cold",
                        help="warm: run each example once first (own fresh cache dir), then trace the second run")
    record.add_argument("--lines", action="store_true",
                        help="also count executed lines in the hooked functions and docs/walkthrough.lock.json's spans")
    record.add_argument("--nproc", type=int, metavar="N",
                        help="run each example on N local ranks (torchrun): a trace per rank and their merge "
                             "(for docs/examples/distributed/*.py)")
    record.add_argument("examples", nargs="*", metavar="EXAMPLE")


def run(args: argparse.Namespace) -> int:
    """0 every example recorded; else the first failure's status."""
    return record(args.examples, args.device, cache=args.cache, lines_lock=LOCK_FILE if args.lines else None,
                  nproc=args.nproc)


def declared_options(example: str | Path) -> list[str]:
    """The trace options an example declares with ``# tracers-record: ...`` lines; ValueError for any other option."""
    try:
        source = Path(example).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return []  # the run itself says what is wrong with the file
    options = [option for match in MARKER.finditer(source) for option in match[1].split()]
    unknown = [option for option in options if option not in DECLARABLE]
    if unknown:
        raise ValueError(f"{example}: '# tracers-record:' allows {', '.join(DECLARABLE)}, not {' '.join(unknown)}")
    return list(dict.fromkeys(options))


def record(examples: list[str], device: str, out_root: Path = TRACES_DIR, cache: str = "cold",
           lines_lock: str | None = None, nproc: int | None = None) -> int:
    """Trace each example in a fresh process. ``cache="warm"`` first runs the example once untraced with
    an empty cache dir of its own, so the recorded run finds every cache filled. ``lines_lock`` also
    counts executed lines inside the hooked functions and the spans that lock file holds. ``nproc`` runs each
    example on that many ranks (torchrun), writing a trace per rank and their merge. An example's own
    ``# tracers-record: --vs-eager --profile`` line adds those options to its trace (``declared_options``)."""
    if not examples:
        # The distributed examples need ranks; the others run as one process.
        folder = EXAMPLES_DIR / "distributed" if nproc else EXAMPLES_DIR
        examples = [str(path) for path in sorted(folder.glob("*.py"))]
    if not examples:
        print(f"record: no examples found in {EXAMPLES_DIR}/", file=sys.stderr)
        return 2
    try:
        import torch  # only now: the checks above must answer fast and without torch's import noise
    except ImportError as error:
        print(f"record: torch is not importable in this Python ({sys.executable}): {error}", file=sys.stderr)
        return 2

    out_dir = out_root / device / public_version(torch.__version__)
    print(f"Recording {len(examples)} example(s) {cache} with torch {torch.__version__} on {device} "
          f"into {out_dir}/", file=sys.stderr)
    failures = 0
    for index, example in enumerate(examples, 1):
        print(f"[{index}/{len(examples)}] {example} …", end="", file=sys.stderr, flush=True)
        try:
            declared = declared_options(example)
        except ValueError as error:
            failures += 1
            print(f" not recorded: {error}", file=sys.stderr)
            continue
        started = time.monotonic()
        with tempfile.TemporaryDirectory(prefix="tracers-record-cache-") as cache_dir:
            env = {**os.environ, "TORCHINDUCTOR_CACHE_DIR": cache_dir,
                   "TRITON_CACHE_DIR": os.path.join(cache_dir, "triton")}
            result = None
            if cache == "warm":
                launch = [sys.executable, "-m", "torch.distributed.run", "--standalone",
                          f"--nproc-per-node={nproc}"] if nproc else [sys.executable]
                # Distributed examples put their tensors on their rank's GPU themselves: no default to set.
                result = _run([*launch, example], env, None if nproc else device)
            if result is None or result.returncode == 0:
                # The site's recordings keep Inductor's IR too: the scheduling chapter shows fusion in it.
                command = [sys.executable, "-m", "tracers", "trace", "--quiet", "--no-page", "--inductor-ir",
                           "--cache", cache, "--device", device, "--out", str(out_dir)]
                if lines_lock is not None:
                    command += ["--lines", "--lines-lock", lines_lock]
                if nproc is not None:
                    command += ["--nproc", str(nproc)]
                command += [*declared, example]
                result = _run(command, env)
        elapsed = time.monotonic() - started
        if result.returncode == 0:
            print(f" ok ({duration_s(elapsed)})", file=sys.stderr)
        else:
            failures += 1
            last = (result.stderr.strip().splitlines() or ["no output"])[-1]
            print(f" failed with exit {result.returncode} ({duration_s(elapsed)}): {last}", file=sys.stderr)
    return 1 if failures else 0


def _run(command: list[str], env: dict[str, str], device: str | None = None) -> subprocess.CompletedProcess[str]:
    if device == "cuda":
        # The priming run must compile for the same device the traced run will use.
        command = [sys.executable, "-c", _PRIME_ON_CUDA, *command[1:]]
    return subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=env)


# The GPU made the default device the way `trace --device cuda` makes it (tracers/capture/devices.py), so the
# priming run compiles the very graphs the traced run looks up in the caches.
_PRIME_ON_CUDA = (
    "import runpy, sys; from tracers.capture.devices import make_default; make_default('cuda'); sys.argv = sys.argv[1:]; "
    "runpy.run_path(sys.argv[0], run_name='__main__')"
)

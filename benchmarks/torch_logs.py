"""Reading TORCH_TRACE logs: one 3.5 MB rank log read, and 8 such ranks merged by ``report DIR``, on this machine.

The logs are real: `docs/examples/distributed/rank_divergent.py` runs on 2 CPU ranks under torchrun with
TORCH_TRACE set (Inductor, caches off); rank 1's log (the one that recompiles) is then repeated with fresh
compile ids and later timestamps up to the target size, and written once per rank of the 8. Usage:

    python benchmarks/torch_logs.py [--size-mb 3.5] [--ranks 8]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.results import publish
from tracers.torchlogs.records import Problems, read_records

EXAMPLE = ROOT / "docs" / "examples" / "distributed" / "rank_divergent.py"
_ID = re.compile(r"^(\d+)/(.*)$")


def record_logs(scratch: Path) -> Path:
    """Run the example on 2 ranks under TORCH_TRACE; the log of rank 1."""
    logs = scratch / "logs"
    environment = {**os.environ, "PYTHONPATH": str(ROOT), "TORCH_TRACE": str(logs),
                   "TORCHINDUCTOR_CACHE_DIR": str(scratch / "cache"), "TORCHINDUCTOR_FX_GRAPH_CACHE": "0",
                   "TORCHINDUCTOR_AUTOGRAD_CACHE": "0"}
    command = [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc-per-node=2", str(EXAMPLE)]
    result = subprocess.run(command, check=False, cwd=ROOT, env=environment, capture_output=True, text=True)
    if result.returncode != 0:
        sys.exit(f"the example failed under torchrun:\n{result.stderr[-2000:]}")
    return next(logs.glob("dedicated_log_torch_trace_rank_1_*.log"))


def _shift_id(value: str, offset: int) -> str:
    match = _ID.match(value)
    return f"{int(match[1]) + offset}/{match[2]}" if match else value


def scaled_log(base: Path, size: int, rank: int) -> str:
    """The base log's records, repeated with frame ids and times moved on, until ``size`` bytes."""
    records = [(record.prefix, record.metadata, record.payload) for record in read_records(base, Problems())]
    parts: list[str] = []
    written, copy = 0, 0
    while written < size:
        frame_offset, ts_offset = copy * 1000, copy * 60_000_000.0  # a minute later per copy, in µs
        for prefix, metadata, payload in records:
            metadata = dict(metadata)
            if "rank" in metadata:
                metadata["rank"] = rank
            if isinstance(metadata.get("frame_id"), int):
                metadata["frame_id"] += frame_offset
            if payload is not None and "chromium_event" in metadata:
                event = json.loads(payload)
                event["ts"] = event["ts"] + ts_offset
                if isinstance((event.get("args") or {}).get("compile_id"), str):
                    event["args"]["compile_id"] = _shift_id(event["args"]["compile_id"], frame_offset)
                payload = json.dumps(event, indent=0)
            if payload is not None:
                metadata["has_payload"] = hashlib.md5(payload.encode()).hexdigest()
            text = prefix + json.dumps(metadata) + ("".join(f"\n\t{line}" for line in payload.split("\n"))
                                                    if payload is not None else "") + "\n"
            parts.append(text)
            written += len(text)
        copy += 1
    return "".join(parts)


# A real log with graph breaks and recompiles (docs/examples/graph_breaks.py under aot_eager, torch 2.11): 6 compiles
# of 3 frames (the function and its two resume functions, each compiled twice), every record kind torch writes there.
BREAKS_LOG = ROOT / "tests" / "data" / "torch-2.11.0" / "graph_breaks-aot_eager.log.gz"
_USER_FILE = "docs/examples/graph_breaks.py"
_COMPILE_ID = re.compile(r"^(\d+)/(\d+)")
_TIMES_US = ("start_time_us", "end_time_us")


def _moved(value: Any, frames: int, file_id: int, seconds: float) -> Any:
    """A record's metadata for another copy: frame and compile ids moved on by ``frames``, the user file's interned id
    (1 in the template) replaced, times moved on by ``seconds``."""
    if isinstance(value, list):
        return [_moved(item, frames, file_id, seconds) for item in value]
    if not isinstance(value, dict):
        return value
    moved = {}
    for key, item in value.items():
        if key == "frame_id" and isinstance(item, int):
            item += frames
        elif key in ("compile_id", "recompile_reason") and isinstance(item, str):
            item = _COMPILE_ID.sub(lambda match: f"{int(match[1]) + frames}/{match[2]}", item)
        elif key == "frame_key" and isinstance(item, str) and item.isdigit():
            item = str(int(item) + frames)
        elif key == "filename" and item == 1:
            item = file_id
        elif key == "start_time" and isinstance(item, float):
            item += seconds
        elif key in _TIMES_US and isinstance(item, int):
            item += int(seconds * 1e6)
        else:
            item = _moved(item, frames, file_id, seconds)
        moved[key] = item
    return moved


def compiles_log(compiles: int) -> tuple[str, int]:
    """A log of at least ``compiles`` compiles with graph breaks, and how many it has: BREAKS_LOG's records repeated,
    each copy as the same code in another file of the program (its own path, interned name, frame and compile ids,
    later clock), as a program whose many modules each break and recompile would log them."""
    records = list(read_records(BREAKS_LOG, Problems()))
    frames = 1 + max(record.metadata.get("frame_id", 0) for record in records)
    per_copy = sum("compilation_metrics" in record.metadata for record in records)
    interned = 1 + max(record.metadata["str"][1] for record in records if "str" in record.metadata)
    clock = re.compile(r"^([A-Z])(\d{4}) (\d\d):(\d\d):(\d\d\.\d+)")
    span_s = 5.0  # each copy 5 s after the one before (the template lasts ~3 s; 16k compiles stay within a day)
    parts: list[str] = []
    copies = -(-compiles // per_copy)
    for copy in range(copies):
        shift_s, file_id = copy * span_s, 1 if copy == 0 else interned + copy - 1
        path = _USER_FILE if copy == 0 else _USER_FILE.replace(".py", f"_{copy:05d}.py")
        for record in records:
            if "str" in record.metadata:
                if record.metadata["str"][1] != 1 and copy:
                    continue  # torch's own files are interned once per process
                metadata = {"str": [record.metadata["str"][0].replace(_USER_FILE, path), file_id]}
            else:
                metadata = _moved(record.metadata, copy * frames, file_id, shift_s)
            payload = record.payload
            if payload is not None and copy:
                payload = payload.replace(_USER_FILE, path)
                if "chromium_event" in metadata:
                    event = _moved(json.loads(payload), copy * frames, file_id, shift_s)
                    event["ts"] = event["ts"] + shift_s * 1e6
                    payload = json.dumps(event, indent=0)
            if payload is not None:
                metadata["has_payload"] = hashlib.md5(payload.encode()).hexdigest()
            level, day, hours, minutes, seconds = clock.match(record.prefix).groups()
            at = int(hours) * 3600 + int(minutes) * 60 + float(seconds) + shift_s
            prefix = clock.sub(f"{level}{day} {int(at // 3600) % 24:02d}:{int(at % 3600 // 60):02d}:{at % 60:09.6f}",
                               record.prefix)
            text = json.dumps(metadata).replace(_USER_FILE, path) if copy else json.dumps(metadata)
            parts.append(prefix + text + ("".join(f"\n\t{line}" for line in payload.split("\n"))
                                          if payload is not None else "") + "\n")
    return "".join(parts), copies * per_copy


def regions_log(path: Path, regions: int) -> None:
    """Write a log of ``regions`` timed regions one after another (a begin and an end record each, seven names in
    turn), each record shaped as BREAKS_LOG's first ``chromium_event`` (its header, its payload's fields): the many
    regions a long job logs, without the compiles around them."""
    template = next(record for record in read_records(BREAKS_LOG, Problems()) if "chromium_event" in record.metadata)
    event = json.loads(template.payload or "{}")
    start_us = float(event["ts"])
    with path.open("w", encoding="utf-8") as out:
        for index in range(regions):
            for phase, at_us in (("B", start_us + 15 * index), ("E", start_us + 15 * index + 10)):
                payload = json.dumps({**event, "name": f"region_{index % 7}", "ts": at_us, "ph": phase}, indent=0)
                header = {**template.metadata, "has_payload": hashlib.md5(payload.encode()).hexdigest()}
                out.write(template.prefix + json.dumps(header) + "".join(f"\n\t{line}" for line in payload.split("\n"))
                          + "\n")


def rank_logs(scratch: Path, ranks: int, size: int) -> tuple[Path, float]:
    """A directory of ``ranks`` rank logs of ``size`` bytes made from one real log, and that log's size in kB."""
    base = record_logs(scratch)
    directory = scratch / "ranks"
    directory.mkdir()
    for rank in range(ranks):
        (directory / f"dedicated_log_torch_trace_rank_{rank}_bench.log").write_text(
            scaled_log(base, size, rank), encoding="utf-8")
    return directory, base.stat().st_size / 1e3


def timed(code: str, *args: str) -> tuple[float, float, str]:
    """(wall seconds, the process's own peak RSS in MB, stderr) of ``python -c code args`` in a fresh process."""
    started = time.perf_counter()
    result = subprocess.run([sys.executable, "-c", code + _PEAK, *args], check=False, cwd=ROOT, capture_output=True, text=True,
                            env={**os.environ, "PYTHONPATH": str(ROOT), "NO_COLOR": "1"})
    wall = time.perf_counter() - started
    if result.returncode != 0:
        sys.exit(f"{code} failed:\n{result.stderr[-2000:]}")
    peak_kb = int(result.stderr.rsplit("peak_rss_kb=", 1)[1].split()[0])
    return wall, peak_kb / 1024, result.stderr


_PEAK = "; import resource; print(f'peak_rss_kb={resource.getrusage(resource.RUSAGE_SELF).ru_maxrss}', file=sys.stderr)"
READ_ONE = ("import sys, time; from pathlib import Path; from tracers.torchlogs.load import load_log; "
            "started = time.perf_counter(); log = load_log(Path(sys.argv[1])); "
            "print(f'read {time.perf_counter() - started:.3f} {len(log.trace.spans)} {len(log.trace.artifacts)}', "
            "file=sys.stderr)")
BASELINE = "import sys, tracers.torchlogs.load, tracers.torchlogs.merged_run"
REPORT = "import sys; from tracers.__main__ import main; status = main(['report', *sys.argv[1:]])"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size-mb", type=float, default=3.5, help="size of each rank's log (default 3.5)")
    parser.add_argument("--ranks", type=int, default=8, help="ranks to merge (default 8)")
    options = parser.parse_args()
    size = int(options.size_mb * 1_000_000)
    with tempfile.TemporaryDirectory(prefix="bench-torchlogs-") as scratch_name:
        scratch = Path(scratch_name)
        ranks, base_kb = rank_logs(scratch, options.ranks, size)
        one = ranks / "dedicated_log_torch_trace_rank_0_bench.log"
        log_mb = one.stat().st_size / 1e6
        _, baseline_mb, _ = timed(BASELINE)
        read_wall, read_mb, read_err = timed(READ_ONE, str(one))
        read_s, spans, artifacts = read_err.split("read ", 1)[1].split()[:3]
        merge_wall, merge_mb, _ = timed(REPORT, str(ranks), "--out", str(scratch / "out"))
        merged = scratch / "out" / "ranks-ranks.json"
        merged_mb = merged.stat().st_size / 1e6 if merged.exists() else 0.0
    lines = [
        "## Reading TORCH_TRACE logs (report LOG_OR_DIR)",
        "",
        (f"- Real logs: `{EXAMPLE.relative_to(ROOT)}` on 2 CPU ranks under torchrun with `TORCH_TRACE` (Inductor, "
        f"caches off); rank 1's log ({base_kb:.0f} kB) repeated whole with fresh compile ids until at least the size asked ({log_mb:.1f} MB), "
        f"once per rank. Each measurement is a fresh process; memory is the process's peak RSS beside an "
        f"interpreter that only imported the reader ({baseline_mb:.0f} MB)."),
        "",
        "| measurement | result | target |",
        "|---|---|---|",
        (f"| read one {log_mb:.1f} MB rank log (`load_log`, in-process time) | {float(read_s):.2f} s "
        f"({spans} spans, {artifacts} artifacts) | ≤ 5 s |"),
        f"| same, whole process (start, import, read) | {read_wall:.2f} s, peak RSS {read_mb:.0f} MB | |",
        (f"| `report DIR` of {options.ranks} such ranks: read, merge, divergence, trace + page written | "
        f"{merge_wall:.2f} s, peak RSS {merge_mb:.0f} MB | ≤ 30 s |"),
        f"| merged trace file | {merged_mb:.1f} MB | |",
        "",
        ("The log is streamed in blocks of whole lines (a block of 1 MB, or a record's payload, is the most held "
         "at once), so reading "
        "costs memory for the trace kept (graphs, guards, generated code), not for the log's size: most of "
        "a log is torch's timing events and tensor descriptions, which become spans or are only counted."),
    ]
    publish("torch-logs", lines, f"python benchmarks/torch_logs.py --size-mb {options.size_mb:g} --ranks {options.ranks}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

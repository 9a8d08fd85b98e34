"""Hostile inputs for ``report``: seeded mutations of small real traces and TORCH_TRACE logs, and special files.

``python -m tests.hostile OUT_DIR [SEED] [COUNT]`` makes the cases, runs ``report`` on each in this one process
(a per-case alarm as the hang detector) and prints one JSON line per case: its name, the exit status, what
went wrong (an exception escaping, a traceback printed, a negative time on the page) and the process's peak RSS
after it. tests/tracers/torchlogs/test_hostile_input.py runs it and checks the lines."""

from __future__ import annotations

import contextlib
import copy
import gzip
import hashlib
import io
import itertools
import json
import os
import random
import re
import resource
import signal
import socket
import sys
import traceback
from collections.abc import Callable, Iterator
from pathlib import Path

from tracers.torchlogs.records import Problems, read_records

ROOT = Path(__file__).resolve().parent.parent
# Small real seeds: recorded traces of the site (a single-process trace, one with payloads, a merge of two
# ranks) and real TORCH_TRACE logs (a single process's, and two ranks' of one run), cut to their first records.
TRACES = ROOT / "docs" / "_traces" / "cpu"
TRACE_SEEDS = (TRACES / "2.11.0" / "guards_recompile-cpu-cold.json", TRACES / "2.13.0" / "frame_cache-cpu-cold.json")
MERGED_SEED = TRACES / "2.13.0" / "rank_divergent-cpu-cold-ranks.json"
LOG_SEED = ROOT / "tests" / "data" / "torch-2.11.0" / "graph_breaks-aot_eager.log.gz"
RANK_SEEDS = tuple(sorted((ROOT / "tests" / "data" / "tlparse" / "graph_exec_order_tests").glob("*.log.gz")))
LOG_RECORDS = 90  # records kept of each seed log: real, and quick to report hundreds of times
CASE_SECONDS = 60  # a case still running after this is a hang (a good one takes well under a second)
# A negative time or count where the page or summary shows one: "-1267 ms", "-2 rank(s)".
NEGATIVE = re.compile(r"(?<![\w/.:-])-\d[\d,.]*\s?(?:ms|s|µs|us|ns|min|h)\b|(?<![\w/.:-])-\d+ (?:rank|finding|compile"
                      r"|graph|process|log|call|record|span)")
TAG = re.compile(r"<[^>]*>")

# Values a type swap puts in place of another: wrong types, extreme or non-finite numbers, paths, markup.
SWAPS: tuple[object, ...] = (None, True, False, -3, 0, 2 ** 64, -(2 ** 63), 1e308, -1e308, float("inf"),
                             float("-inf"), float("nan"), "1", "", "0/0", [], {}, [1, "a", None], {"a": {"b": [1]}},
                             "/etc/passwd", "/dev/zero", "../../../../etc/passwd", "<script>alert(1)</script>",
                             "x" * 5000, "٣", 100_000_000, -1, 1.5)


def deep(levels: int) -> object:
    value: object = 1
    for _ in range(levels):
        value = [value]
    return value


# -- the seeds, as data ------------------------------------------------------------------------------------------
def _text(records: list[tuple[str, dict, str | None]], fix_md5: bool = True) -> str:
    parts = []
    for prefix, metadata, payload in records:
        metadata = dict(metadata)
        if payload is not None and fix_md5:
            metadata["has_payload"] = hashlib.md5(payload.encode()).hexdigest()
        body = "".join(f"\n\t{line}" for line in payload.split("\n")) if payload is not None else ""
        parts.append(prefix + dumps(metadata) + body + "\n")
    return "".join(parts)


def dumps(value: object) -> str:
    """json.dumps, also of lists nested deeper than it recurses (written out by hand)."""
    nested: list[int] = []

    def flatten(item: object) -> object:
        if isinstance(item, list) and item and isinstance(item[0], list):
            levels, inner = 0, item
            while isinstance(inner, list) and inner:
                inner, levels = inner[0], levels + 1
            if levels > 100:
                nested.append(levels)
                return f"@@deep{len(nested) - 1}@@"
        if isinstance(item, dict):
            return {key: flatten(child) for key, child in item.items()}
        if isinstance(item, list):
            return [flatten(child) for child in item]
        return item

    text = json.dumps(flatten(value), allow_nan=True)
    for index, levels in enumerate(nested):
        text = text.replace(f'"@@deep{index}@@"', "[" * levels + "1" + "]" * levels)
    return text


def _seed_log(path: Path) -> list[tuple[str, dict, str | None]]:
    """A real log's first records as (header prefix, metadata, payload), split as ``report`` splits them."""
    with contextlib.closing(read_records(path, Problems())) as records:
        return [(record.prefix, record.metadata, record.payload) for record in itertools.islice(records, LOG_RECORDS)]


# -- mutations ---------------------------------------------------------------------------------------------------
def _slots(value: object, path: tuple = ()) -> Iterator[tuple]:
    """Every (container, key) in a JSON value, to swap one."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield (value, key)
            yield from _slots(item, path + (key,))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield (value, index)
            yield from _slots(item, path + (index,))


def swap_one(rng: random.Random, data: object) -> str:
    slots = list(_slots(data))
    container, key = rng.choice(slots)
    choice = rng.choice(SWAPS + (deep(3000), deep(40)))
    container[key] = choice
    shown = "nested lists" if isinstance(choice, list) and choice and isinstance(choice[0], list) else str(choice)[:20]
    return f"{str(key)[:20]}={shown}"


def _events(data: dict) -> list[dict]:
    events = data.get("traceEvents") if isinstance(data, dict) else None
    return [event for event in events or [] if isinstance(event, dict)]


def cycle(rng: random.Random, data: dict) -> str:
    """A span made its own ancestor: a flipped digit in a parent field."""
    spans = [event for event in _events(data) if event.get("ph") == "X" and isinstance(event.get("args"), dict)
             and "id" in event["args"]]
    if not spans:
        return "no spans"
    child = rng.choice(spans)
    below = [event for event in spans if event["args"].get("parent") == child["args"]["id"]] or [child]
    child["args"]["parent"] = rng.choice(below)["args"]["id"]
    return f"span {child['args']['id']} under its own child"


def bad_time(rng: random.Random, data: dict) -> str:
    events = [event for event in _events(data) if "ts" in event]
    event = rng.choice(events)
    key = rng.choice(("ts", "dur"))
    value = rng.choice((float("inf"), float("-inf"), 1e308, -1e308, -4e18, 1e18, float("nan"), -5.0))
    event[key] = value
    return f"{key}={value}"


def json_case(rng: random.Random, seed: Path) -> tuple[str, bytes]:
    raw = seed.read_bytes()
    kind = rng.choice(("truncate", "flip", "swap", "swap", "swap", "cycle", "cycle", "time", "time", "version"))
    if kind == "truncate":
        cut = rng.randrange(len(raw))
        return f"truncate@{cut}", raw[:cut]
    if kind == "flip":
        data = bytearray(raw)
        for _ in range(rng.randint(1, 8)):
            data[rng.randrange(len(data))] = rng.randrange(256)
        return "flip", bytes(data)
    data = json.loads(raw)
    if kind == "swap":
        what = swap_one(rng, data)
    elif kind == "cycle":
        what = cycle(rng, data)
    elif kind == "time":
        what = bad_time(rng, data)
    else:
        info = data["otherData"].get("torch_compile_walkthrough") or data["otherData"].get(
            "torch_compile_walkthrough_ranks")
        info["format_version"] = rng.choice(("1", 1.0, None, 2 ** 70, -1, True))
        what = repr(info["format_version"])
    return f"{kind}:{what}", dumps(data).encode()


def _chromium(records: list) -> list[int]:
    return [index for index, (_, metadata, payload) in enumerate(records) if "chromium_event" in metadata and payload]


def log_case(rng: random.Random, seed: list) -> tuple[str, str | bytes]:
    records = copy.deepcopy(seed)
    kind = rng.choice(("truncate", "flip", "meta", "meta", "payload", "payload", "order", "order", "twice",
                       "rank", "frame", "frame", "deep"))
    if kind == "truncate":
        text = _text(records)
        cut = rng.randrange(len(text))
        return f"truncate@{cut}", text[:cut]
    if kind == "flip":
        data = bytearray(_text(records).encode())
        for _ in range(rng.randint(1, 8)):
            data[rng.randrange(len(data))] = rng.randrange(256)
        return "flip", bytes(data)
    if kind == "meta":
        index = rng.randrange(len(records))
        return f"meta:{swap_one(rng, records[index][1])}", _text(records)
    if kind == "payload":  # an edited payload with its md5 fixed
        index = rng.choice(_chromium(records))
        prefix, metadata, payload = records[index]
        event = json.loads(payload)
        key = rng.choice(("ts", "ts", "ph", "name", "args", "dur"))
        event[key] = rng.choice(SWAPS + (-29719e6 * 1e6, 1e13, "E", "B", "X"))
        records[index] = (prefix, metadata, dumps(event))
        return f"payload:{key}={str(event[key])[:20]}", _text(records)
    if kind == "order":  # two blocks of records swapped
        a, b = sorted(rng.sample(range(len(records)), 2))
        size = rng.randint(1, max(1, min(20, b - a)))
        records = records[:a] + records[b:b + size] + records[a + size:b] + records[a:a + size] + records[b + size:]
        return f"order:{a}<->{b}x{size}", _text(records)
    if kind == "twice":
        text = _text(records)
        return "twice", text + text
    if kind == "rank":
        value = rng.choice((100_000_000, -3, 2 ** 70, "1", 1.0, None))
        for _, metadata, _ in records:
            metadata["rank"] = value
        return f"rank={value}", _text(records)
    if kind == "frame":
        index = next((i for i, (_, m, _) in enumerate(records) if "compilation_metrics" in m), None)
        if index is None:
            records.append(("V1125 15:42:40.777000 456 torch/_dynamo/utils.py:1] ",
                            {"compilation_metrics": {"co_name": "f"}, "frame_id": 0, "frame_compile_id": 0}, None))
            index = len(records) - 1
        metrics = records[index][1]["compilation_metrics"]
        metrics["co_filename"] = rng.choice(("/etc/passwd", "/dev/zero", "/proc/self/mem", "/etc/hostname",
                                            "../../etc/passwd", str(ROOT / "conf.py")))
        metrics["co_firstlineno"] = rng.choice((1, 1.5, "1", -1, 10 ** 30))
        return f"frame:{metrics['co_filename']}", _text(records)
    index = rng.randrange(len(records))
    records[index][1]["deep"] = deep(rng.choice((40, 3000)))
    return "deep", _text(records)


# -- special files -------------------------------------------------------------------------------------------------
def special_cases(where: Path) -> Iterator[tuple[str, Path]]:
    """Files that are no regular file, or that cannot be read: each refused with one line, at once."""
    fifo = where / "fifo"
    fifo.mkdir()
    for name in ("trace.json", "dedicated_log_torch_trace_x.log", "dedicated_log_torch_trace_rank_0_x.log.gz"):
        os.mkfifo(fifo / name)
        yield f"fifo as {name}", fifo / name
    ranks = where / "fifo-ranks"
    ranks.mkdir()
    os.mkfifo(ranks / "dedicated_log_torch_trace_rank_0_a.log")
    (ranks / "dedicated_log_torch_trace_rank_1_b.log").write_text(_text(_seed_log(LOG_SEED)), encoding="utf-8")
    yield "a fifo among rank logs", ranks
    links = where / "links"
    links.mkdir()
    for name in ("zero.json", "dedicated_log_torch_trace_zero.log"):
        (links / name).symlink_to("/dev/zero")
        yield f"/dev/zero as {name}", links / name
    (links / "loop.json").symlink_to(links / "loop.json")
    yield "a symlink loop", links / "loop.json"
    (links / "dedicated_log_torch_trace_loop.log").symlink_to(links / "dedicated_log_torch_trace_loop.log")
    yield "a symlink loop named as a log", links / "dedicated_log_torch_trace_loop.log"
    (where / "dir.json").mkdir()
    yield "a directory named .json", where / "dir.json"
    sock = where / "sock.json"
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(sock))
    yield "a socket", sock
    (where / "empty.json").write_bytes(b"")
    yield "an empty file", where / "empty.json"
    sparse = where / "huge.json"
    with open(sparse, "wb") as stream:
        stream.truncate(3 << 30)  # sparse: 3 GB of nothing, on no disk
    yield "a 3 GB file", sparse
    (where / "dedicated_log_torch_trace_plain.log.gz").write_text(_text(_seed_log(LOG_SEED)), encoding="utf-8")
    yield "a plain log named .gz", where / "dedicated_log_torch_trace_plain.log.gz"
    (where / "renamed.txt").write_bytes(b"\xef\xbb\xbf" + _text(_seed_log(LOG_SEED)).encode())
    yield "a renamed log with a BOM", where / "renamed.txt"
    text = _text(_seed_log(LOG_SEED))
    (where / "damaged-first.txt").write_text("V1125 15:42:40.7770" + text.split("\n", 1)[1], encoding="utf-8")
    yield "a renamed log with a damaged first line", where / "damaged-first.txt"
    (where / "dedicated_log_torch_trace_long.log").write_bytes(b"V" + b"x" * (70 << 20))
    yield "a 70 MB line", where / "dedicated_log_torch_trace_long.log"
    unreadable = where / "unreadable.json"
    unreadable.write_bytes(MERGED_SEED.read_bytes()[:100])
    unreadable.chmod(0)
    yield "a file without read permission", unreadable


# -- running ---------------------------------------------------------------------------------------------------
class Hang(Exception):
    pass


def _alarm(signum, frame):  # noqa: ANN001 - a signal handler
    raise Hang(f"still running after {CASE_SECONDS} s")


def run_case(name: str, path: Path, out: Path) -> dict:
    from tracers.__main__ import main

    stdout, stderr = io.StringIO(), io.StringIO()
    result: dict = {"case": name, "path": path.name}
    signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(CASE_SECONDS)
    try:
        with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
            result["status"] = main(["report", str(path), "--out", str(out)])
    except BaseException as error:  # noqa: BLE001 - whatever escapes is the finding
        result["status"] = None
        result["escaped"] = "".join(traceback.format_exception_only(error)).strip()[-600:]
        result["where"] = traceback.format_exc()[-1500:]
    finally:
        signal.alarm(0)
    err = stderr.getvalue()
    result["stderr"] = err[-800:]
    result["said"] = "\n".join(line for line in err.splitlines() if line.startswith("report:"))[:3000]
    result["traceback"] = "Traceback (most recent call last)" in err
    shown = err + "".join(TAG.sub(" ", page.read_text(encoding="utf-8", errors="replace"))
                          for page in out.glob("*.html"))
    result["negative"] = sorted(set(NEGATIVE.findall(shown)))[:5]
    result["negative_durations"] = _negative_durations(out)
    result["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024
    return result


def _negative_durations(out: Path) -> int:
    """Events with a negative or non-finite duration in the trace files report wrote."""
    bad = 0
    for written in out.glob("*.json"):
        try:
            data = json.loads(written.read_text(encoding="utf-8"))
        except ValueError:
            return -1  # a file it wrote that does not parse: as bad
        for event in data.get("traceEvents", []):
            dur = event.get("dur")
            if dur is not None and not (isinstance(dur, (int, float)) and 0 <= dur < float("inf")):
                bad += 1
    return bad


def cases(where: Path, seed: int, count: int) -> Iterator[tuple[str, Path]]:
    rng = random.Random(seed)
    log_seed, rank_seeds = _seed_log(LOG_SEED), [_seed_log(path) for path in RANK_SEEDS]
    makers: list[tuple[str, Callable[[], tuple[str, str | bytes]], str]] = [
        ("trace", lambda: json_case(rng, TRACE_SEEDS[0]), "trace.json"),
        ("trace", lambda: json_case(rng, TRACE_SEEDS[0]), "trace.json"),
        ("payloads", lambda: json_case(rng, TRACE_SEEDS[1]), "trace.json"),
        ("merged", lambda: json_case(rng, MERGED_SEED), "run-cpu-cold-ranks.json"),
        ("merged", lambda: json_case(rng, MERGED_SEED), "run-cpu-cold-ranks.json"),
        ("log", lambda: log_case(rng, log_seed), "dedicated_log_torch_trace_x.log"),
        ("log", lambda: log_case(rng, log_seed), "dedicated_log_torch_trace_x.log"),
        ("log", lambda: log_case(rng, log_seed), "dedicated_log_torch_trace_x.log"),
        ("ranks", lambda: log_case(rng, rank_seeds[0]), ""),
    ]
    for number in range(count):
        kind, make, name = makers[number % len(makers)] if number % 7 else (
            ("payloads", lambda: json_case(rng, TRACE_SEEDS[1]), "trace.json") if number % 14 else makers[0])
        what, data = make()
        case = where / f"{number:03d}"
        case.mkdir()
        raw = data if isinstance(data, bytes) else data.encode("utf-8", "surrogatepass")
        if kind == "ranks":  # one rank's log mutated beside the other's, read as a directory
            (case / "dedicated_log_torch_trace_rank_0_a.log").write_bytes(raw)
            (case / "dedicated_log_torch_trace_rank_1_b.log").write_text(_text(rank_seeds[1]), encoding="utf-8")
            path = case
        else:
            path = case / name
            path.write_bytes(gzip.compress(raw) if kind == "log" and number % 5 == 0 else raw)
            if kind == "log" and number % 5 == 0:
                path = path.rename(path.with_name(name + ".gz"))
        yield f"{number:03d} {kind} {what}", path
    special = where / "special"
    special.mkdir()
    yield from special_cases(special)


def main(argv: list[str]) -> int:
    where = Path(argv[0])
    seed = int(argv[1]) if len(argv) > 1 else 26
    count = int(argv[2]) if len(argv) > 2 else 300
    os.chdir(where)  # the current directory is an allowed source root: the cases' own, not the repository
    for number, (name, path) in enumerate(cases(where, seed, count)):
        out = where / "out" / f"{number:03d}"
        print(json.dumps(run_case(name, path, out)), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

"""Hostile inputs for ``report``: seeded mutations of small real traces and TORCH_TRACE logs, and special files.

``python -m tests.hostile OUT_DIR [SEED] [COUNT]`` makes the cases, runs ``report`` (or ``merge``) on each in this one
process (a per-case alarm as the hang detector) and prints one JSON line per case: its name, the exit status, what
went wrong (an exception escaping, a traceback printed, a negative time on the page, an escape sequence from the
input on the terminal, the input written over) and the process's peak RSS after it.
tests/tracers/torchlogs/test_hostile_input.py runs it, with a seed that changes each run, and checks the lines.

Round 2 (issue 44) adds: escape sequences in every string, wrong types where the readers expect lists and
dicts, lone surrogates, numbers of thousands of digits, torch versions that are paths, gzip bombs and floods of
blank or junk lines (read under low bounds, set below), a JSON of millions of empty lists, kernel files (/proc),
a FIFO as the site's version marker, a log appended while it is read, and a page that would overwrite its input.
Round 3: ``merge`` on mutated rank traces, hosts whose clocks are decades apart (merged, and a merge read back),
and file names and typed paths holding escape sequences."""

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
import shutil
import signal
import socket
import sys
import threading
import time
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
RANK_TRACE_SEEDS = tuple(TRACES / "2.13.0" / f"rank_divergent-cpu-cold-rank{rank}.json" for rank in (0, 1))
FAR_WALL_NS = 1 << 62  # a wall clock read as the year 2116 beside one of 2026: the largest a trace may hold
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


# Round 2 (issue 44): what a terminal obeys, strings no UTF-8 page takes, numbers past what Python converts (a
# marker replaced by digits in the written text), versions that are paths.
ESCAPES = "\x1b]0;owned\x07\x1b[2J\x1b[31m"
DIGITS = "@@digits@@"
SWAPS_2: tuple[object, ...] = ("\ud800", "a\udc80b", ESCAPES, "x" + ESCAPES, DIGITS, 5, "x", [1], {"a": 5},
                               {"mismatches": 5}, {"cannot_give": 5, "file": ESCAPES}, {"compiled": 5},
                               {"skipped": [1]}, "../../../../tmp", "/etc", "2.13.0/../../..", [[[]]])
# Fields that make an event what it is: poisoned, it is no longer one, and nothing of it is printed.
STRUCTURAL = frozenset({"ph", "cat", "s", "stage", "kind", "has_payload", "format_version"})
INFO_FIELDS = ("from_log", "totals_check", "runtime", "process", "rank", "command", "warnings", "targets_hooked",
               "targets_missing", "torch_version", "error", "status", "calls_served", "calls_eager")
# The bounds the cases are read under: low, so that each bomb stops within a second or two.
BOUNDS = {"TRACERS_MAX_READ_BYTES": "30M", "TRACERS_MAX_READ_SECONDS": "5"}


def poison(value: object, rng: random.Random | None = None, key: object = None) -> object:
    """Escape sequences appended to the strings of a JSON value (each with probability 1/2 given ``rng``, else all)."""
    if isinstance(value, str):
        return value + ESCAPES if key not in STRUCTURAL and (rng is None or rng.random() < 0.5) else value
    if isinstance(value, dict):
        return {k: poison(v, rng, k) for k, v in value.items()}
    if isinstance(value, list):
        return [poison(item, rng, key) for item in value]
    return value


def with_digits(text: str) -> str:
    return text.replace(f'"{DIGITS}"', "9" * 5000)


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
    kind = rng.choice(("truncate", "flip", "swap", "swap", "swap", "cycle", "cycle", "time", "time", "version",
                       "escapes", "types", "types", "swap2", "release"))
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
    elif kind == "escapes":
        data, what = poison(data, rng), "in strings"
    elif kind == "swap2":  # a round-2 value anywhere
        container, key = rng.choice(list(_slots(data)))
        container[key] = copy.deepcopy(rng.choice(SWAPS_2))
        what = f"{str(key)[:20]}={ascii(container[key])[:20]}"
    elif kind in ("types", "release"):  # a run fact the readers use, of the wrong type (or a version that is a path)
        info = _info_of(data)
        field = "torch_version" if kind == "release" else rng.choice(INFO_FIELDS)
        value = rng.choice(("../../../../tmp", "/tmp", "2.13.0/../..", "\ud800", ESCAPES)) if kind == "release" \
            else copy.deepcopy(rng.choice(SWAPS_2))
        if isinstance(info.get(field), dict) and info[field] and rng.random() < 0.6:  # a key inside it
            inner = rng.choice(list(info[field]))
            info[field][inner] = value
            field = f"{field}.{inner}"
        else:
            info[field] = value
        what = f"{field}={ascii(value)[:20]}"
    else:
        info = data["otherData"].get("torch_compile_walkthrough") or data["otherData"].get(
            "torch_compile_walkthrough_ranks")
        info["format_version"] = rng.choice(("1", 1.0, None, 2 ** 70, -1, True))
        what = repr(info["format_version"])
    return f"{kind}:{what}", with_digits(dumps(data)).encode("utf-8", "surrogatepass")


def _info_of(data: dict) -> dict:
    other = data.setdefault("otherData", {}) if isinstance(data, dict) else {}
    found = other.get("torch_compile_walkthrough") or other.get("torch_compile_walkthrough_ranks")
    if isinstance(found, dict):
        # a merged trace keeps each rank's facts below its own
        ranks = found.get("ranks")
        if isinstance(ranks, list) and ranks and isinstance(ranks[0], dict) and isinstance(ranks[0].get("info"), dict):
            return ranks[0]["info"]
        return found
    return {}


def _chromium(records: list) -> list[int]:
    return [index for index, (_, metadata, payload) in enumerate(records) if "chromium_event" in metadata and payload]


def log_case(rng: random.Random, seed: list) -> tuple[str, str | bytes]:
    records = copy.deepcopy(seed)
    kind = rng.choice(("truncate", "flip", "meta", "meta", "payload", "payload", "order", "order", "twice",
                       "rank", "frame", "frame", "deep", "escapes", "meta2", "blanks"))
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
    if kind == "escapes":  # every string of the records and of their events
        poisoned = []
        for prefix, metadata, payload in records:
            try:
                payload = dumps(poison(json.loads(payload), rng)) if payload is not None else None
            except ValueError:
                payload = payload + ESCAPES if rng.random() < 0.3 else payload
            poisoned.append((prefix, poison(metadata, rng), payload))
        return "escapes in strings", _text(poisoned)
    if kind == "meta2":  # a round-2 value in a record's metadata
        index = rng.randrange(len(records))
        container, key = rng.choice(list(_slots(records[index][1])) or [(records[index][1], "x")])
        container[key] = copy.deepcopy(rng.choice(SWAPS_2))
        return f"meta2:{str(key)[:20]}={ascii(container[key])[:20]}", with_digits(_text(records))
    if kind == "blanks":  # runs of blank and whitespace lines between and inside records
        text = _text(records).split("\n")
        for _ in range(rng.randint(1, 5)):
            text.insert(rng.randrange(len(text)), rng.choice(("", " ", " \t ", "\r", "  \r")) * rng.randint(1, 20000))
        return "blanks", "\n".join(text)
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
    yield from round_2_special_cases(where)


def round_2_special_cases(where: Path) -> Iterator[tuple[str, Path]]:
    """Issue 44's special inputs: bombs, floods, kernel files, a page over its input, a log growing as it is read."""
    seed_text = _text(_seed_log(LOG_SEED)).encode()
    bombs = where / "bombs"
    bombs.mkdir()
    member = lambda chunk, times: gzip.compress(chunk, 9) * times  # noqa: E731 - gzip reads every member
    for name, data in (
            ("24 MB of newlines gzipped", gzip.compress(seed_text + b"\n" * 24_000_000, 9)),
            ("whitespace lines gzipped", gzip.compress(seed_text + b" \t \r\n\n  \n" * 3_000_000, 9)),
            ("a 1 GB gzip of lines", gzip.compress(seed_text, 9) + member((b"x" * 999 + b"\n") * 8192, 125)),
            ("a 1 GB gzip of NULs", member(b"\0" * (8 << 20), 125)),
            ("a gzip of junk lines", gzip.compress(seed_text, 9) + member(b"V" * 150 + b"\n", 1) * 1
             + member((b"V1125 junk " * 20 + b"\n") * 50_000, 40))):
        path = bombs / f"dedicated_log_torch_trace_{len(list(bombs.iterdir()))}.log.gz"
        path.write_bytes(data)
        yield name, path
    lists = where / "lists.json"
    lists.write_bytes(b'{"traceEvents": [' + b"[]," * 1_500_000 + b"[]]}")
    yield "a JSON of millions of empty lists", lists
    for name, target in (("kmsg.json", "/proc/kmsg"), ("dedicated_log_torch_trace_status.log", "/proc/self/status"),
                         ("status.json", "/proc/self/status")):
        link = where / name
        link.symlink_to(target)
        yield f"{target} as {name}", link
    overwrite = where / "overwrite"
    overwrite.mkdir()
    shutil.copy(TRACE_SEEDS[1], overwrite / "trace.html")
    yield "overwrite: a trace named .html", overwrite / "trace.html"
    shutil.copy(MERGED_SEED, overwrite / "run-cpu-cold-ranks.html")
    yield "overwrite: a merged trace named .html", overwrite / "run-cpu-cold-ranks.html"
    growing = where / "growing"
    growing.mkdir()
    (growing / "dedicated_log_torch_trace_growing.log").write_bytes(seed_text)
    yield "growing: a log appended while it is read", growing / "dedicated_log_torch_trace_growing.log"
    yield from round_3_special_cases(where)


def round_3_special_cases(where: Path) -> Iterator[tuple[str, Path]]:
    """Issue 44's last cases: clocks far apart (merged, and read back from a merge), escape sequences in names."""
    far = where / "far-hosts"
    for rank, seed in enumerate(RANK_TRACE_SEEDS):
        data = json.loads(seed.read_text(encoding="utf-8"))
        info = data["otherData"]["torch_compile_walkthrough"]
        info["rank"]["host"] = f"host-{rank}"
        if rank:
            info["clock"]["wall_ns"] = FAR_WALL_NS
        far.mkdir(exist_ok=True)
        (far / seed.name).write_text(json.dumps(data), encoding="utf-8")
    yield "merge: hosts decades apart", far
    anchorless = where / "anchorless"
    shutil.copytree(far, anchorless)
    data = json.loads((anchorless / RANK_TRACE_SEEDS[1].name).read_text(encoding="utf-8"))
    del data["otherData"]["torch_compile_walkthrough"]["clock"]
    (anchorless / RANK_TRACE_SEEDS[1].name).write_text(json.dumps(data), encoding="utf-8")
    yield "merge: a host without a clock anchor", anchorless
    data = json.loads(MERGED_SEED.read_text(encoding="utf-8"))
    for event in data["traceEvents"]:  # rank 1 moved a century on, as a merge on far wall clocks once wrote it
        if event.get("pid") == 1 and isinstance(event.get("ts"), (int, float)):
            event["ts"] += FAR_WALL_NS / 1000
    data["ranks"][1]["shift_us"] += FAR_WALL_NS / 1000
    (where / "far-ranks.json").write_text(json.dumps(data), encoding="utf-8")
    yield "a merge placed a century apart", where / "far-ranks.json"
    named = where / "named"
    named.mkdir()
    shutil.copy(RANK_TRACE_SEEDS[0], named / RANK_TRACE_SEEDS[0].name)
    shutil.copy(RANK_TRACE_SEEDS[1], named / f"x{ESCAPES}-cpu-cold-rank1.json")
    yield "merge: escape sequences in a rank file's name", named
    yield "merge: a missing input named with escape sequences", where / f"gone{ESCAPES}"
    yield "a typed path with escape sequences", where / f"gone{ESCAPES}.json"


class _Appender(threading.Thread):
    """Appends to a file as fast as it can until stopped: a log written faster than it is read."""

    def __init__(self, path: Path, chunk: bytes):
        super().__init__(daemon=True)
        self.path, self.chunk, self.stop = path, chunk, threading.Event()

    def run(self) -> None:
        with open(self.path, "ab") as stream:
            while not self.stop.is_set() and stream.tell() < (400 << 20):
                stream.write(self.chunk)


# -- running ---------------------------------------------------------------------------------------------------
class Hang(Exception):
    pass


def _alarm(signum, frame):  # noqa: ANN001 - a signal handler
    raise Hang(f"still running after {CASE_SECONDS} s")


def run_case(name: str, path: Path, out: Path) -> dict:
    from tracers.__main__ import main

    stdout, stderr = io.StringIO(), io.StringIO()
    result: dict = {"case": name, "path": path.name}
    before = _digest(path)
    if name.startswith("overwrite:"):
        out = path.parent  # no --out of its own: where the page would go by default
    appender = _Appender(path, _text(_seed_log(LOG_SEED)).encode()) if name.startswith("growing:") else None
    if appender:
        appender.start()
    started = time.monotonic()
    signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(CASE_SECONDS)
    listed = _listings(path)
    if " merge-named " in name:  # merged where its name says (no --out): nothing may land outside the case's folder
        argv = ["merge", str(path)]
    elif _merges(name):  # rank traces, or a directory of them: merged, the merge's trace and page into ``out``
        out.mkdir(parents=True, exist_ok=True)
        argv = ["merge", str(path), "--out", str(out / "run-cpu-cold-ranks.json")]
    else:
        argv = ["report", str(path), "--out", str(out)]
    try:
        with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
            result["status"] = main(argv)
    except BaseException as error:  # noqa: BLE001 - whatever escapes is the finding
        result["status"] = None
        result["escaped"] = "".join(traceback.format_exception_only(error)).strip()[-600:]
        result["where"] = traceback.format_exc()[-1500:]
    finally:
        signal.alarm(0)
        if appender:
            appender.stop.set()
            appender.join()
    result["seconds"] = round(time.monotonic() - started, 2)
    result["input_changed"] = before is not None and _digest(path) != before
    result["outside"] = sorted(str(entry) for entry in _listings(path) - listed
                               if entry.parent != path and entry != out.parent and not entry.is_relative_to(out))
    err = stderr.getvalue()
    said_all = err + stdout.getvalue()  # the page path merge and report print on stdout too (issue 52)
    result["escape"] = "\x1b" in said_all or "\x07" in said_all  # no terminal here: no colour of ours either
    result["stderr"] = err[-800:]
    result["said"] = "\n".join(_said(err))[:3000]
    result["traceback"] = "Traceback (most recent call last)" in err
    shown = err + "".join(TAG.sub(" ", page.read_text(encoding="utf-8", errors="replace"))
                          for page in out.glob("*.html"))
    result["negative"] = sorted(set(NEGATIVE.findall(shown)))[:5]
    result["negative_durations"] = _negative_durations(out)
    result["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024
    return result


def _merges(name: str) -> bool:
    """Whether a case is run by ``merge`` (its name says so), not ``report``."""
    return name.startswith("merge:") or name[:3].isdigit() and name.split(" ")[1:2] == ["merge"]


def _digest(path: Path) -> str | None:
    """A regular file's md5 (None for anything else): whether report wrote over its input."""
    try:
        if not path.is_file() or path.is_symlink() or path.name.startswith("dedicated_log_torch_trace_growing"):
            return None
        if path.stat().st_size > 100 << 20:  # a sparse file of gigabytes: its size and time of change will do
            return f"{path.stat().st_size}:{path.stat().st_mtime_ns}"
        return hashlib.md5(path.read_bytes()).hexdigest()
    except OSError:
        return None


def _said(err: str) -> list[str]:
    """The command's own lines: ``report:``/``merge:`` ones, and the notes listed under a warning that ends in ``:``."""
    said: list[str] = []
    listing = False  # inside the notes under ``report: warning: how the logs were read:``
    for line in err.splitlines():
        if line.startswith(("report:", "merge:")):
            said.append(line)
            listing = line.startswith("report: warning:") and line.endswith(":")
        elif listing and line.startswith("  "):
            said.append(line)
        else:
            listing = False
    return said


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


# What a trace's device or cache mode may say, where a merge builds its file's name from them (issue 52).
NAME_WORDS = ("cold/../../../escaped", "../../..", "..", "/abs/x", "cpu\x1b]0;owned\x07", "a\nb", "C:\\x\\..\\y",
              "x" * 400, "", ".hidden", "warm/../../ranks")


def named_ranks_case(rng: random.Random) -> tuple[str, str]:
    """The two rank traces with a device and a cache mode chosen from NAME_WORDS (a JSON list of the two texts)."""
    device, cache = rng.choice(NAME_WORDS), rng.choice(NAME_WORDS)
    texts = []
    for seed in RANK_TRACE_SEEDS:
        data = json.loads(seed.read_text(encoding="utf-8"))
        data["otherData"]["torch_compile_walkthrough"].update(device=device, cache_mode=cache)
        texts.append(json.dumps(data))
    return f"device {device!r}, cache {cache!r}", json.dumps(texts)


def _listings(path: Path) -> set[Path]:
    """The traces and pages in the case's folder and the two above it (the run's own, and the one it sits in): where a
    name that climbs would land. Other processes' temporary files further up are no business of this check."""
    found: set[Path] = set()
    for folder in (path, *list(path.parents)[:2]):
        with contextlib.suppress(OSError):
            found.update(entry for entry in folder.iterdir() if entry.suffix in (".json", ".html"))
    return found


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
        ("merge", lambda: json_case(rng, RANK_TRACE_SEEDS[1]), RANK_TRACE_SEEDS[1].name),
        ("merge-named", lambda: named_ranks_case(rng), ""),
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
        elif kind == "merge":  # one rank's trace mutated beside the other's, merged
            (case / name).write_bytes(raw)
            shutil.copy(RANK_TRACE_SEEDS[0], case / RANK_TRACE_SEEDS[0].name)
            path = case
        elif kind == "merge-named":  # both ranks' traces name their device and cache mode as given, merged in place
            for seed, text in zip(RANK_TRACE_SEEDS, json.loads(raw)):
                (case / seed.name).write_text(text, encoding="utf-8", errors="surrogatepass")
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
    for name, value in BOUNDS.items():
        os.environ.setdefault(name, value)
    # the per-user walkthrough cache holds a site for the reference release whose version marker is a FIFO: every
    # trace of that release looks there for its chapter links, and must not wait on it
    cache = where / "cache"
    marker_site = cache / "site" / "2.13.0"
    marker_site.mkdir(parents=True)
    os.mkfifo(marker_site / "torch-compile-walkthrough.json")
    (marker_site / "index.html").write_text("<html></html>", encoding="utf-8")
    os.environ["TORCH_WALKTHROUGH_CACHE"] = str(cache)
    for number, (name, path) in enumerate(cases(where, seed, count)):
        out = where / "out" / f"{number:03d}"
        print(json.dumps(run_case(name, path, out)), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

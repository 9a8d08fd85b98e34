"""A log's records split into runs where another process starts compiling again: two logs concatenated in one file,
told apart by the process id torch writes on each record, not taken for a program that reset Dynamo."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from tracers.tracefile.torch_records import compile_id_of, record_name

from .records import Record, loads

# Records of another id held while it is not known whether they start a run: an older torch writes the thread's id
# there, not the process's, and a backward compiled in autograd's thread is the same run. Past this many, they are.
MAX_HELD = 10_000
_FRAME_STARTS = frozenset({"dynamo", "entire_frame_compile"})  # the regions convert.py reads as a frame's compile


@dataclass
class RunStart:
    """Where a run after the first begins: its process id (the first run's is its records')."""

    pid: int


def with_runs(records: Iterable[Record]) -> Iterator[Record | RunStart]:
    """The records, with a ``RunStart`` before each run after the first: where the records' id changes and the new
    id's records start a frame compile the run has had already (torch numbered its compiles from 0/0 again)."""
    pid = 0
    started: set[str] = set()  # compile ids of this run's dynamo_start records
    held: list[Record] = []
    for record in records:
        if not pid or not record.pid or record.pid == pid:  # the common case, kept cheap: most logs have one pid
            pid = pid or record.pid
            if held:
                yield from _through(held, started)
            if "dynamo_start" in record.metadata:
                _note(record, started)
            yield record
            continue
        held.append(record)
        restarted = _frame_start(record)
        if restarted is not None and restarted in started:
            yield RunStart(record.pid)
            pid, started = record.pid, set()
            yield from _through(held, started)
        elif restarted is not None or len(held) > MAX_HELD:
            yield from _through(held, started)  # another thread of this run, compiling a frame of its own
    yield from _through(held, started)


def _through(held: list[Record], started: set[str]) -> Iterator[Record]:
    """Held records passed on, their frame compiles noted; the list is emptied."""
    for record in held:
        if "dynamo_start" in record.metadata:
            _note(record, started)
        yield record
    held.clear()


def _note(record: Record, started: set[str]) -> None:
    compile_id = compile_id_of(record.metadata)
    if compile_id:
        started.add(compile_id)


def _frame_start(record: Record) -> str | None:
    """The compile id of a frame compile this record starts (dynamo_start, or torch's region around it), else None."""
    name = record_name(record.metadata)
    if name == "dynamo_start":
        return compile_id_of(record.metadata)
    if name != "chromium_event" or not record.payload:
        return None
    try:
        event = loads(record.payload)
    except (ValueError, RecursionError):
        return None
    if not isinstance(event, dict) or event.get("ph") not in ("B", "X") or event.get("name") not in _FRAME_STARTS:
        return None
    compile_id = (event.get("args") or {}).get("compile_id") if isinstance(event.get("args"), dict) else None
    return str(compile_id) if compile_id not in (None, "None") else None

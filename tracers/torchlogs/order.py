"""A log's records put back in time order, for a log whose timed regions were found out of order."""

from __future__ import annotations

import json
import math
from collections.abc import Iterable

from tracers.tracefile.torch_records import record_name

from .records import Record


def in_time_order(records: Iterable[Record]) -> list[Record]:
    """Every record, sorted by the time of the region of torch's it is or follows: a region's own records (its
    graph, its guards) keep their place after it, and records of one time keep the order the log had.

    Holds the whole log's records at once: only for a log that needs it (the converter found it out of order)."""
    keyed: list[tuple[float, int, Record]] = []
    current = -math.inf
    for index, record in enumerate(records):
        if record_name(record.metadata) == "chromium_event":
            stamp = _stamp(record.payload)
            if stamp is not None:
                current = stamp
        keyed.append((current, index, record))
    keyed.sort(key=lambda item: item[:2])
    return [record for _, _, record in keyed]


def _stamp(payload: str | None) -> float | None:
    """The time of a begin, end or instant event (a complete event is stamped with its start, long before it was
    logged: it stays where the log put it)."""
    try:
        event = json.loads(payload or "{}")
    except (ValueError, RecursionError):
        return None
    ts = event.get("ts") if isinstance(event, dict) else None
    if event.get("ph") == "X" if isinstance(event, dict) else True:
        return None
    if isinstance(ts, (int, float)) and not isinstance(ts, bool) and math.isfinite(ts):
        return float(ts)
    return None

"""Which files of a path are TORCH_TRACE logs, and which rank wrote each (from torch's own file names)."""

from __future__ import annotations

import errno
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from tracers.vocabulary.reading import ReadError

# torch names each process's log ``dedicated_log_torch_trace_[rank_<N>_]<random>.log`` (LOG_PREFIX and the
# rank suffix in torch/_logging/_internal.py, LazyTraceHandler); users often gzip them when collecting, and
# collected logs are often renamed without the random part (``…_rank_3.log``, as tlparse's own inputs are).
LOG_NAME = re.compile(r"^dedicated_log_torch_trace_(?:rank_(?P<rank>\d+)(?=[_.]))?.*\.log(?:\.gz)?$")
# What ``report`` writes beside the logs: never counted as foreign on the next run.
_OWN_OUTPUT = re.compile(r"^(dedicated_log_torch_trace_.*|.*-ranks)\.(json|html)$")


@dataclass(frozen=True)
class LogFile:
    path: Path
    rank: int | None  # from the file name; it wins over the records' own ``rank`` field (a disagreement is reported)


@dataclass(frozen=True)
class Found:
    logs: tuple[LogFile, ...]
    foreign: tuple[str, ...]  # names in the directory that are not torch's logs (nor our own outputs)


def rank_in_name(name: str) -> int | None:
    match = LOG_NAME.match(name)
    return int(match["rank"]) if match and match["rank"] is not None else None


def is_log_name(name: str) -> bool:
    return LOG_NAME.match(name) is not None


_RENAMED = re.compile(r"\.log(?:\.gz)?$")  # a log renamed when collected keeps, at least, its extension


def find_logs(directory: Path, holds_records: Callable[[Path], bool] | None = None) -> Found:
    """The logs directly inside ``directory`` (torch writes them there, one per process), by rank then name: by
    torch's file name, or, with ``holds_records``, any other ``.log`` file that it says holds TORCH_TRACE records (a
    renamed log, whose rank its records give). Raises ReadError (one line) for a directory that cannot be listed or
    searched (no read or execute permission)."""
    logs, foreign = [], []
    try:
        children = sorted(directory.iterdir())
        for child in children:
            if child.is_file() and is_log_name(child.name):
                logs.append(LogFile(child, rank_in_name(child.name)))
            elif holds_records is not None and _RENAMED.search(child.name) and child.is_file() and \
                    holds_records(child):
                logs.append(LogFile(child, None))
            elif not _OWN_OUTPUT.match(child.name):
                foreign.append(child.name + ("/" if child.is_dir() else ""))
    except OSError as error:
        why = "permission denied" if error.errno in (errno.EACCES, errno.EPERM) else error.strerror or str(error)
        raise ReadError(f"{directory}: cannot read this directory of logs: {why} (it needs read and execute "
                        "permission)") from None
    logs.sort(key=lambda log: (log.rank is None, log.rank or 0, log.path.name))
    return Found(tuple(logs), tuple(foreign))

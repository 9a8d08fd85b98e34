"""Trace file names, the only place they are spelt: made, parsed, found on disk and claimed for one run."""

# ``<run>-<device>-<cache>.json`` for one process; ``…-rank<N>.json`` for one rank of a distributed run,
# ``…-pid<P>.json`` for a child process that is no rank; ``…-ranks.json`` / ``…-processes.json`` for a merge.
# ``<run>`` is the script's stem or module name, made distinct (``mlp.2``) while another run holds it.
# A merge of torch's own TORCH_TRACE logs has no device or cache of ours: ``<run>-ranks.json``.

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass
from pathlib import Path

from tracers.vocabulary.releases import public_version, release_key

from .name_claims import claim, release

DEVICES = ("cpu", "cuda")
CACHE_MODES = ("cold", "warm")
MERGED_KINDS = ("ranks", "processes")

_PATTERN = re.compile(
    rf"^(?P<run>.+?)-(?P<device>{'|'.join(DEVICES)})-(?P<cache>{'|'.join(CACHE_MODES)})"
    rf"(?:-rank(?P<rank>\d+)|-pid(?P<pid>\d+)|-(?P<merged>{'|'.join(MERGED_KINDS)}))?\.json$")


@dataclass(frozen=True)
class TraceName:
    """What a trace file's name says: the run, the device it really used, the cache mode, and whose trace."""

    run: str
    device: str
    cache: str
    rank: int | None = None  # one rank of a distributed run
    pid: int | None = None  # a child process of a traced run that is no rank
    merged: str | None = None  # "ranks" or "processes": several traces on one timeline

    @property
    def file_name(self) -> str:
        """One file name, never a path: every part read from a trace or a log is a known word or made safe."""
        if self.rank is not None:
            suffix = f"-rank{int(self.rank) % 10 ** 12}"  # a rank or pid of more digits is no process's
        elif self.pid is not None:
            suffix = f"-pid{int(self.pid) % 10 ** 12}"
        else:
            suffix = f"-{self.merged}" if self.merged in MERGED_KINDS else ""
        return (f"{safe_part(self.run)}-{safe_part(self.device, WORD_BYTES)}-{safe_part(self.cache, WORD_BYTES)}"
                f"{suffix}.json")

    def renamed(self, run: str) -> TraceName:
        return dataclasses.replace(self, run=run)


# A part of a file name taken from input (a trace's device or cache mode, a run or directory name) keeps only these:
# no separator, no drive, no control character, so the name it makes is one entry of the folder it is written in.
_UNSAFE_PART = re.compile(r"[^\w .+=@-]")  # letters and digits of any script kept
# Bytes of each part, so that a whole name, its claim file's included, stays within a file system's 255.
RUN_BYTES, WORD_BYTES = 140, 32


def safe_part(text: str, limit: int = RUN_BYTES) -> str:
    """``text`` as one part of a file name: any other character is ``_``, no leading dot (no ``..``, no hidden
    file), at most ``limit`` bytes of UTF-8; never empty."""
    part = _UNSAFE_PART.sub("_", str(text)).encode()[:limit].decode(errors="ignore").strip(" ").lstrip(".")
    return part or "_"


class OutsideFolder(ValueError):
    """A path built from input that would not land directly in the folder chosen for it."""


def inside(directory: Path, file_name: str) -> Path:
    """``directory / file_name``, checked to be an entry of ``directory`` itself (not above it, not below it):
    every write of a name built from input goes through here. Raises OutsideFolder otherwise."""
    # One plain entry: no separator, not . or .. (a link of that name is replaced by the atomic rename, never
    # written through, so the entry itself is what must be checked).
    if file_name in ("", ".", "..") or "/" in file_name or "\0" in file_name or Path(file_name).name != file_name:
        raise OutsideFolder(f"{file_name!r} is not a file name inside {directory}")
    return directory / file_name


def parse(file_name: str) -> TraceName | None:
    """The parts of a file name this module made; None for any other name."""
    match = _PATTERN.match(file_name)
    if match is None:
        return None
    rank, pid = match["rank"], match["pid"]
    return TraceName(match["run"], match["device"], match["cache"], int(rank) if rank else None,
                     int(pid) if pid else None, match["merged"])


def run_name(script: str, module: bool = False) -> str:
    """What a run's files are named after: the script's stem, or the module's dotted name."""
    return script if module else Path(script).stem


def logs_merged_file_name(name: str) -> str:
    """The merge of a directory of TORCH_TRACE logs: named after the directory, with no device or cache of ours."""
    return f"{safe_part(name)}-{MERGED_KINDS[0]}.json"


def is_rank_file(path: Path) -> bool:
    name = parse(path.name)
    return name is not None and name.rank is not None


def rank_files(directory: Path) -> list[Path]:
    """The one-rank traces in a directory, by name."""
    return sorted(path for path in directory.iterdir() if path.is_file() and is_rank_file(path))


def process_files(directory: Path) -> list[Path]:
    """The traces of whole single-process runs in a directory (no rank, child process or merge), by name."""
    names = ((path, parse(path.name)) for path in directory.iterdir() if path.is_file())
    return sorted(path for path, name in names
                  if name is not None and name.rank is None and name.pid is None and name.merged is None)


def claim_name(directory: Path, name: TraceName, started: float) -> TraceName:
    """``name``, or ``name`` with its run made distinct when another run holds that file (tracefile/claim.py);
    claimed for this process until ``release_name``."""
    return name.renamed(claim(directory, name.run, lambda run: name.renamed(run).file_name, started))


def release_name(directory: Path, name: TraceName) -> None:
    release(directory / name.file_name)


# -- the site's recordings: <root>/<device>/<release>/<file name> ------------------------------------------------

@dataclass(frozen=True)
class Recording:
    device: str
    release: str  # the folder it was filed under
    path: Path


def find_recording(root: Path, name: TraceName, reference: str, prefer: str | None = None) -> Recording | None:
    """``prefer``'s recording of ``name`` (the release a site is built for) if there is one, else the reference's,
    else the newest release that has one."""
    device_dir = root / name.device
    if not device_dir.is_dir():
        return None
    file_name = name.file_name
    releases = [folder.name for folder in device_dir.iterdir() if (folder / file_name).is_file()]
    if not releases:
        return None
    wanted = [public_version(prefer)] if prefer else []
    release_found = next((r for r in [*wanted, public_version(reference)] if r in releases), None) \
        or max(releases, key=release_key)
    return Recording(name.device, release_found, device_dir / release_found / file_name)


def recording_pattern(root: Path, name: TraceName, devices: tuple[str, ...] = ()) -> str:
    """Where ``find_recording`` looked, for an error message: ``docs/_traces/{cpu,cuda}/<release>/mlp-<device>-cold.json``."""
    where = f"{{{','.join(devices)}}}" if devices else name.device
    shown = name.file_name if not devices else name.file_name.replace(f"-{name.device}-", "-<device>-", 1)
    return f"{root}/{where}/<release>/{shown}"


def parse_side(text: str) -> tuple[str, str]:
    """``cuda/warm`` -> ``("cuda", "warm")``; raises ValueError naming the choices."""
    device, _, cache = text.strip().partition("/")
    if device not in DEVICES or cache not in CACHE_MODES:
        raise ValueError(f"{text.strip()!r} is not DEVICE/CACHE: DEVICE one of {', '.join(DEVICES)}, "
                         f"CACHE one of {', '.join(CACHE_MODES)} (e.g. cuda/cold)")
    return device, cache


# -- a traced run's children drop their traces in a private folder, named by pid until the parent names them ------

def child_file(pid: int, started: bool = False) -> str:
    """``pid<P>.json``, the child's trace; ``pid<P>.started``, the note that it began tracing."""
    return f"pid{pid}.started" if started else f"pid{pid}.json"


def child_pid(path: Path) -> int | None:
    """The pid in a ``child_file`` name, or None."""
    digits = path.stem.removeprefix("pid")
    return int(digits) if path.stem.startswith("pid") and digits.isdigit() else None

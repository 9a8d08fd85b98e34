"""The saved recording: what each tool showed and cost on one example, as JSON under docs/_toolbox/<torch>/."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from pathlib import Path

from tracers.tracefile.atomic import write_text_atomic
from tracers.tracefile.scrub import scrub

from .detect import Evidence

FORMAT_VERSION = 1
TOOLBOX_DIR = Path("docs/_toolbox")
LISTED_FILES = 25  # files named per tool; the rest are counted


class RecordingError(Exception):
    """A recording that cannot be read; the message is one line."""


@dataclass(frozen=True)
class StepCost:
    label: str
    command: str
    runs_example: bool
    exit_code: int | None
    wall_s: float
    cpu_s: float


@dataclass(frozen=True)
class ToolRecord:
    id: str
    name: str
    kind: str
    usage: str
    note: str
    status: str  # ok, failed (the error says how) or missing (not installed)
    error: str | None
    steps: tuple[StepCost, ...]
    stream_bytes: int
    file_bytes: int
    file_count: int
    files: tuple[tuple[str, int], ...]  # the first LISTED_FILES by path, with sizes
    evidence: tuple[Evidence, ...]
    versions: tuple[str, ...] = ()  # of what the tool needs beyond torch: "depyf 0.20.0"

    def shows(self, feature: str) -> Evidence | None:
        return next((item for item in self.evidence if item.feature == feature), None)

    def example_step(self) -> StepCost | None:
        return next((step for step in self.steps if step.runs_example), None)


@dataclass(frozen=True)
class Recording:
    format_version: int
    example: str
    args: tuple[str, ...]
    device: str
    device_name: str
    torch_version: str
    torch_git: str
    python: str
    platform: str
    recorded_at: str
    command: str
    features: tuple[tuple[str, str], ...]  # (id, title) in table order
    tools: tuple[ToolRecord, ...]  # the plain run first
    plain_again: StepCost | None = None  # the plain run repeated after every tool: how far timings wander

    def tool(self, tool_id: str) -> ToolRecord | None:
        return next((tool for tool in self.tools if tool.id == tool_id), None)

    @property
    def baseline(self) -> ToolRecord | None:
        return self.tool("plain")


def file_name(example: str, device: str) -> str:
    return f"{Path(example).stem}-{device}.json"


def dumps(recording: Recording, run_root: Path | None = None) -> str:
    """The recording as JSON with this machine's paths replaced (the run's scratch directory by ``<run>``)."""
    text = json.dumps(asdict(recording), indent=1, ensure_ascii=False)
    if run_root is not None:
        text = text.replace(json.dumps(str(run_root))[1:-1], "<run>")
    return scrub(text)


def save(recording: Recording, path: Path, run_root: Path | None = None) -> None:
    """Write atomically: a reader never sees half a recording."""
    write_text_atomic(path, dumps(recording, run_root) + "\n")


def load(path: Path) -> Recording:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as error:
        raise RecordingError(f"{path}: cannot read: {error.strerror or error}") from None
    except ValueError as error:
        raise RecordingError(f"{path}: not JSON ({error})") from None
    try:
        return from_dict(data)
    except (KeyError, TypeError, ValueError, AttributeError) as error:
        raise RecordingError(f"{path}: not a toolbox recording ({type(error).__name__}: {error})") from None


def from_dict(data: dict) -> Recording:
    if data.get("format_version") != FORMAT_VERSION:
        raise ValueError(f"format_version {data.get('format_version')!r}, expected {FORMAT_VERSION}")
    tools = tuple(
        ToolRecord(
            **{**tool, "steps": tuple(StepCost(**step) for step in tool["steps"]),
               "files": tuple((str(name), int(size)) for name, size in tool["files"]),
               "evidence": tuple(Evidence(**item) for item in tool["evidence"]),
               "versions": tuple(str(version) for version in tool.get("versions", ()))})
        for tool in data["tools"])
    again = data.get("plain_again")
    return Recording(**{**data, "args": tuple(data["args"]),
                        "features": tuple((str(id_), str(title)) for id_, title in data["features"]),
                        "tools": tools, "plain_again": StepCost(**again) if again else None})


def _version_key(name: str) -> tuple[int, ...]:
    return tuple(int(part) if part.isdigit() else -1 for part in name.split("."))


def find_recording(root: Path, stem: str, device: str, reference: str) -> Path | None:
    """``root/<reference>/<stem>-<device>.json``, else the same file from the newest other release."""
    name = f"{stem}-{device}.json"
    preferred = root / reference / name
    if preferred.is_file():
        return preferred
    others = sorted((path for path in root.glob(f"*/{name}") if path.is_file()),
                    key=lambda path: _version_key(path.parent.name))
    return others[-1] if others else None

"""What a traced run hands its child processes: the options and a folder for their traces, through one variable."""

from __future__ import annotations

import contextlib
import json
import os
import uuid
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from pathlib import Path

# The one variable a child reads; the bootstrap folder on PYTHONPATH holds only a sitecustomize that reads it.
ENV = "TRACERS_CHILD"
BOOTSTRAP_DIR = str(Path(__file__).resolve().parent / "bootstrap")


@dataclass(frozen=True)
class ChildSpec:
    """One traced run, as its children see it: where their traces go and the session options they share."""

    directory: str  # absolute: a child may change its working directory
    name: str  # the run's name (the script's), so the parent can name the children's files after it
    run_id: str
    started: float  # the parent's start (time.time())
    device: str = "cpu"
    cache: str = "cold"
    keep_code: bool = True
    deep_min_us: float | None = None
    lines: str | None = None
    inductor_ir: bool = False
    keep_paths: bool = False

    def to_env(self) -> str:
        return json.dumps(asdict(self), separators=(",", ":"))

    @classmethod
    def from_env(cls, text: str) -> ChildSpec:
        """Raises ValueError on a value that is not this version's spec."""
        try:
            values = json.loads(text)
            return cls(**values)
        except (TypeError, json.JSONDecodeError) as error:
            raise ValueError(f"{ENV} is not a traced run's description: {error}") from None


def new_run_id() -> str:
    return uuid.uuid4().hex[:12]


def children_dir(out: Path, run_id: str) -> Path:
    """Where one run's children write, apart from every other run's, until the parent names their files."""
    return (out / ".tracers-children" / run_id).resolve()


@contextlib.contextmanager
def children_traced(spec: ChildSpec) -> Iterator[ChildSpec]:
    """While the block runs, every Python started from this process (multiprocessing's spawn and forkserver,
    subprocess, and their children) finds the spec and traces itself; the environment is put back after.

    A sitecustomize on PYTHONPATH runs in every such Python before its main module, as coverage.py's
    process-start hook and viztracer's subprocess patch do; it arms the tracer for when the child imports
    torch, so a child that never does pays no more than reading one variable."""
    Path(spec.directory).mkdir(parents=True, exist_ok=True)
    saved = {name: os.environ.get(name) for name in (ENV, "PYTHONPATH")}
    os.environ[ENV] = spec.to_env()
    # Only the bootstrap folder goes first (it holds nothing else); the sitecustomize there finds ``tracers``.
    paths = [BOOTSTRAP_DIR, *filter(None, (saved["PYTHONPATH"] or "").split(os.pathsep))]
    os.environ["PYTHONPATH"] = os.pathsep.join(dict.fromkeys(paths))
    try:
        yield spec
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value

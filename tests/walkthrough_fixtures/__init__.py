"""Synthetic torch trees for the walkthrough tests: invented code with the shapes real drift takes."""

from __future__ import annotations

import textwrap
import zipfile
from pathlib import Path

PIPELINE = "torch/_pipeline/driver.py"
CONFIG = "torch/_pipeline/config.py"

# The baseline release. Every later variant edits this text the way real releases edit code.
DRIVER = '''\
"""An invented compiler driver."""

import functools

from torch._pipeline.base import Stage


def helper(value):
    return value + 1


@functools.lru_cache(None)
def entry(frame, options=None):
    """Compile one frame."""
    # Prepare before lowering.
    prepared = [helper(x) for x in frame]
    if options:
        prepared.append(options)
    return tuple(prepared)


def process(graph):
    nodes = list(graph)
    nodes.sort()
    seen = set()
    for node in nodes:
        seen.add(node)
    ordered = [n for n in nodes if n in seen]
    ordered.reverse()
    total = sum(ordered)
    scaled = [n * 2 for n in ordered]
    kept = [n for n in scaled if n > total % 7]
    merged = kept + ordered
    merged.sort(key=abs)
    out = {n: i for i, n in enumerate(merged)}
    return out


def legacy_step(state, budget):
    used = 0
    steps = []
    while used < budget:
        used += len(state) or 1
        steps.append(used)
    if not steps:
        raise ValueError("no budget")
    return steps


class Compiler(Stage):
    mode = "default"

    def run(self, graph):
        self.graph = graph
        return process(graph)

    @property
    def name(self):
        return "compiler<" + self.mode + ">"

    @name.setter
    def name(self, value):
        self.mode = value

    class Options:
        def merge(self, other):
            return {**vars(self), **vars(other)}


class Cache:
    def load(self, key):
        if key in self.__dict__:
            return self.__dict__[key]
        return None

    def store(self, key, value):
        self.__dict__[key] = value
'''

BASE = '''\
"""Invented base classes."""


class Stage:
    def run(self, graph):
        return list(graph)

    def describe(self):
        return type(self).__name__
'''

CONFIG_TEXT = '''\
"""Invented settings."""
import os

from torch.utils._config_module import Config

recompile_cap = 8
budget: int = 64 * 1024
verbose = False
cache_size: int = Config(default=256)
old_cap = Config(alias="torch._pipeline.config.recompile_cap")
from_env = os.environ.get("PIPELINE_X", "1") == "1"


class nested:
    flag = True
'''


def write_tree(root: Path, version: str = "1.0.0", files: dict[str, str] | None = None,
               git: str = "a" * 40) -> Path:
    """A directory holding a small torch package; ``files`` override or add paths."""
    contents = {
        "torch/__init__.py": '"""Invented torch."""\n',
        "torch/version.py": f"__version__ = '{version}+cpu'\ngit_version = '{git}'\n",
        "torch/_pipeline/__init__.py": "",
        "torch/_pipeline/base.py": BASE,
        PIPELINE: DRIVER,
        CONFIG: CONFIG_TEXT,
        **(files or {}),
    }
    for path, text in contents.items():
        target = root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(textwrap.dedent(text) if text.startswith("\n") else text)
    return root


def write_wheel(path: Path, version: str = "1.0.0", files: dict[str, str] | None = None) -> Path:
    """The same tree as a wheel (a zip), as pip would download it."""
    staging = write_tree(path.parent / f"staging-{version}", version, files)
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as wheel:
        for file in sorted(staging.rglob("*.py")):
            wheel.write(file, file.relative_to(staging).as_posix())
        wheel.writestr(f"torch-{version}.dist-info/METADATA",
                       f"Metadata-Version: 2.1\nName: torch\nVersion: {version}\n")
        # What pip reads of a wheel it downloads (the release fetch is tested with real pip, offline).
        wheel.writestr(f"torch-{version}.dist-info/WHEEL",
                       "Wheel-Version: 1.0\nGenerator: tests\nRoot-Is-Purelib: true\nTag: py3-none-any\n")
    return path


def edit(text: str, old: str, new: str) -> str:
    """Replace one exact piece of the baseline; fails loudly when the fixture drifted from the test."""
    assert text.count(old) == 1, f"fixture edit not unique: {old!r}"
    return text.replace(old, new)

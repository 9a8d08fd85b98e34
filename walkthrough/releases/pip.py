"""pip for reading a release: the user's index settings kept, constraints that cap torch left out."""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass

# Reading a release (pip download --no-deps into a cache) or filling a release's own venv is not
# installing into the user's environment, so a constraint such as ``torch<=2.14.1`` must not apply.
# pip has no option to drop a configured constraint (the option appends), so config files are
# switched off (PIP_CONFIG_FILE=os.devnull, see pip's configuration.py) and every other setting
# they held is passed on as the PIP_<NAME> environment variable pip reads the same way.
CONSTRAINT_KEYS = frozenset({"constraint", "build-constraint"})
CONSTRAINT_ENV = ("PIP_CONSTRAINT", "PIP_BUILD_CONSTRAINT")


@dataclass(frozen=True)
class PipEnvironment:
    """The environment to run pip in, and the constraints it leaves out (``value (from where)``)."""

    env: dict[str, str]
    dropped: tuple[str, ...]

    @property
    def dropped_text(self) -> str:
        return "; ".join(self.dropped)


def configured(pip: list[str], env: dict[str, str]) -> dict[str, str]:
    """pip's merged config-file settings as ``section.key -> value`` (``pip config list``; env vars excluded)."""
    try:
        result = subprocess.run([*pip, "config", "list"], capture_output=True, text=True, env=env, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return {}
    settings = {}
    for line in result.stdout.splitlines():
        name, sep, value = line.partition("=")
        if not sep or name.startswith(":env:"):
            continue
        settings[name.strip()] = value.strip().strip("'\"")
    return settings


def config_files(env: dict[str, str]) -> str:
    """Where pip's config comes from, for messages: PIP_CONFIG_FILE if set, else pip's own files."""
    return env.get("PIP_CONFIG_FILE") or "pip's config files (pip config debug lists them)"


def unconstrained(command: str = "download", pip: list[str] | None = None,
                  env: dict[str, str] | None = None) -> PipEnvironment:
    """The environment for ``pip <command>`` that keeps index, find-links, certificate and proxy settings but no constraints."""
    pip = pip or [sys.executable, "-m", "pip"]
    base = dict(os.environ if env is None else env)
    settings = configured(pip, base)
    dropped = [f"{base[name]} (from ${name})" for name in CONSTRAINT_ENV if base.get(name)]
    result = {name: value for name, value in base.items() if name not in CONSTRAINT_ENV}
    result["PIP_CONFIG_FILE"] = os.devnull
    values: dict[str, str] = {}
    for section in ("global", command):  # pip reads "global", then the command's own section (later wins)
        for name, value in settings.items():
            sec, _, key = name.partition(".")
            if sec != section:
                continue
            if key in CONSTRAINT_KEYS:
                dropped.append(f"{value} (from {name} in {config_files(base)})")
                continue
            values[key] = value
    for key, value in values.items():
        variable = "PIP_" + key.upper().replace("-", "_")
        result.setdefault(variable, value)  # a variable already set wins over config files, as in pip
    return PipEnvironment(result, tuple(dropped))

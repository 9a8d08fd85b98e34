"""A torch wheel of one build (CPU or CUDA) that runs on this machine, fetched once into the per-user cache.

Where each build comes from: CPU builds from PyTorch's CPU index, else from the user's own package sources when they
hold one (a find-links folder of +cpu wheels); CUDA builds from the user's package index, else PyPI (whose Linux
wheels of torch are CUDA builds). A wheel is taken only when its own torch/version.py says it is that build."""

from __future__ import annotations

import json
import platform
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
import urllib.error
import urllib.request
from urllib.parse import unquote

from walkthrough.releases.builds import Build, wheel_build
from walkthrough.releases.pip import unconstrained
from walkthrough.source import SourceError, _pip_reason, cache_root

CPU_INDEX = "https://download.pytorch.org/whl/cpu"
PYPI = "https://pypi.org/simple"


def build_cache(build: str) -> Path:
    """``wheels-<build>/`` in the per-user cache: runnable wheels, apart from verify's (any platform's) wheels."""
    return cache_root() / f"wheels-{build}"


def _cached(version: str, build: str) -> Path | None:
    for wheel in sorted(build_cache(build).glob(f"torch-{version}*.whl")):
        found = wheel_build(wheel)
        if found is not None and found.kind == build:
            return wheel
    return None


def _only(index: str, env: dict[str, str]) -> dict[str, str]:
    """pip's environment with one index and no other source (config files already off in ``env``)."""
    out = {key: value for key, value in env.items() if key not in ("PIP_EXTRA_INDEX_URL", "PIP_FIND_LINKS")}
    out["PIP_INDEX_URL"] = index
    return out


def sources(build: str) -> list[tuple[str, dict[str, str], list[str]]]:
    """(name, pip environment, extra options) to try for a build, in order."""
    pip = [sys.executable, "-m", "pip"]
    yours = unconstrained("download", pip).env
    if build == "cpu":
        # One quick try: where the CPU index cannot be reached, pip's default of five retries takes minutes.
        return [(f"the CPU index ({CPU_INDEX})", _only(CPU_INDEX, yours), ["--retries", "0", "--timeout", "20"]),
                ("your package sources (pip config)", yours, [])]
    return [("your package sources (pip config)", yours, []), (f"PyPI ({PYPI})", _only(PYPI, yours), [])]


def chosen_build(filename: str, requires: list[str]) -> str:
    """The build a wheel pip would pick is, from its name and requirements, before anything is downloaded: a local
    version says it (``+cpu``, ``+cu130``); else CUDA libraries among its requirements make it a CUDA build."""
    local = filename.split("-")[1].partition("+")[2] if filename.count("-") >= 2 else ""
    if local:
        return "cpu" if local == "cpu" else "cuda"
    cuda = any(req.lower().startswith(("nvidia-", "cuda-")) and _applies(req) for req in requires)
    return "cuda" if cuda else "cpu"


def _applies(requirement: str) -> bool:
    """Whether a requirement's platform marker holds here (torch's CUDA libraries are marked for Linux only)."""
    _, _, marker = requirement.partition(";")
    if "platform_system" not in marker:
        return True
    return f'platform_system == "{platform.system()}"' in marker.replace("'", '"')


def _would_pick(version: str, env: dict[str, str], options: list[str]) -> tuple[str, list[str]] | None:
    """The wheel pip would take for ``torch==version`` and its requirements (pip's dry-run report: the index's
    metadata, no download of the wheel where the index serves it); None where pip found none."""
    with tempfile.TemporaryDirectory(prefix="torch-pick-") as scratch:
        report = Path(scratch) / "report.json"
        args = [sys.executable, "-m", "pip", "install", "--dry-run", "--ignore-installed", "--no-deps", "--quiet",
                "--only-binary=:all:", "--disable-pip-version-check", *options, "--report", str(report),
                f"torch=={version}"]
        result = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
        try:
            install = json.loads(report.read_text())["install"][0]
        except (OSError, ValueError, KeyError, IndexError):
            return None
    if result.returncode != 0:
        return None
    url = install.get("download_info", {}).get("url", "")
    return unquote(url.rsplit("/", 1)[-1].split("#", 1)[0]), list(install.get("metadata", {}).get("requires_dist", []))


def _download(version: str, env: dict[str, str], options: list[str], into: Path) -> tuple[Path | None, str]:
    args = [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:", "--disable-pip-version-check",
            "--progress-bar", "off", *options, f"torch=={version}", "-d", str(into)]
    result = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
    wheels = sorted(into.glob("torch-*.whl"))
    if result.returncode != 0 or not wheels:
        return None, _unreachable(env) or _pip_reason(result.stdout)
    return wheels[0], ""


def _unreachable(env: dict[str, str]) -> str:
    """"could not be reached (why)" where the one index pip was given cannot be opened: pip then says only that it
    found no version, which reads as if the index had none."""
    index = env.get("PIP_INDEX_URL")
    if not index or env.get("PIP_EXTRA_INDEX_URL") or env.get("PIP_FIND_LINKS"):
        return ""
    try:
        with urllib.request.urlopen(f"{index.rstrip('/')}/torch/", timeout=15):  # proxies from the environment
            return ""
    except urllib.error.HTTPError:
        return ""  # it answered: pip's own reason stands
    except (OSError, ValueError) as exc:
        return f"could not be reached ({getattr(exc, 'reason', exc)})"


def runnable_wheel(version: str, build: str) -> tuple[Path, Build]:
    """The cached or fetched wheel of ``torch==version`` in ``build``; SourceError (one line) says each source tried."""
    cached = _cached(version, build)
    if cached is not None:
        return cached, wheel_build(cached)  # type: ignore[return-value]
    target = build_cache(build)
    target.mkdir(parents=True, exist_ok=True)
    tried = []
    for name, env, options in sources(build):
        print(f"fetching torch {version} ({build} build) from {name} ...", file=sys.stderr, flush=True)
        # A scratch folder per try: a wheel of the other build or a broken download never lands in the cache.
        picked = _would_pick(version, env, options)
        if picked is not None and chosen_build(*picked) != build:
            # Never fetched: a CUDA build is gigabytes with its libraries, and not what this side should run.
            tried.append(f"{name}: only {picked[0]}, a {chosen_build(*picked).upper()} build")
            continue
        with tempfile.TemporaryDirectory(dir=target, prefix=".partial-") as scratch:
            wheel, reason = _download(version, env, options, Path(scratch))
            found = wheel_build(wheel) if wheel else None
            if wheel is not None and found is not None and found.kind == build:
                final = target / wheel.name
                shutil.move(str(wheel), final)
                return final, found
            tried.append(f"{name}: {reason}" if wheel is None else
                         f"{name}: only {wheel.name}, a {found.label if found else 'unknown'} build")
    other = "cuda" if build == "cpu" else "cpu"
    raise SourceError(f"torch {version}: no {build.upper()} build could be had ({'; '.join(tried)}); compare "
                      f"{other.upper()} builds on both sides with --build {other}, or put a {build.upper()} wheel "
                      "of it where pip finds it (PIP_FIND_LINKS)")


def pip_env_for_install() -> dict[str, str]:
    """The environment that installs a release's wheel and its dependencies: the user's sources, no cap on torch."""
    return {**unconstrained("install", [sys.executable, "-m", "pip"]).env, "PIP_DISABLE_PIP_VERSION_CHECK": "1"}

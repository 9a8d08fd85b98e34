"""The wheel's size, built from the tracked files as a clean clone has them; written into RESULTS.md."""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.results import machine_line, write_section  # noqa: E402
from walkthrough.packaging import SITE, WHEEL_BUDGET  # noqa: E402


def clean_copy(destination: Path) -> None:
    """The committed tree (HEAD), as a fresh clone has it: no builds, venvs, caches or work in progress."""
    destination.mkdir(parents=True)
    archive = subprocess.run(["git", "archive", "--format=tar", "HEAD"], cwd=ROOT, capture_output=True, check=True)
    subprocess.run(["tar", "-x", "-C", str(destination)], input=archive.stdout, check=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--no-write", action="store_true", help="print only; leave RESULTS.md alone")
    args, _ = parser.parse_known_args()  # run.py hands every benchmark the same arguments
    with tempfile.TemporaryDirectory() as scratch:
        source, dist = Path(scratch) / "source", Path(scratch) / "dist"
        clean_copy(source)
        subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", str(source), "-w", str(dist)],
                       check=True)
        (wheel,) = dist.glob("*.whl")
        size = wheel.stat().st_size
        with zipfile.ZipFile(wheel) as archive:
            infos = archive.infolist()
        site = [info for info in infos if info.filename.startswith(SITE.as_posix() + "/")]
        site_bytes = sum(info.compress_size for info in site)
    commit = subprocess.run(["git", "rev-parse", "--short=12", "HEAD"], cwd=ROOT, capture_output=True, text=True,
                            check=True).stdout.strip()
    verdict = "within" if size <= WHEEL_BUDGET else "OVER"
    lines = [
        "## Wheel size",
        "",
        f"`python -m pip wheel --no-deps . -w dist` in a clean clone of `{commit}`: `{wheel.name}`, **{size / 1e6:.1f} MB** "
        f"({size:,} bytes; budget {WHEEL_BUDGET / 2**20:.0f} MB: {verdict}).",
        "",
        f"- {len(infos)} files; the site's sources (`{SITE.as_posix()}/`: conf.py and docs/, recordings included) "
        f"are {len(site)} of them, {site_bytes / 1e6:.1f} MB compressed",
        machine_line(),
        "- command: `python benchmarks/wheel_size.py`",
    ]
    text = "\n".join(lines)
    if not args.no_write:
        write_section("wheel-size", text)
    print(text)
    return 0 if size <= WHEEL_BUDGET else 1


if __name__ == "__main__":
    sys.exit(main())

"""The reference torch release (pinned here once), release numbers, and links to torch's source at a commit."""

from __future__ import annotations

import re

# The release the walkthrough is written and locked against. Every nox session installs this,
# and everything that needs "the reference" reads it from here.
REFERENCE_TORCH = "2.13.0"

TOOL_VERSION = "0.1.0"  # this package's version, as pyproject.toml declares it (a test holds them equal)

GITHUB_REPO = "https://github.com/pytorch/pytorch"


def public_version(version: str) -> str:
    """``2.13.0+cpu`` -> ``2.13.0``: builds of one release (cpu, cu126, ...) share their Python source."""
    return version.split("+", 1)[0].strip()


def release_key(release: str) -> tuple[int, ...]:
    """Order releases numerically (2.10.0 after 2.9.1); anything after the numbers is ignored."""
    match = re.match(r"\d+(?:\.\d+)*", release)
    return tuple(int(part) for part in match.group().split(".")) if match else ()


def source_url(path: str, start: int, end: int | None = None, git_sha: str = "") -> str:
    """A link to torch's source on GitHub at the exact commit, with line anchors."""
    ref = git_sha or "main"
    anchor = f"#L{start}" if end is None or end == start else f"#L{start}-L{end}"
    return f"{GITHUB_REPO}/blob/{ref}/{path}{anchor}"


if __name__ == "__main__":  # ``python -m tracers.vocabulary.releases`` prints the pin, for install scripts
    print(REFERENCE_TORCH)

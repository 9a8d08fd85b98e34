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


# A commit as git names it: 7 to 40 hex digits. A trace or a log says which commit its torch was, and anything else
# put into a link could leave torch's repository (``main/../../../../evil/repo``).
_COMMIT = re.compile(r"[0-9a-f]{7,40}")
_RELEASE_TAG = re.compile(r"[0-9]{1,4}(?:\.[0-9]{1,6}){1,3}(?:(?:a|b|rc)[0-9]{1,6})?")
# A path inside torch's tree: plain parts of safe characters, none of them . or .. (a link never climbs out of it).
_SOURCE_PATH = re.compile(r"(?:[A-Za-z0-9_][A-Za-z0-9_.+-]*/)*[A-Za-z0-9_][A-Za-z0-9_.+-]*")


def source_ref(git_sha: str, release: str = "") -> str | None:
    """What a link to torch's source points at: the commit when it is one, else the release's tag (``v2.13.0``),
    else ``main`` when no commit was recorded at all; None for a commit that is not one and no release."""
    if _COMMIT.fullmatch(git_sha or ""):
        return git_sha
    tag = public_version(release or "")
    if _RELEASE_TAG.fullmatch(tag):
        return f"v{tag}"
    return "main" if not git_sha else None


def source_url(path: str, start: int, end: int | None = None, git_sha: str = "", release: str = "") -> str:
    """A link to torch's source on GitHub at the exact commit (source_ref), with line anchors; "" when the commit
    or the path cannot be put in a link to torch's repository."""
    ref = source_ref(git_sha, release)
    if ref is None or not isinstance(path, str) or not _SOURCE_PATH.fullmatch(path) \
            or not isinstance(start, int) or (end is not None and not isinstance(end, int)):
        return ""
    anchor = f"#L{start}" if end is None or end == start else f"#L{start}-L{end}"
    return f"{GITHUB_REPO}/blob/{ref}/{path}{anchor}"


if __name__ == "__main__":  # ``python -m tracers.vocabulary.releases`` prints the pin, for install scripts
    print(REFERENCE_TORCH)

"""Facts about the running torch and machine, and the one pin of the reference torch release."""

from __future__ import annotations

import platform

# The release the walkthrough is written and locked against. Every nox session installs this,
# and everything that needs "the reference" reads it from here.
REFERENCE_TORCH = "2.13.0"

GITHUB_REPO = "https://github.com/pytorch/pytorch"


def public_version(version: str) -> str:
    """``2.13.0+cpu`` -> ``2.13.0``: traces are filed by release, not by build."""
    return version.split("+", 1)[0]


def torch_facts() -> dict[str, str]:
    """Version facts of the installed torch; imports torch (call only when it is needed anyway)."""
    import torch

    git_sha = getattr(torch.version, "git_version", "") or ""
    return {
        "torch_version": torch.__version__,
        "torch_git_sha": git_sha,
        "cuda": torch.version.cuda or "",
        "python": platform.python_version(),
        "platform": f"{platform.system()} {platform.machine()}",
    }


def device_description(device: str) -> str:
    """A human name for the device a trace ran on: the GPU's name, or the CPU's."""
    if device.startswith("cuda"):
        import torch

        return torch.cuda.get_device_name(0)
    return _cpu_model() or platform.processor() or platform.machine()


def _cpu_model() -> str:
    """The CPU's marketing name on Linux (platform.processor() is often empty there)."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as cpuinfo:
            for line in cpuinfo:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return ""


def source_url(path: str, start: int, end: int | None = None, git_sha: str = "") -> str:
    """A link to torch's source on GitHub at the exact commit, with line anchors."""
    ref = git_sha or "main"
    anchor = f"#L{start}" if end is None or end == start else f"#L{start}-L{end}"
    return f"{GITHUB_REPO}/blob/{ref}/{path}{anchor}"


if __name__ == "__main__":  # ``python -m tracers.capture.env`` prints the pin, for install scripts
    print(REFERENCE_TORCH)

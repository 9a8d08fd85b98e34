"""Facts about the running torch and machine, for a trace's header (torch is imported only when they are asked for)."""

from __future__ import annotations

import platform


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
    return cpu_model() or platform.processor() or platform.machine()


def cpu_model() -> str:
    """The CPU's marketing name on Linux (platform.processor() is often empty there)."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as cpuinfo:
            for line in cpuinfo:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return ""


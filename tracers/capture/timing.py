"""The traced run's part of ``--vs-eager`` and ``--profile``: calls timed, a profiler window, kept in ``RunInfo.runtime``."""

from __future__ import annotations

from typing import Any

from tracers.tracefile.events import RunInfo
from tracers.tracefile.speed import COMPILED, SpeedRecord

from .calls import TARGET
from .profile_window import ProfileWindow
from .speed import CallTimer, CompileProbe


class Timing:
    """Installed with the session's hooks, removed with them; writes ``info.runtime`` when it stops."""

    def __init__(self, profile: bool):
        self.probe = probe = CompileProbe(TARGET)  # the session adds it to its recorder's listeners
        self.window = ProfileWindow() if profile else None
        self.timer = CallTimer(COMPILED, probe, self.window)
        self._kernel_profile: Any = None  # Inductor's C++ kernel profiling switch, as it was

    def start(self) -> None:
        if self.window is not None:
            # C++ kernels then open a record_function each, so the profiler names them (a Triton launch always does).
            import torch._inductor.config as inductor_config

            self._kernel_profile = inductor_config.cpp.enable_kernel_profile
            inductor_config.cpp.enable_kernel_profile = True
        self.timer.install()

    def stop(self, info: RunInfo) -> None:
        self.timer.uninstall()
        notes: list[str] = []
        if self.window is not None:
            import torch._inductor.config as inductor_config

            inductor_config.cpp.enable_kernel_profile = self._kernel_profile
            self.window.stop(self.timer._functions)
            notes = self.window.notes
        record = SpeedRecord(self.timer.result(), None, tuple(self.window.profiles) if self.window else (),
                               "; ".join(notes) or None)
        info.runtime = record.as_json()

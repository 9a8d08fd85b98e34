"""The traced run's part of ``--vs-eager`` and ``--profile``: calls timed, a profiler window, kept in ``RunInfo.runtime``."""

from __future__ import annotations

from typing import Any

from tracers.tracefile.events import Trace
from tracers.tracefile.speed import COMPILED, SpeedRecord

from .calls import TARGET
from .profile_window import ProfileWindow
from .speed import CallTimer, CompileProbe


class CallTiming:
    """A session's collector (capture/collector.py): the call timings and profile window, written to
    ``info.runtime`` once it stopped cleanly."""

    what = "the call timings"

    def __init__(self, profile: bool):
        self.probe = probe = CompileProbe(TARGET)  # the session adds it to its recorder's listeners
        self.window = ProfileWindow() if profile else None
        self.timer = CallTimer(COMPILED, probe, self.window)
        self._kernel_profile: Any = None  # Inductor's C++ kernel profiling switch, as it was
        self._record: SpeedRecord | None = None

    def start(self) -> None:
        if self.window is not None:
            # C++ kernels then open a record_function each, so the profiler names them (a Triton launch always does).
            import torch._inductor.config as inductor_config

            self._kernel_profile = inductor_config.cpp.enable_kernel_profile
            inductor_config.cpp.enable_kernel_profile = True
        self.timer.install()

    def stop(self) -> None:
        self.timer.uninstall()
        notes: list[str] = []
        if self.window is not None:
            import torch._inductor.config as inductor_config

            inductor_config.cpp.enable_kernel_profile = self._kernel_profile
            self.window.stop(self.timer._functions)
            notes = self.window.notes
        self._record = SpeedRecord(self.timer.result(), None, tuple(self.window.profiles) if self.window else (),
                                   "; ".join(notes) or None)

    def contribute(self, trace: Trace) -> None:
        if self._record is not None:  # a stop that failed half way leaves no runtime, rather than a wrong one
            trace.info.runtime = self._record.as_json()

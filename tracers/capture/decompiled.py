"""Each code object Dynamo rewrites, kept as a bytecode listing and, with depyf installed, as Python source."""

from __future__ import annotations

import dataclasses
import dis
import sys
from collections.abc import Callable
from types import CodeType
from typing import Any

from tracers.tracefile.events import DECOMPILED as KIND
from tracers.tracefile.events import Trace

from .recorder import Recorder

SUFFIX = "_DECOMPILED"
_CONVERT_FRAME = "torch._dynamo.convert_frame"  # artifact names are the frame's name plus this, as torch names its bytecode records


class TransformedCodeCollector:
    """Registers a Dynamo bytecode hook for the run (torch calls it with each frame's original and rewritten
    code: https://github.com/pytorch/pytorch/blob/v2.13.0/torch/_dynamo/convert_frame.py, ``register_bytecode_hook``).

    During the compile it only files a placeholder artifact and keeps the code object; listing and
    decompiling happen when the session stops, so the compile itself pays nothing for them. depyf
    (https://github.com/thuml/depyf) is optional: without it the artifact keeps the listing alone.
    A session's collector (capture/collector.py)."""

    what = "Dynamo's rewritten code"

    def __init__(self, recorder: Recorder, compile_id: Callable[[], str | None]):
        self.recorder = recorder
        self._compile_id = compile_id
        self._handle: Any = None
        self._pending: list[tuple[int, CodeType]] = []  # artifact id, rewritten code
        self._attached = False
        self._warning: str | None = None  # a lazily registered hook has no one to tell at once

    def start(self) -> list[str]:
        """Register the hook now if Dynamo is loaded, else once the first compile step starts (importing
        Dynamo here would cost a program that never compiles its import time); a warning when this torch
        has no bytecode hooks."""
        self._attached = True
        if _CONVERT_FRAME not in sys.modules:
            self.recorder.listeners.append(self._on_span)
            return []
        warning, self._warning = self._register(), None  # said now, not again at stop
        return [warning] if warning else []

    def _on_span(self, event: str, span: object) -> None:
        if self._handle is None and self._attached and event == "enter" and _CONVERT_FRAME in sys.modules:
            self._register()

    def _register(self) -> str | None:
        register = getattr(sys.modules.get(_CONVERT_FRAME), "register_bytecode_hook", None)
        if register is None:
            self._attached = False
            self._warning = "Dynamo's rewritten code not recorded: this torch has no bytecode hooks"
            return self._warning
        self._handle = register(self._on_bytecode)
        return None

    def _on_bytecode(self, original: CodeType, rewritten: CodeType) -> None:
        if not self.recorder.active:
            return None
        try:
            metadata = {"frame": original.co_name, "filename": original.co_filename, "line": original.co_firstlineno}
            artifact = self.recorder.add_artifact(KIND, rewritten.co_name + SUFFIX, self._compile_id(), metadata,
                                                  None, 0)
            self._pending.append((artifact.id, rewritten))
        except Exception:  # noqa: BLE001 - our bookkeeping must never break the compile
            pass
        return None  # keep Dynamo's code as it is

    def stop(self) -> list[str]:
        """Remove the hook, then list and decompile what was collected; a warning where this torch has no hook."""
        self._attached = False
        if self._on_span in self.recorder.listeners:
            self.recorder.listeners.remove(self._on_span)
        if self._handle is not None:
            self._handle.remove()
            self._handle = None
        late = [self._warning] if self._warning else []
        if not self._pending:
            return late
        decompile, decompiler = _decompiler()
        warnings = late
        filled = {}
        for artifact_id, rewritten in self._pending:
            metadata: dict[str, Any] = {"listing": dis.Bytecode(rewritten).dis(), "decompiler": decompiler}
            source = None
            if decompile is not None:
                try:
                    source = decompile(rewritten)
                except Exception as error:  # noqa: BLE001 - depyf does not know every bytecode: keep the listing
                    metadata["decompile_error"] = f"{type(error).__name__}: {error}".splitlines()[0][:300]
            filled[artifact_id] = (metadata, source)
        # Without depyf (an optional extra) no run-wide warning: every trace of the plain install would repeat it. Each
        # artifact's decompiler is None instead, and the page says, where that code is shown, how to get it as Python.
        self._pending.clear()
        for index, artifact in enumerate(self.recorder.artifacts):
            if artifact.id in filled:
                metadata, source = filled[artifact.id]
                self.recorder.artifacts[index] = dataclasses.replace(
                    artifact, metadata={**artifact.metadata, **metadata}, payload=source,
                    payload_size=len(source or ""))
        return warnings

    def contribute(self, trace: Trace) -> None:
        pass  # stop filled its artifacts in, in the recorder's list


def _decompiler() -> tuple[Callable[[CodeType], str] | None, str | None]:
    """depyf's ``decompile`` and its name and version, or (None, None) when it is not installed."""
    try:
        import depyf
    except Exception:  # noqa: BLE001 - not installed, or broken against this torch: the listing stays
        return None, None
    return depyf.decompile, f"depyf {getattr(depyf, '__version__', '')}".strip()

"""The Hugging Face Trainer evaluating the model it did not compile: with ``TrainingArguments(torch_compile=True)``
accelerate compiles the model it prepares for training, but the evaluation loop hands ``prediction_step`` the
original module, so each evaluation batch runs the forward eagerly and torch logs nothing of it. A session's
collector: it wraps ``Trainer.prediction_step`` (now, or the moment ``transformers.trainer`` is imported) and puts
it back at stop."""

from __future__ import annotations

import importlib
import importlib.util
import linecache
import sys
from types import ModuleType
from typing import Any

from tracers.analysis.frames import is_library

from .collector import Warnings
from .hooks import _PostImportFinder
from .recorder import Recorder

ARTIFACT = "uncompiled_evaluation"
_MODULE, _CLASS, _METHOD = "transformers.trainer", "Trainer", "prediction_step"
_WRAPPER = ("torch._dynamo.eval_frame", "OptimizedModule")
_DEEPEST = 100  # frames walked out to the user's: the Trainer's loop is a few deep
_UNWRAPPED = 8  # wrappers looked through (DDP's .module, torch.compile's _orig_mod) per candidate


def _compiled_wrapper_of(trainer: Any, model: Any, wrapper_class: type) -> Any:
    """What the trainer holds that runs ``model`` compiled (torch.compile's wrapper, maybe inside DDP), or None."""
    accelerator = getattr(trainer, "accelerator", None)
    candidates = [getattr(trainer, "model_wrapped", None), *list(getattr(accelerator, "_models", None) or [])]
    for candidate in candidates:
        inner, compiled = candidate, False
        for _ in range(_UNWRAPPED):
            if isinstance(inner, wrapper_class):
                compiled, inner = True, vars(inner).get("_modules", {}).get("_orig_mod")
            elif inner is not model and hasattr(inner, "module"):
                inner = getattr(inner, "module", None)
            else:
                break
        if compiled and inner is model:
            return candidate
    return None


def _user_place() -> tuple[str, int] | None:
    """The innermost line of the user's own code on the stack (``trainer.train()``, ``trainer.evaluate()``)."""
    frame = sys._getframe(2)
    for _ in range(_DEEPEST):
        if frame is None:
            return None
        if not is_library(frame.f_code.co_filename):
            return frame.f_code.co_filename, frame.f_lineno
        frame = frame.f_back
    return None


class TrainerEvaluation:
    """Counts, per line of the user's, the evaluation batches the Trainer ran on the model it holds compiled."""

    what = "the Trainer's evaluation of the uncompiled model"

    def __init__(self, recorder: Recorder):
        self.recorder = recorder
        self._class: Any = None
        self._original: Any = None
        self._wrapper: Any = None
        self._finder: _PostImportFinder | None = None
        # (file, line, model class, backend, mode) -> batches: two models, or two trainers, are counted apart
        self._counts: dict[tuple[str, int, str, Any, Any], int] = {}

    def start(self) -> Warnings:
        if _MODULE in sys.modules:
            self._patch(sys.modules[_MODULE], set())
        elif "transformers" in sys.modules or importlib.util.find_spec("transformers") is not None:
            self._finder = _PostImportFinder([_MODULE], self._patch)
            sys.meta_path.insert(0, self._finder)
        return None

    def _patch(self, module: ModuleType, _new: set[str]) -> None:
        trainer_class = getattr(module, _CLASS, None)
        original = vars(trainer_class).get(_METHOD) if isinstance(trainer_class, type) else None
        if not callable(original) or self._class is not None:
            return
        wrapper_class = getattr(importlib.import_module(_WRAPPER[0]), _WRAPPER[1], None)
        compiling = importlib.import_module("torch.compiler").is_compiling
        counts = self._counts

        def prediction_step(trainer: Any, model: Any, *args: Any, **kwargs: Any) -> Any:
            # ``model.compile()`` in place (``_compiled_call_impl``) runs compiled whoever calls it.
            in_place = getattr(model, "_compiled_call_impl", None) is not None
            if wrapper_class is not None and not compiling() and not isinstance(model, wrapper_class) and not in_place:
                try:
                    if _compiled_wrapper_of(trainer, model, wrapper_class) is not None:
                        place = _user_place()
                        if place is not None:
                            arguments = getattr(trainer, "args", None)
                            key = (*place, type(model).__name__, getattr(arguments, "torch_compile_backend", None),
                                   getattr(arguments, "torch_compile_mode", None))
                            counts[key] = counts.get(key, 0) + 1
                except Exception:  # the traced program must never see our errors
                    pass
            return original(trainer, model, *args, **kwargs)

        prediction_step.__wrapped__ = original  # type: ignore[attr-defined]
        setattr(trainer_class, _METHOD, prediction_step)
        self._class, self._original, self._wrapper = trainer_class, original, prediction_step

    def stop(self) -> Warnings:
        """Put the Trainer's method back (only where ours is still the one there), then file what was counted."""
        if self._finder is not None and self._finder in sys.meta_path:
            sys.meta_path.remove(self._finder)
        if self._class is not None and vars(self._class).get(_METHOD) is self._wrapper:
            setattr(self._class, _METHOD, self._original)
        self._class = self._original = self._wrapper = self._finder = None
        for (filename, line, module, backend, mode), batches in self._counts.items():
            self.recorder.add_artifact("uncompiled-evaluation", ARTIFACT, None, {
                "filename": filename, "line": line, "loc": linecache.getline(filename, line).strip(),
                "batches": batches, "module": module,
                "backend": backend if isinstance(backend, str) else None,
                "mode": mode if isinstance(mode, str) else None}, None, 0)
        self._counts.clear()
        return None

    def contribute(self, trace: Any) -> None:
        pass

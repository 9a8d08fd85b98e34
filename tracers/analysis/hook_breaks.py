"""Breaks inside a module hook: torch calls the hook from its module's call, inside the compiled forward, so the
break is in every compile of it, and the hook's registration (often a library method the user called) is the cause."""

from __future__ import annotations

import re
from dataclasses import dataclass

from tracers.tracefile.events import Trace

HOOKS_ARTIFACT = "module_hooks"  # capture/late_hooks.py's record of the hooks each compiled module had
# torch's module call running a hook (``hook_result = hook(self, args, result)``), then the hook's own frame
_HOOK_CALL = re.compile(r'File "[^"]*torch/nn/modules/module\.py", line \d+, in \w+\n\s+(?:\w+ = )?hook\([^\n]*\n'
                        r'(?:\s*\^+\s*\n)?\s*File "([^"]+)", line (\d+), in (\w+)')
_DEFINED_IN = re.compile(r"(?:^|\.)(\w+)\.<locals>\.\w+$")  # ``Model.enable_input_require_grads.<locals>.hook``


@dataclass(frozen=True)
class HookBreak:
    """A break whose frame is a module hook's: its function, and the hook as the run recorded it."""

    function: str  # ``make_inputs_require_grads``
    where: str  # ``modeling_utils.py:2154``
    kind: str = "hook"  # ``forward hook``
    module: str = ""  # the submodule it is on, ``model.embed_tokens`` ("" where the run recorded no such hook)
    registered_by: str = ""  # the function its own function is defined in, ``enable_input_require_grads``

    @property
    def advice(self) -> str:
        on = f" on `{self.module}`" if self.module else ""
        by = (f" It was registered by `{self.registered_by}()` (its function is defined there): where what that call "
              "set up is not needed, leave it out or undo it") if self.registered_by else \
            " Find the call that registered it (a library method preparing the model) and leave it out where it is not needed"
        return (f"The break is in a {self.kind}, `{self.function}` ({self.where}){on}: torch runs a module's hooks "
                f"inside its compiled forward, so the hook's break is in every compile of it.{by}; or call that "
                "module outside the compiled function, so that the hook runs eagerly.")


def hook_break(payload: str, trace: Trace, library: str = "") -> HookBreak | None:
    """The hook a break's frame is, where torch's traceback shows its module's call running it; ``library``: the
    break's library line as the finding says it (``fakelib/__init__.py:62``), used where it is the hook's."""
    called = None
    for called in _HOOK_CALL.finditer(payload or ""):
        pass  # the innermost hook call: the one the break is in
    if called is None:
        return None
    path, line, function = called.group(1), int(called.group(2)), called.group(3)
    where = f"{path.replace(chr(92), '/').rsplit('/', 1)[-1]}:{line}"
    where = library if library.endswith(f"/{where}") or library == where else where
    for artifact in trace.artifacts:
        if artifact.name != HOOKS_ARTIFACT or not isinstance(artifact.metadata.get("hooks"), list):
            continue
        for hook in artifact.metadata["hooks"]:
            name = str(hook.get("function") or "") if isinstance(hook, dict) else ""
            if name == function or name.endswith(f".{function}"):
                defined = _DEFINED_IN.search(name)
                return HookBreak(function, where, str(hook.get("kind") or "hook"), str(hook.get("module") or ""),
                                 defined.group(1) if defined else "")
    return HookBreak(function, where)

"""Keeps Dynamo from compiling the tracer's own frames when a hooked function runs inside a compiled region."""

from __future__ import annotations

import sys
from types import CodeType, ModuleType

_shielded: set[str] = set()


def _codes_of(module: ModuleType) -> list[CodeType]:
    """Every code object defined in ``module``: functions, methods and the functions nested in them."""
    pending: list[CodeType] = []
    for value in list(vars(module).values()):
        if isinstance(value, type) and value.__module__ == module.__name__:
            for member in vars(value).values():
                function = getattr(member, "__func__", member)  # staticmethod, classmethod
                if hasattr(function, "__code__"):
                    pending.append(function.__code__)
        elif hasattr(value, "__code__") and getattr(value, "__module__", None) == module.__name__:
            pending.append(value.__code__)
    found = []
    while pending:
        code = pending.pop()
        found.append(code)
        pending += [const for const in code.co_consts if isinstance(const, CodeType)]
    return found


def shield(*modules: ModuleType) -> bool:
    """Mark the modules' code as "skip this frame" for Dynamo; True once done (needs Dynamo loaded).

    Compiled autograd calls its hooked methods from the autograd engine while a compiled function's
    frame hook is still set (``loss.backward()`` inside the compiled step), so Dynamo would treat the
    hook wrapper and the recorder as user code and compile them. Only these frames are skipped: the
    functions they call, the hooked torch function included, are handled exactly as without us."""
    eval_frame = sys.modules.get("torch._dynamo.eval_frame")
    if eval_frame is None or not hasattr(eval_frame, "skip_code"):
        return False
    for module in modules:
        if module.__name__ in _shielded:
            continue
        for code in _codes_of(module):
            eval_frame.skip_code(code)
        _shielded.add(module.__name__)
    return True

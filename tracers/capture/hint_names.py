"""torch names in torch's own hints checked against the running torch: a setting a hint names wrongly is found here,
while torch is at hand, so the findings can correct it (``torch._dynamo.X`` that is ``torch._dynamo.config.X``)."""

from __future__ import annotations

import re
import sys
import types

_DOTTED = re.compile(r"\btorch(?:\.\w+)+")


def wrong_names(text: str) -> dict[str, str | None]:
    """Each ``torch.…`` name in ``text`` that the running torch lacks: the config setting it stands for, or None.

    Only modules already imported are looked into: checking a hint must never import anything into the run."""
    if "torch" not in sys.modules or "torch." not in text:
        return {}
    found: dict[str, str | None] = {}
    for name in set(_DOTTED.findall(text)):
        known = _resolves(name)
        if known is False:
            parent, _, attribute = name.rpartition(".")
            fixed = f"{parent}.config.{attribute}"
            found[name] = fixed if _resolves(fixed) else None
    return found


def _resolves(name: str) -> bool | None:
    """True: the name exists; False: its module is loaded and lacks it; None: cannot tell without importing."""
    parts = name.split(".")
    for cut in range(len(parts), 0, -1):
        module = sys.modules.get(".".join(parts[:cut]))
        if module is None:
            continue
        value: object = module
        for attribute in parts[cut:]:
            if not _has(value, attribute):
                return False
            value = getattr(value, attribute)
        return True
    return None


def _has(value: object, attribute: str) -> bool:
    """``hasattr`` without side effects: a plain module's lazy ``__getattr__`` (torch's) may import what it names."""
    if type(value) is types.ModuleType:
        return attribute in vars(value)
    return hasattr(value, attribute)

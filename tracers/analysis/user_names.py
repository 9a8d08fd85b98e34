"""Dynamo's names for the user's values and frames said as the user wrote them (``L['self'].calls`` -> ``self.calls``)."""

from __future__ import annotations

import re

_SCOPE = re.compile(r"\b[LG]\['([^']+)'\]")  # a local or global of the compiled frame
_KWARGS = re.compile(r"^kwargs\['([^']+)'\]")  # a keyword argument a **kwargs forward received
_MODULE_DICT = re.compile(r"\._(?:modules|parameters|buffers)\['([^']+)'\]")  # nn.Module storage: an attribute
_IMPORTED = re.compile(r"__import_(\w+?)(?=[.\[\s]|$)")  # Dynamo's global alias for an imported module
_STACK = re.compile(r"^___stack(\d+)$")
_ITEM_CALL = re.compile(r"([A-Za-z_]\w*(?:\.\w+|\([^()]*\))*\.item\(\))")  # ``h.abs().max().item()`` whole
_RESUME = re.compile(r"^(?:[\w.]+\.)?torch_dynamo_resume_in_(\w+?)_at_(\d+)\b")  # a method's: Class.torch_…


def spoken(source: str) -> str:
    """A guard's source as the user wrote it: ``L['self']._modules['fc'].weight`` -> ``self.fc.weight``,
    ``L['kwargs']['input_ids']`` -> ``input_ids``, ``G['__import_torch_dot_nn']`` -> ``torch.nn``."""
    text = _SCOPE.sub(lambda match: match.group(1), source.strip())
    text = _KWARGS.sub(lambda match: match.group(1), text)
    text = _MODULE_DICT.sub(lambda match: "." + match.group(1), text)
    return _IMPORTED.sub(lambda match: match.group(1).replace("_dot_", "."), text)


def is_stack_value(name: str) -> bool:
    """``___stack2``: a value Dynamo kept on the stack across a graph break, passed to the resume function."""
    return bool(_STACK.match(name))


def stack_value_words(code: str, line: int | None, value: str = "") -> str:
    """What a stack value is, from the line that made it: ``the number `loss.item()` returned (line 36)``."""
    where = f" (line {line})" if line else ""
    item = _ITEM_CALL.search(code)
    if item and _is_number(value):
        return f"the number `{item.group(1)}` returned{where}"
    return f"a value computed before the graph break{where}" + (f": `{code}`" if code else "")


def resume_words(frame: str | None) -> str | None:
    """``torch_dynamo_resume_in_train_step_at_36`` -> ``the rest of `train_step` after line 36``; None otherwise."""
    match = _RESUME.match(frame or "")
    return f"the rest of `{match.group(1)}` after line {match.group(2)}" if match else None


def resume_place(frame: str | None) -> tuple[str, int] | None:
    """The function and line a resume function continues after, or None for any other frame."""
    match = _RESUME.match(frame or "")
    return (match.group(1), int(match.group(2))) if match else None


def frame_words(frame: str | None) -> str:
    """A compiled frame's name as a user reads it: a resume function as the code it continues."""
    name = (frame or "?").split(" (", 1)[0].strip()
    return resume_words(name) or f"`{name}`"


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True

"""What the caller's call passed to a compiled function, read live from the caller's frame at compile time."""

from __future__ import annotations

import ast
import functools
import linecache
import sys
from types import FrameType
from typing import Any

# A failure reason names the compiled function's parameter (``x``, ``args[0]``, ``kwargs['input_ids']``); the user
# wrote the expression their call passed (``images``). The caller's frame is suspended on its call instruction while
# Dynamo compiles, and on 3.11+ that instruction's position spans the whole call expression, so the call is read
# exactly (not guessed among the calls of a line), and bound to the function's own signature read from its source.
_DEEPEST = 200  # frames walked outward from the record handler: the caller is a few dozen frames out


# torch's frames that hand a call's arguments on unchanged: a module's call, a compiled object's, torch.compile's
# wrapper. Any other frame between the caller and the compiled function (DDP's forward, a checkpoint) may rearrange
# them, and then the caller's call says nothing of the compiled function's parameters.
_PASS_THROUGH = frozenset({"__call__", "_wrapped_call_impl", "_call_impl", "compile_wrapper", "_fn"})
# DDP's forward hands its inputs to the module in their positions (moved to the module's device, not reordered).
_DDP = ("nn/parallel/distributed.py", frozenset({"forward", "_run_ddp_forward"}))


def _passes_through(frame: dict[str, Any]) -> bool:
    name = frame.get("name")
    return name in _PASS_THROUGH or (str(frame.get("filename") or "").endswith(_DDP[0]) and name in _DDP[1])


def passed_arguments(stack: list[dict[str, Any]]) -> dict[str, str]:
    """Each parameter of the compiled function (``x``, ``args[0]``, ``kwargs['ids']``) -> the expression its caller's
    call bound to it; empty when anything is unknown (a caller off the stack, a frame between that may rearrange the
    arguments, a source that does not parse). ``stack``: the record's frames, outermost first, the compiled last."""
    try:
        *before, compiled = stack
        outside = [index for index, frame in enumerate(before) if frame.get("outside")]
        if not outside or not all(_passes_through(frame) for frame in before[outside[-1] + 1:]):
            return {}
        caller = before[outside[-1]]
        call = _call_in_frame(str(caller.get("filename") or ""), int(caller.get("line") or 0))
        params = _signature(str(compiled.get("filename") or ""), str(compiled.get("name") or ""),
                            int(compiled.get("line") or 0))
        return _bind(call, params) if call is not None and params is not None else {}
    except Exception:  # the traced program must never see our errors; an unbound call maps nothing
        return {}


def _call_in_frame(filename: str, line: int) -> ast.Call | None:
    """The call expression the frame at ``filename:line`` is executing now (the innermost such frame)."""
    frame: FrameType | None = sys._getframe(1)
    for _ in range(_DEEPEST):
        if frame is None:
            return None
        if frame.f_code.co_filename == filename and frame.f_lineno == line:
            return _call_at(frame)
        frame = frame.f_back
    return None


def _call_at(frame: FrameType) -> ast.Call | None:
    positions = list(frame.f_code.co_positions())
    index = frame.f_lasti // 2
    if not 0 <= index < len(positions):
        return None
    start, end, first_col, end_col = positions[index]
    if None in (start, end, first_col, end_col):
        return None
    lines = linecache.getlines(frame.f_code.co_filename)[start - 1:end]
    if not lines:
        return None
    # Columns are UTF-8 byte offsets.
    if len(lines) == 1:
        text = lines[0].encode()[first_col:end_col].decode(errors="replace")
    else:
        text = "".join([lines[0].encode()[first_col:].decode(errors="replace"), *lines[1:-1],
                        lines[-1].encode()[:end_col].decode(errors="replace")])
    try:
        node = ast.parse(text.strip(), mode="eval").body
    except SyntaxError:
        return None
    return node if isinstance(node, ast.Call) else None


def _signature(filename: str, name: str, line: int) -> ast.arguments | None:
    """The parameters of the function ``name`` whose definition holds ``line`` (the innermost such one)."""
    found = None
    for node in _functions(filename) if name else ():
        # A decorated function's code starts at its first decorator (co_firstlineno), before its ``def``.
        start = min([node.lineno, *(decorator.lineno for decorator in node.decorator_list)])
        if node.name == name and start <= line <= (node.end_lineno or node.lineno):
            if found is None or node.lineno > found.lineno:
                found = node
    return found.args if found is not None else None


@functools.lru_cache(maxsize=16)
def _functions(filename: str) -> tuple[ast.FunctionDef | ast.AsyncFunctionDef, ...]:
    """Every function defined in a file, parsed once: a model's layers compile one after another from one file."""
    source = "".join(linecache.getlines(filename))
    return tuple(node for node in ast.walk(ast.parse(source)) if isinstance(node, (ast.FunctionDef,
                                                                                    ast.AsyncFunctionDef)))


def _bind(call: ast.Call, params: ast.arguments) -> dict[str, str]:
    """Python's binding of a call to a signature, for calls without ``*``/``**`` unpacking; a method's ``self`` is
    the object called, not an argument."""
    if any(isinstance(arg, ast.Starred) for arg in call.args) or any(kw.arg is None for kw in call.keywords):
        return {}  # what an unpacked sequence or mapping holds is not in the source
    positional = [arg.arg for arg in [*params.posonlyargs, *params.args]]
    if positional and positional[0] in ("self", "cls"):
        positional = positional[1:]
    bound: dict[str, str] = {}
    for index, arg in enumerate(call.args):
        if index < len(positional):
            bound[positional[index]] = ast.unparse(arg)
        elif params.vararg is not None:
            bound[f"{params.vararg.arg}[{index - len(positional)}]"] = ast.unparse(arg)
        else:
            return {}  # more arguments than the function takes: not this function's call
    named = {arg.arg for arg in [*params.args, *params.kwonlyargs]}
    for keyword in call.keywords:
        if keyword.arg in named and keyword.arg not in bound:
            bound[str(keyword.arg)] = ast.unparse(keyword.value)
        elif params.kwarg is not None:
            bound[f"{params.kwarg.arg}[{keyword.arg!r}]"] = ast.unparse(keyword.value)
        else:
            return {}
    return bound


def forget() -> None:
    """Drop the parsed sources: the traced program keeps no memory of ours after the session."""
    _functions.cache_clear()

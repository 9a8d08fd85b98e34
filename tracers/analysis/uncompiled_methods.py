"""Calls of a compiled model that run its forward uncompiled, which nothing in torch's logs says: a module's own method
called through what torch.compile returned (``compiled.generate(...)``, the original module's method), and the HF
Trainer's evaluation of the model it compiled only for training."""

from __future__ import annotations

import io
import re
import tokenize

from tracers.tracefile.events import Trace

from .finding_type import RESTARTS, Finding
from .frames import SourceLine, is_library

ARTIFACT = "forwarded_method"  # capture/forwarded_methods.py's record
EVALUATION = "uncompiled_evaluation"  # capture/trainer_evaluation.py's record
_FIX = ("Compile the model in place instead, `{model}.compile(...)` on the model itself (then `{model}(...)` and "
        "`{model}.{method}(...)` both run compiled), or call `{method}` on the original model where running it "
        "eagerly is meant.")
# The calls a method makes then compile: what they cost is not in this run (they ran eager), so it is said, not costed.
_THEN_COMPILED = (" Its calls of the model then compile, at a cost this run did not pay: a version for the prompt, "
                  "then for the decoding steps while the cache grows, until one is dynamic: several recompiles, "
                  "which may reach the recompile limit (trace it again to see them).")


def uncompiled_methods(trace: Trace) -> list[Finding]:
    """One finding per line of the user's that called a method of the wrapped module through torch.compile's
    wrapper, or whose Trainer evaluated the model it compiled for training uncompiled."""
    found = _uncompiled_evaluations(trace)
    for artifact in trace.artifacts:
        meta = artifact.metadata
        if artifact.name != ARTIFACT or not isinstance(meta.get("method"), str):
            continue
        path, line = str(meta.get("filename") or ""), meta.get("line")
        if is_library(path) or not isinstance(line, int):
            continue  # a library's own call through the wrapper is its design
        method, code = meta["method"], str(meta.get("loc") or "")
        receiver = re.search(rf"([A-Za-z_][\w.]*)\.{re.escape(method)}\s*\(", code)
        called = f"`{receiver.group(1)}.{method}(...)`" if receiver else f"`{method}(...)`"
        owner = str(meta.get("module") or "the module")
        found.append(Finding(
            kind="uncompiled-method",
            what=f"{called} called `{owner}.{method}` of the original model: torch.compile's wrapper hands every "
                 f"attribute it lacks to the model it wraps, so the calls of the model that `{method}` makes run "
                 "its forward uncompiled, and nothing in torch's logs says so",
            events=1, compile_ids=(), cost_s=0.0, user_line=SourceLine(path, line, "", code),
            advice=_FIX.format(model="model", method=method) + (_THEN_COMPILED if method == "generate" else ""),
            explained=RESTARTS))
    return found


_ASSIGNED = re.compile(r"^[\w\s,.\[\]()]+?(?<![=!<>])=(?!=)\s*")  # ``metrics = `` before ``trainer.evaluate()``
_EVALUATION_FIX = ("Compile the model in place before handing it to the Trainer, `model.compile({arguments})`, and "
                   "leave `torch_compile`, `torch_compile_backend` and `torch_compile_mode` out of "
                   "`TrainingArguments` (either of the last two turns `torch_compile` on): then training and "
                   "evaluation both run compiled (evaluation compiles versions of its own: for `torch.no_grad()`, "
                   "and for a batch size of its own). Leave it as it is where an eager evaluation is meant.")


def _call_said(code: str) -> str:
    """The call on a line of the user's, without what it is assigned to or a comment after it."""
    try:
        comments = [token.start[1] for token in tokenize.generate_tokens(io.StringIO(code).readline)
                    if token.type == tokenize.COMMENT]
    except (tokenize.TokenError, SyntaxError):  # a line cut from a longer statement
        comments = []
    return _ASSIGNED.sub("", code[:comments[0]] if comments else code).strip()


def _uncompiled_evaluations(trace: Trace) -> list[Finding]:
    """One finding per model the Trainer evaluated uncompiled though it held it compiled: each line of the user's
    that ran such an evaluation (``trainer.train()``'s epoch-end one, ``trainer.evaluate()``) is a part of it."""
    places: dict[str, list[tuple[SourceLine, int]]] = {}
    arguments: dict[str, str] = {}
    for artifact in trace.artifacts:
        meta = artifact.metadata
        batches, line = meta.get("batches"), meta.get("line")
        if artifact.name != EVALUATION or not isinstance(batches, int) or not isinstance(line, int) or batches < 1:
            continue
        owner = str(meta.get("module") or "the model")
        places.setdefault(owner, []).append(
            (SourceLine(str(meta.get("filename") or ""), line, "", str(meta.get("loc") or "")), batches))
        arguments.setdefault(owner, ", ".join(f'{key}="{meta[key]}"' for key in ("backend", "mode")
                                              if isinstance(meta.get(key), str)))
    found = []
    for owner, lines in places.items():
        lines.sort(key=lambda place: (place[0].path, place[0].line))
        batches = sum(count for _, count in lines)
        calls = [f"`{_call_said(source.code)}`" if source.code else f"line {source.line}" for source, _ in lines]
        said = calls[0] if len(calls) == 1 else ", ".join(calls[:-1]) + f" and {calls[-1]}"
        found.append(Finding(
            kind="uncompiled-method",
            what=f"{said} evaluated `{owner}` uncompiled: the Trainer compiled it for training "
                 f"(`torch_compile=True`), but its evaluation loop hands `prediction_step` the original model, so "
                 f"{batches} evaluation batch{'es' if batches != 1 else ''} ran its forward eagerly, and nothing in "
                 "torch's logs says so",
            events=batches, compile_ids=(), cost_s=0.0, user_line=lines[0][0], eager_calls=batches,
            parts=tuple(f"{source.short}: {count} evaluation batch{'es' if count != 1 else ''} uncompiled"
                        for source, count in lines) if len(lines) > 1 else (),
            advice=_EVALUATION_FIX.format(arguments=arguments[owner]), explained=RESTARTS))
    return found

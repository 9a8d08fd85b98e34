"""torch's hints on graph breaks as evidence, not advice: each checked against the rest of the run before it is
passed on as the fix (a setting the same function's later breaks defeat, torch.optim's own breaks, a logging
setting that silences the logger)."""

from __future__ import annotations

import dataclasses
import re

from .finding_type import Finding, Remedy

_CAPTURE = re.compile(r"capture_(?:dynamic_output_shape_ops|scalar_outputs)")
# What each kind of data-dependent step needs Dynamo to capture: a Python number out of a tensor (.item(),
# .tolist(): capture_scalar_outputs), or a tensor whose size depends on the data (nonzero: ..._shape_ops).
_NEEDS = ((re.compile(r"\.(?:tolist|item)\(\)|Tensor\.item|Data dependent operator", re.I), "capture_scalar_outputs"),
          (re.compile(r"nonzero|unique|masked_select|Dynamic shape operator", re.I), "capture_dynamic_output_shape_ops"))
_LOGGING_HINT = re.compile(r"ignore_log(?:ger_methods|ging_functions)|logging function|logger method", re.I)
_LOG_CALL = re.compile(r"([A-Za-z_][\w.]*\.(?:warning_once|info_once|warning|warn|info|debug|error|exception|critical|"
                       r"log))\s*\(")
_OPTIM = ("torch/optim/", "optim/lr_scheduler.py", "optim/optimizer.py")

_OPTIM_ADVICE = ("This break is in torch.optim's own code ({where}), reached from your line: it is not yours to "
                 "change, and torch's hint (do not call it in compiled code) would take the step out of the compiled "
                 "function. The code around it still compiles as graphs of its own; nothing to fix unless the step's "
                 "time matters.")
_CAPTURE_NOTE = ("torch's hint ({setting}) is not passed on as the fix: the same function goes on to {other} at "
                 "{where}, a data-dependent step of another kind, which that setting does not cover (applied alone, "
                 "Dynamo traces on into that line). Check it before relying on it (trace --check-fixes).")
_CAPTURE_ADVICE = ("This line and {where} both work on values that depend on the data: compute them outside the "
                   "compiled function and pass the results in, or keep the data-dependent part in tensor ops.")
_LOGGING_ADVICE = ("The break is the logging call `{method}`. Adding that function to "
                   "torch._dynamo.config.ignore_logging_functions (a set of the functions themselves) removes the break, "
                   "and also every message it prints while the code runs compiled: the program's output changes. "
                   "Keep it if the messages matter; else add it, or log outside the compiled function.")
_LOGGING_UNNAMED = ("torch's hint (ignore_logging_functions) removes the break by dropping the logging call from "
                    "compiled code: its messages are then not printed while the code runs compiled.")


_SETTING = re.compile(r"`?(torch\._(?:dynamo|inductor)\.config\.\w+)\s*=\s*(True|False|\d+)`?")


def checked_hints(found: list[Finding]) -> list[Finding]:
    """The break findings with torch's hints checked against the run's other breaks and their places, and a setting a
    hint names as the fix the tracer can apply to check it (trace --check-fixes)."""
    breaks = [finding for finding in found if finding.kind in ("graph-break", "frame-skipped")]
    return [_with_remedy(_checked(finding, breaks)) if finding in breaks else finding for finding in found]


def _with_remedy(finding: Finding) -> Finding:
    """torch's hint as a remedy where it names a setting and a value (``capture_scalar_outputs = True``); the logging
    function ours names."""
    remedies = list(finding.remedies)
    setting = _SETTING.search(finding.hint or "")
    if setting:
        value = {"True": True, "False": False}.get(setting.group(2), setting.group(2))
        remedies.append(Remedy("setting", setting.group(1), int(value) if isinstance(value, str) else value))
    method = _logging_call(finding)
    if method is not None:
        line = finding.library_line or finding.user_line
        remedies.append(Remedy("ignore-logging", method, None, line.path if line else "", line.line if line else 0))
    return dataclasses.replace(finding, remedies=tuple(remedies)) if remedies != list(finding.remedies) else finding


def _logging_call(finding: Finding) -> str | None:
    """The logging call a logging break's line makes (``logger.warning_once``), where torch says it is one."""
    if not (_LOGGING_HINT.search(finding.hint or "") or _LOGGING_HINT.search(finding.explanation or "")):
        return None
    code = " ".join(line.code for line in (finding.library_line, finding.user_line) if line is not None and line.code)
    method = _LOG_CALL.search(code)
    return method.group(1) if method else None


def _checked(finding: Finding, breaks: list[Finding]) -> Finding:
    hint = finding.hint or ""
    library = finding.library_line
    if library is not None and any(part in library.path.replace("\\", "/") for part in _OPTIM):
        return dataclasses.replace(finding, advice=_OPTIM_ADVICE.format(where=library.short),
                                   hint_note="torch.optim breaks the graph here by design")
    capture = _CAPTURE.search(hint)
    if capture and finding.user_line is not None:
        later = _later_data_dependent(finding, breaks, capture.group())
        if later is not None:
            other, where = later
            return dataclasses.replace(
                finding, advice=_CAPTURE_ADVICE.format(where=where),
                hint_note=_CAPTURE_NOTE.format(setting=f"torch._dynamo.config.{capture.group()} = True", other=other,
                                               where=where))
    if _LOGGING_HINT.search(hint) or _LOGGING_HINT.search(finding.explanation or ""):
        method = _logging_call(finding)
        if method:
            return dataclasses.replace(finding, advice=_LOGGING_ADVICE.format(method=method))
        return dataclasses.replace(finding, hint_note=((finding.hint_note + "; ") if finding.hint_note else "")
                                   + _LOGGING_UNNAMED)
    return finding


def _later_data_dependent(finding: Finding, breaks: list[Finding], setting: str) -> tuple[str, str] | None:
    """(what, where) of a later data-dependent break in the same file of the user's that needs another setting
    than ``setting`` (the hint's): one the hint alone leaves in place."""
    here = finding.user_line
    for other in breaks:
        line = other.user_line
        if other is finding or line is None or line.path != here.path or line.line <= here.line:
            continue
        said = f"{other.what} {line.code}"
        needs = next((needed for pattern, needed in _NEEDS if pattern.search(said)), None)
        if needs is not None and needs != setting:
            step = re.search(r"\.(tolist|item)\(\)", line.code or "")
            return (f"`.{step.group(1)}()`" if step else "a data-dependent call"), line.short
    return None

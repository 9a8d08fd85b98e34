"""Who called torch.compile: where a library did it for the user (the Trainer, generate(), accelerate), said once
per call site, with the user's line that led there."""

from __future__ import annotations

from collections import Counter

from .frames import SourceLine, library_name
from .run_evidence import CompileCall, RunEvidence


def compiled_by(evidence: RunEvidence) -> tuple[str, ...]:
    """One sentence per place a library's code called torch.compile (how often, where the user's line led there);
    nothing where every call was the user's own."""
    calls = [call for call in evidence.calls if call.by_library]
    sites = Counter((call.file, call.line, call.compiled_name, call.user_file, call.user_line) for call in calls)
    first = {(call.file, call.line, call.compiled_name, call.user_file, call.user_line): call for call in reversed(calls)}
    return tuple(_said(first[site], times) for site, times in sites.items())


def _said(call: CompileCall, times: int) -> str:
    who = library_name(call.file, "a library")
    entry = library_name(call.entry_file, "") if call.entry_name else ""
    if entry and entry != who:  # the user called one library, another made the call: the Trainer through accelerate
        who = f"{_possessive(entry)} `{call.entry_name}` (through {who})"
    elif entry:
        who = f"{_possessive(who)} `{call.entry_name}`"
    target = f"`{call.compiled_name}`" if call.compiled_name else "a function"
    arguments = "".join(f", {name}={value!r}" for name, value in call.arguments.items())
    user = SourceLine(call.user_file.replace("\\", "/"), call.user_line).short
    code = f" (`{call.user_code}`)" if call.user_code else ""
    often = f", {times} times" if times > 1 else ""
    where = SourceLine(call.file.replace("\\", "/"), call.line).short
    return (f"compiled by {who}, not by your code: torch.compile({target}{arguments}) at {where}{often}, "
            f"reached from your line {user}{code}")


def _possessive(name: str) -> str:
    """``transformers'``, ``accelerate's``."""
    return f"{name}'" if name.endswith("s") else f"{name}'s"

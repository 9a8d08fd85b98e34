"""What a run's own trace says that a finding's claims are checked against: the config torch compiled each frame
with, the user's torch.compile calls and their arguments, each frame's versions in order, and the calls each served."""

from __future__ import annotations

import dataclasses
import re
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from tracers.tracefile import compile_identity
from tracers.tracefile.events import Trace
from tracers.tracefile.torch_records import CONFIG_KEY

from .frames import library_name
from .guard_failures import GuardFailure, parse_failure
from .guard_sources import naming, parse_source
from .symbolic_breaks import SymbolicBreak, symbolic_breaks

DEFAULT_RECOMPILE_LIMIT = 8  # torch._dynamo.config.recompile_limit's default in every supported release
_FRAME = re.compile(r"\(([^():]+):(\d+)\)")  # ``Tiny.forward (decode.py:13)``: the file and first line


@dataclass(frozen=True)
class CompileCall:
    """One torch.compile call of the run: the user's line, what it compiled, the arguments it was given."""

    file: str
    line: int
    code: str  # the line's text
    arguments: dict[str, Any]
    compiled_file: str = ""  # where the compiled function (a module's forward) starts
    compiled_line: int = 0
    compiled_name: str = ""
    user_file: str = ""  # where a library called torch.compile for the user: the user's line below that call
    user_line: int = 0
    user_code: str = ""
    entry_file: str = ""  # the library function the user's line called, on the way to that call
    entry_name: str = ""

    @property
    def by_library(self) -> bool:
        """torch.compile was called by a library's code (the Trainer, accelerate), not the user's."""
        return bool(self.user_file)

    @property
    def short(self) -> str:
        return f"{self.file.rsplit('/', 1)[-1]}:{self.line}"

    def says(self, argument: str) -> Any:
        return self.arguments.get(argument)


@dataclass(frozen=True)
class Specialisation:
    """torch's record that a compile made a size or value a constant (``symbolic_shape_specialization``)."""

    name: str  # the user's name in torch's source (``x`` of ``L['x'].size()[0]``)
    dim: int | None  # the dimension, for a size
    value: str
    reason: str  # torch's: range_refined_to_singleton, …
    file: str = ""  # the user's line that made it, where torch's stack names one
    line: int = 0
    code: str = ""
    said: str = ""  # the whole source in the user's words (``batch['input_ids']``)

    @property
    def short(self) -> str:
        return f"{self.file.rsplit('/', 1)[-1]}:{self.line}" if self.file else ""


_SPECIALISED_SOURCE = re.compile(r"\[['\"]?([\w.]+?)['\"]?\](?:\.size\(\)\[(\d+)\])?$")


@dataclass
class RunEvidence:
    """The run's own record, indexed for the claim checks (claims.py)."""

    config: dict[str, dict[str, Any]] = field(default_factory=dict)  # compile id -> torch._dynamo.config then
    calls: list[CompileCall] = field(default_factory=list)
    versions: dict[str, list[str]] = field(default_factory=dict)  # frame number -> its compile ids, in order
    served: dict[str, int] = field(default_factory=dict)  # compile id -> calls its graph served
    failures: dict[str, GuardFailure] = field(default_factory=dict)  # compile id -> its failed guard (its cause)
    tried: dict[str, list[GuardFailure]] = field(default_factory=dict)  # compile id -> its failure against each version
    refused: set[str] = field(default_factory=set)  # compile ids the recompile limit refused
    specialised: dict[str, list[Specialisation]] = field(default_factory=dict)  # compile id -> what it pinned
    symbolic: list[SymbolicBreak] = field(default_factory=list)  # breaks on a symbolic operator argument
    symbols: dict[str, set[tuple[str, int]]] = field(default_factory=dict)  # compile id -> (value, dim) made symbolic
    # compile id -> the values its guards pin (``self.config.problem_type`` -> ``None``), from its guard text
    pinned_values: dict[str, dict[str, str]] = field(default_factory=dict)
    # compile id -> its first record's clock: compile ids order frames by first compile, not by time
    started: dict[str, int] = field(default_factory=dict)
    grad_off: set[str] = field(default_factory=set)  # compile ids whose global-state guard holds grad mode off

    @property
    def library_compiled(self) -> CompileCall | None:
        """The run's torch.compile call where a library's code made every one (generate(), the Trainer): the user
        compiled nothing themselves, so nothing of theirs can be marked or passed to torch.compile."""
        return self.calls[0] if self.calls and all(call.by_library for call in self.calls) else None

    def pinned(self, compile_id: str, name: str, dim: int | None) -> Specialisation | None:
        """The compile's record that it made ``name`` (its dimension ``dim``, for a size) a constant, if any."""
        return next((found for found in self.specialised.get(compile_id, ())
                     if name in (found.name, found.said) and (dim is None or found.dim == dim)), None)

    def values_made_symbolic(self, compile_id: str) -> list[str]:
        """The numbers (not sizes) of the user's the compile made symbols, bare (``temperature``): not the values
        Dynamo itself hands across a graph break (``___stack0``)."""
        return sorted(name for name, dim in self.symbols.get(compile_id, ())
                      if dim == PLAIN_VALUE and not name.startswith("___"))

    def made_symbolic(self, compile_id: str, source: str, dim: int) -> bool:
        """The compile made that dimension of the value a symbol (torch's ``create_symbol`` record for it)."""
        return (_bare(source), dim) in self.symbols.get(compile_id, ())

    def also_differs(self, compile_id: str, version: str, skip: str = "") -> list[tuple[str, str, str]]:
        """(value, in ``version``, in ``compile_id``) for each value both compiles' guards pin, differently: the
        recompile would have failed ``version`` on it too (torch names one failed guard of each version), ``skip``
        (the one it named) left out."""
        before, now = self.pinned_values.get(version, {}), self.pinned_values.get(compile_id, {})
        return [(source, before[source], now[source]) for source in before
                if source in now and before[source] != now[source] and source != _bare(skip)]

    def setting(self, compile_id: str, name: str) -> Any:
        """A setting as the compile ran with it; None where the trace does not record it (an older trace)."""
        return self.config.get(compile_id, {}).get(name)

    def recompile_limit(self, compile_id: str) -> tuple[int, bool]:
        """(the limit the compile ran under, whether the trace recorded it: else torch's default)."""
        for name in ("recompile_limit", "cache_size_limit"):
            value = self.setting(compile_id, name)
            if isinstance(value, int) and not isinstance(value, bool):
                return value, True
        return DEFAULT_RECOMPILE_LIMIT, False

    def later_versions(self, compile_id: str) -> list[str]:
        """The frame's versions compiled after this one."""
        frame, _, _ = compile_id.rpartition("/")
        order = self.versions.get(frame, [])
        return order[order.index(compile_id) + 1:] if compile_id in order else []

    def failed_against(self, compile_id: str, subject: str | None = None, dimension: int | None = None,
                       kind: str | None = None) -> list[str]:
        """The later compiles whose failed guard was this version's (on ``subject``, at ``dimension`` of its size, of
        ``kind``, where given): calls it did not serve (for that value; a batch after a length is another cause, and
        so is a dtype after a size)."""
        return [later for later, failure in self.failures.items()
                if failure.version == compile_id and (subject is None or subject in (failure.subject, failure.source))
                and (dimension is None or failure.dimension is None or failure.dimension == dimension)
                and (kind is None or failure.kind == kind)]

    def changed_again(self, compile_id: str, subject: str, dimension: int | None = None,
                      kind: str | None = None) -> list[str]:
        """The frame's later compiles whose failed guard (against any version) was on the same value again (of
        ``kind``, where given): a size the version made dynamic did not cover (a range guard a later version added).
        Not one the version refused for another guard (a decoding step's keyword arguments, after a prefill): it says
        nothing of the size."""
        return [later for later in self.later_versions(compile_id)
                if (failure := self.failures.get(later)) is not None and subject in (failure.subject, failure.source)
                and (dimension is None or failure.dimension is None or failure.dimension == dimension)
                and (kind is None or failure.kind == kind)
                and not self.refused_for_another_guard(later, compile_id, failure.kind)]

    def refused_for_another_guard(self, compile_id: str, version: str, kind: str) -> bool:
        """The version refused the compile's call on a guard of another kind than ``kind`` (torch names the first
        failing guard per version it tried)."""
        return any(tried.version == version and tried.kind != kind for tried in self.tried.get(compile_id, ()))

    def still_differs(self, compile_id: str) -> bool:
        """A later recompile of the frame failed the version this one failed against, on the same value: the value
        had not gone back by then (a prompt's length, then one token per step), so it did not change for one call."""
        failure = self.failures.get(compile_id)
        if failure is None:
            return False
        return any(other.version == failure.version and other.kind == failure.kind and
                   (other.source or other.subject) == (failure.source or failure.subject)
                   for later in self.later_versions(compile_id) for other in self.tried.get(later, ()))

    def call_for(self, frame: str | None) -> CompileCall | None:
        """The torch.compile call that compiled ``frame`` (``Tiny.forward (decode.py:13)``), when one says so; the
        run's only call where there is one and it names no code."""
        # ``Tiny.forward (decode.py:13)``, or ``Model.forward (m.py:40) via wrapper (generic.py:1030)``: the code a
        # decorator wraps, or the decorator's own, which torch.compile was given
        for found in _FRAME.finditer(frame or ""):
            name, line = found.group(1), int(found.group(2))
            for call in self.calls:
                if call.compiled_line == line and call.compiled_file.rsplit("/", 1)[-1] == name:
                    return call
        unnamed = [call for call in self.calls if not call.compiled_file]
        return unnamed[0] if len(self.calls) == 1 and unnamed else None


def gather(trace: Trace, failures: dict[str, GuardFailure]) -> RunEvidence:
    """The evidence of ``trace``; ``failures``: each recompile's first failed guard (as the findings read them)."""
    evidence = RunEvidence(failures=dict(failures), served=dict(trace.info.calls_served or {}),
                           symbolic=symbolic_breaks(trace.artifacts))
    frames: dict[str, set[str]] = defaultdict(set)
    for artifact in trace.artifacts:
        meta = artifact.metadata if isinstance(artifact.metadata, dict) else {}
        if artifact.compile_id and "/" in artifact.compile_id:
            frames[artifact.compile_id.rpartition("/")[0]].add(artifact.compile_id)
        if artifact.compile_id is not None:
            before = evidence.started.get(artifact.compile_id)
            evidence.started[artifact.compile_id] = artifact.ts_ns if before is None else min(before, artifact.ts_ns)
        if artifact.kind == "metrics" and artifact.compile_id and isinstance(meta.get(CONFIG_KEY), dict):
            evidence.config[artifact.compile_id] = meta[CONFIG_KEY]
            reason = meta.get("fail_reason")
            if isinstance(reason, str) and re.search(r"recompile[_ ]limit|cache[_ ]size[_ ]limit", reason, re.I):
                evidence.refused.add(artifact.compile_id)
        elif artifact.kind == "recompile" and artifact.compile_id and isinstance(meta.get("reasons"), list):
            evidence.tried[artifact.compile_id] = [parse_failure(str(reason)) for reason in meta["reasons"]]
        elif artifact.kind == "compile-call":
            evidence.calls.append(_compile_call(meta))
        elif artifact.kind == "guards" and artifact.compile_id and artifact.payload:
            evidence.pinned_values[artifact.compile_id] = _pinned_values(artifact.payload)
            if _GRAD_OFF.search(artifact.payload):
                evidence.grad_off.add(artifact.compile_id)
        elif artifact.name == "create_symbol" and artifact.compile_id:
            source = str(meta.get("source") or "")
            sized = _SYMBOL_SOURCE.match(source)
            made = (_bare(sized.group(1)), int(sized.group(2))) if sized else \
                (_bare(source), PLAIN_VALUE) if _VALUE_SOURCE.match(source) else None
            if made:
                evidence.symbols.setdefault(artifact.compile_id, set()).add(made)
        elif artifact.name == "symbolic_shape_specialization" and artifact.compile_id:
            evidence.specialised.setdefault(artifact.compile_id, []).extend(_specialisations(meta))
    evidence.versions = {frame: sorted(ids, key=compile_identity.sort_key) for frame, ids in frames.items()}
    evidence.specialised = {compile_id: _with_lines(found) for compile_id, found in evidence.specialised.items()}
    return evidence


# the global-state guard's JSON (``GLOBAL_STATE: ___check_global_state() against {..."grad_mode":false,...}``)
_GRAD_OFF = re.compile(r'GLOBAL_STATE: .*"grad_mode":\s*false')
_SYMBOL_SOURCE = re.compile(r"^(.+)\.size\(\)\[(\d+)\]$")  # create_symbol's source: ``L['x'].size()[1]``
_VALUE_SOURCE = re.compile(r"^L\[[^\]]+\](?:\.\w+)*$")  # or a number itself: ``L['alpha']``, ``L['self'].p``
PLAIN_VALUE = -1  # the "dimension" of a number made a symbol, in ``RunEvidence.symbols``
_LOCAL = re.compile(r"^L\[['\"](\w+)['\"]\]")


# a guard that pins a value of the user's state: ``NONE_MATCH: L['self'].config.problem_type is None  # …`` or
# ``EQUALS_MATCH: L['self'].config.problem_type == 'single_label_classification'  # …`` (attributes only: a guard
# on an item of a library's own tables says nothing the user set)
_PINNED_VALUE = re.compile(r"\b(?:NONE_MATCH|EQUALS_MATCH): (L\['\w+'\](?:\.\w+)+) (?:is (None)|== (.+?))\s*(?:#|$)")


def _pinned_values(guards: str) -> dict[str, str]:
    found: dict[str, str] = {}
    for line in guards.splitlines():
        if "_MATCH: L[" in line:
            match = _PINNED_VALUE.search(line)
            if match:
                found.setdefault(_bare(match.group(1)), match.group(2) or match.group(3).strip())
    return found


def _bare(source: str) -> str:
    """A guarded value as both torch's records spell it: ``L['args'][0]`` and ``args[0]`` are one."""
    return _LOCAL.sub(r"\1", source.strip())


def _with_lines(found: list[Specialisation]) -> list[Specialisation]:
    """A size torch made a constant because it equals one a line of the user's pinned (its reason ``find``: no stack
    of its own) takes that line."""
    lines = {spec.value: spec for spec in found if spec.file}
    return [dataclasses.replace(spec, file=lines[spec.value].file, line=lines[spec.value].line,
                                code=lines[spec.value].code, reason=lines[spec.value].reason)
            if not spec.file and spec.value in lines else spec for spec in found]


def _specialisations(meta: dict[str, Any]) -> list[Specialisation]:
    frame = meta.get("user_frame") if isinstance(meta.get("user_frame"), dict) else {}
    line = frame.get("line")
    found = []
    for source in meta.get("sources") or []:
        parsed = _SPECIALISED_SOURCE.search(str(source))
        if parsed:
            whole = parse_source(str(source))
            found.append(Specialisation(parsed.group(1), int(parsed.group(2)) if parsed.group(2) else None,
                                        str(meta.get("value") or ""), str(meta.get("reason") or ""),
                                        str(frame.get("filename") or ""), line if isinstance(line, int) else 0,
                                        str(frame.get("loc") or ""), (naming(whole).name or "") if whole else ""))
    return found


def _compile_call(meta: dict[str, Any]) -> CompileCall:
    compiled = meta.get("compiled") if isinstance(meta.get("compiled"), dict) else {}
    arguments = meta.get("arguments") if isinstance(meta.get("arguments"), dict) else {}
    line = meta.get("line")
    user = meta.get("user") if isinstance(meta.get("user"), dict) else {}
    entry = meta.get("entry") if isinstance(meta.get("entry"), dict) else {}
    if library_name(str(entry.get("filename") or ""), "") == "torch":
        entry = {}  # a trace of an older tracer named torch's own wrapper (a no_grad decorator) as the one called
    return CompileCall(str(meta.get("filename") or ""), line if isinstance(line, int) else 0, str(meta.get("loc") or ""),
                       {str(key): value for key, value in arguments.items()
                        if value is None or isinstance(value, (bool, str))},
                       str(compiled.get("filename") or ""),
                       compiled.get("line") if isinstance(compiled.get("line"), int) else 0,
                       str(compiled.get("name") or ""), str(user.get("filename") or ""),
                       user.get("line") if isinstance(user.get("line"), int) else 0, str(user.get("loc") or ""),
                       str(entry.get("filename") or ""), str(entry.get("name") or ""))

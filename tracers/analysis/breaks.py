"""Graph breaks grouped by the user's line that causes them, with what they brought about: the code after the break
compiled as resume functions, and their recompiles on values the line computed."""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from typing import Any

from tracers.tracefile import compile_identity
from tracers.tracefile.events import Artifact, Trace
from tracers.vocabulary.durations import duration_s

from .finding_type import BREAKS, EXPLANATION, HINT, Finding, Ledger, first_match, unique_ids
from .frames import (SourceLine, caller_places, direct_caller, is_library, library_name, parse_location, short, traceback_lines,
                     user_and_library)
from .guard_failures import GuardFailure
from .guard_sources import naming, parse_source
from .hook_breaks import hook_break
from .run_evidence import PLAIN_VALUE, RunEvidence
from .symbolic_breaks import symbolic_advice, symbolic_breaks
from .trace_facts import FRAME_SKIPPED, CompileFacts
from .user_names import frame_words, resume_place, stack_value_words

_IN_OPTIM = "torch/optim/"
_CARRIED = frozenset({"size", "dtype", "device", "requires_grad"})
_FORCE_SKIPPED = re.compile(r"skip reason: file is force-skipped \(([^)\s]+)\)")
_GB_LINK = re.compile(r"(https://\S+/gb/(gb\d+)\.html)")
_LOGGING = re.compile(r"logging\.Logger|logger method|logging function", re.I)


def _function(frame: str | None) -> str:
    """The code name a resume function made in ``frame`` carries: ``forward`` of ``Tiny.forward (m.py:3)``."""
    place = resume_place(short(frame or ""))
    return place[0] if place else short(frame or "").rsplit(".", 1)[-1]


Place = tuple[str, str, int]  # (file name, function, line): where a resume function continues (files may share names)
_FRAME_FILE = re.compile(r" \(([^():]+):\d+\)")
_FRAME_FILE_LINE = re.compile(r" \(([^():]+):(\d+)\)")


def _resumed_at(frame: str | None) -> Place | None:
    """The place a resume function continues after, with the file it is in; None for any other frame."""
    place = resume_place(short(frame or ""))
    if place is None:
        return None
    found = _FRAME_FILE.search(frame or "")
    return (_file_name(found.group(1)) if found else "", place[0], place[1])


def _file_name(path: str) -> str:
    return path.replace("\\", "/").rsplit("/", 1)[-1]


@dataclass
class BreakGroup:
    """The graph breaks one user line causes (or one library place, where no user line is known)."""

    artifacts: list[Artifact]
    user: SourceLine | None
    library: SourceLine | None
    skipped: bool  # Dynamo could not resume: the whole frame ran eagerly
    places: set[Place] = field(default_factory=set)  # (file, function, line) its resume functions continue after
    merged: dict[str, GuardFailure] = field(default_factory=dict)  # its resume functions' recompiles, by compile id
    created: list[str] = field(default_factory=list)  # the resume functions' first compiles
    nested: list[str] = field(default_factory=list)  # no-graph compiles of frames the skipped frame called
    # the skipped compile's own recompile (the version that broke), and each version of a code the skipped frame
    # calls that compiled on its own only because the frame ran eagerly (None: its first, no guard failed)
    by_products: dict[str, GuardFailure | None] = field(default_factory=dict)
    cost_s: float = 0.0
    created_s: float = 0.0  # their compile: said, not in the cost (that code compiles either way once the break goes)
    # a library's first-call set-up (set_up.py): the groups of its other frames, and their recompiles, said here;
    # ``set_up_of``: the group whose set-up this one is (no finding of its own)
    set_up: list[BreakGroup] = field(default_factory=list)
    set_up_recompiles: dict[str, GuardFailure] = field(default_factory=dict)
    set_up_flip: tuple[str, GuardFailure] | None = None  # the code's version compiled for the set-up's flag
    set_up_of: BreakGroup | None = None
    set_up_first: bool = False  # the set-up ran in the first call only (first_call_only): an eager first call is its fix

    @property
    def ids(self) -> tuple[str, ...]:
        return unique_ids(artifact.compile_id for artifact in self.artifacts)

    @property
    def titles(self) -> list[str]:
        """Each kind of break, once, in order."""
        return list(dict.fromkeys(_title(artifact) for artifact in self.artifacts))

    def claim_created(self, resumed: dict[Place, list[str]], ledger: Ledger) -> None:
        """The compiles that exist only because of these breaks: the code after them (claimed, so no other finding
        counts it, but kept out of the cost: removing the break compiles that code in the frame's own graph), and
        its recompiles on the values the line computed (in the cost: without the break they never happen).
        ``resumed``: each resume place's first compiles (``resume_firsts``), looked up, not searched for; a place's
        are taken out once claimed (every one is counted then, so a later group sharing the place would skip them
        all: taking them out keeps that skip from growing with groups × compiles)."""
        found = {compile_id for place in self.places for compile_id in resumed.pop(place, ())}
        for compile_id in sorted(found, key=compile_identity.sort_key):  # in compile order, as the page lists them
            if not ledger.counted(compile_id):
                self.created.append(compile_id)
                self.created_s += ledger.whole(compile_id)
        for compile_id in self.merged:
            self.cost_s += ledger.whole(compile_id)

    def claim_nested(self, trace: Trace, compiles: dict[str, CompileFacts], ledger: Ledger) -> None:
        """A frame Dynamo could not resume runs eagerly, so each frame it calls is compiled on its own: those that
        produced no graph exist only because of the skip (in the cost: they go once the frame compiles, or is left
        uncompiled), not a finding of their own."""
        if not self.skipped:
            return
        skipped = skipped_places(self, compiles)
        for compile_id in sorted(compiles, key=compile_identity.sort_key):
            facts = compiles[compile_id]
            if facts.graphs or facts.fail_reason or ledger.counted(compile_id) or compile_id in self.ids or \
                    compile_id in self.by_products:
                continue
            if caller_places(trace, compile_id) & skipped:
                self.nested.append(compile_id)
                self.cost_s += ledger.whole(compile_id)

    def claim_waste(self, compiles: dict[str, CompileFacts], ledger: Ledger) -> None:
        """In the compiles where the breaks happened: all of one that produced no graph, else the restart."""
        for compile_id in self.ids:
            facts = compiles.get(compile_id)
            if facts is None or ledger.counted(compile_id):
                continue
            self.cost_s += ledger.whole(compile_id) if facts.graphs == 0 else ledger.restart(compile_id)

    def finding(self, trace: Trace, compiles: dict[str, CompileFacts], evidence: RunEvidence | None = None) -> Finding:
        """``evidence``: the run's (its recompiles' failed guards, the values its guards pin), where the caller has it."""
        evidence = evidence or RunEvidence()
        payload = next((artifact.payload for artifact in self.artifacts if artifact.payload), "") or ""
        titles = self.titles
        ids = unique_ids((*self.ids, *self.created, *self.merged, *self.nested, *self.by_products))
        count = len(self.artifacts)
        link = _GB_LINK.search(payload)
        hint, explanation = first_match(HINT, payload), first_match(EXPLANATION, payload)
        skipped_file = _FORCE_SKIPPED.search(payload)
        if explanation and skipped_file and skipped_file.group(1) not in explanation:  # what is skipped, said
            explanation += f" (its file, {skipped_file.group(1)}, is skipped)"
        no_graph = tuple(compile_id for compile_id in self.ids if compile_id in compiles
                         and not compiles[compile_id].graphs)
        graphs = sum(compiles[compile_id].graphs for compile_id in (*self.created, *self.merged)
                     if compile_id in compiles)
        parts = [f"{_title(artifact)}: graph break in compile {artifact.compile_id}" for artifact in self.artifacts] \
            if len(titles) > 1 or self.merged else []
        for compile_id, failure in self.merged.items():
            frame = compiles[compile_id].frame if compile_id in compiles else None
            parts.append(f"{frame_words(frame)} recompiled (compile {compile_id}): {failure.sentence}")
        if self.created:
            parts.append(f"the code after it compiled on its own ({len(self.created)} compile"
                         f"{'s' if len(self.created) != 1 else ''}, {duration_s(self.created_s)}): not in the cost, as "
                         "it compiles either way once the break is gone (a little less as one graph)")
        parts += _by_product_parts(self, compiles)
        context = _context_of(payload, trace) if self.skipped else None
        if self.nested:
            names = list(dict.fromkeys(frame_words(compiles[compile_id].frame) for compile_id in self.nested))
            parts.append(f"the frames it calls compiled on their own as it ran eagerly, {len(self.nested)} with no "
                         f"graph ({', '.join(names[:3])}{' …' if len(names) > 3 else ''}): in the cost, as they go "
                         "with the skip")
        if self.skipped:
            eager = sum(trace.info.calls_eager.get(compile_id, 0) for compile_id in self.ids) or None
            inside = f" inside `{context.code}` (line {context.line})" if context else ""
            what = f"Dynamo could not resume after a graph break ({titles[0]}){inside} and ran the whole frame eagerly"
            kind = "frame-skipped"
        else:
            eager = None
            kind = "graph-break"
            what = f"{count} graph break{'s' if count != 1 else ''}: {'; '.join(titles)}"
            if any(_UNRESUMABLE in str(artifact.metadata.get("reason") or "") for artifact in self.artifacts):
                # torch compiled the graph up to the break and runs the rest of the function eagerly, every call
                served = sum(trace.info.calls_served.get(compile_id, 0) for compile_id in self.ids)
                rest = f"line {self.user.line} and the rest of the function" if self.user else "the rest of the function"
                what += f" that Dynamo cannot resume after: {rest} ran eagerly"
                parts.append(f"Dynamo compiled the graph up to the break and skips the rest of the function: "
                             + (f"each of the {served} calls its versions served ran " if served else "every call ran ")
                             + f"{rest} eagerly")
            if self.merged:
                what += (f", and {len(self.merged)} recompile{'s' if len(self.merged) != 1 else ''} of the code after "
                         "it on a value the line computed")
        advice = None if hint else ("Move the unsupported call out of the compiled region, or wrap the function that "
                                    "makes it in torch.compiler.disable.")
        hint_note = None
        backward = any(_BACKWARD in title for title in titles)
        if context is not None:
            # A break inside a context manager Dynamo cannot split there: the whole function runs eagerly, and moving
            # the broken call out of the block may change what the block is for (accelerate's accumulate()).
            inner = _compiled_inside(self, trace, compiles)
            broken = f" (`{self.user.code}`, line {self.user.line})" if self.user and self.user.code else ""
            advice = _CONTEXT_SKIP.format(code=context.code, line=context.line, inner=inner, broken=broken)
            hint_note = ("torch's hint is about the call that broke; the frame was skipped because the break happened "
                         f"inside `{context.code}`, which Dynamo cannot resume in")
        elif backward:
            # torch's hint (trace_autograd_ops=True) left the break in place where the corpus applied it
            # (tests/corpus/fixed/warmup_int_step_backward.py), and through a library's backward (accelerate's) it
            # compiled more versions and changed the losses: the backward is compiled anyway, outside.
            call = f" (`{self.user.code.strip()}` at {self.user.short})" if self.user and self.user.code else ""
            advice = _BACKWARD_ADVICE.format(call=call)
            if self.library is not None:
                hint_note = (f"torch's hint is about the backward call at {self.library.short}, a library's, reached "
                             "from your line; the backward is compiled without it")
        elif self.library is not None and self.library.path.endswith("parallel/distributed.py"):
            hint_note = (f"torch's hint is about the call at {self.library.short}, which is a library's code reached "
                         "from your line, not yours to change")
            advice = _DDP_BREAK
        elif self.library is not None and (hooked := hook_break(payload, trace, self.library.short)) is not None:
            hint_note = (f"torch's hint is about the hook's code at {hooked.where}, a library's: what is yours is "
                         "the hook's registration")
            advice = hooked.advice
        elif self.library is not None and not _SETTING_HINT.search(hint or ""):
            # torch's hint speaks of the code that made the call: here a library's, not the user's.
            hint_note = (f"torch's hint is about the code at {self.library.short}, a library's, reached from your "
                         "line: not yours to change")
            code = f" (`{self.library.code.strip()}`)" if self.library.code.strip() else ""
            advice = _LIBRARY_BREAK.format(package=library_name(self.library.path), where=self.library.short, code=code,
                                           line=self.user.short if self.user else "your line")
        once = first_call_only(self, evidence.failures, compiles) if self.library is not None else None
        if once is not None:  # a library's set-up on its first call: later versions of the frame compiled without it
            later = once.later
            parts.append(f"only in the first call: the later versions of {frame_words(compiles[later[0]].frame)} "
                         f"({', '.join(later)}) compiled without this break, so it is code that runs once (a "
                         "library's set-up on its first call)")
            # the guess at an option the call passes does not apply: the code runs once, whatever the call passes
            advice = _FIRST_CALL.format(package=library_name(self.library.path), where=self.library.short)
        unset = _unset_config(evidence, self.ids) if self.library is not None else []
        if unset:  # the run's own guards: what the compile that broke read of the model's config as unset
            advice = (f"{advice} " if advice else "") + _UNSET.format(
                names=" and ".join(f"`{name}`" for name in unset), were="were" if len(unset) > 1 else "was")
        disabled = _DISABLED.search(explanation or "")
        if disabled and not self.skipped:
            # The user disabled this function on purpose: removing the decorator (torch's hint) lets Dynamo trace
            # its body, and what made it worth disabling (a .item(), a print, a log call) breaks there instead.
            name = disabled.group(1)
            what = (f"{count} graph break{'s' if count != 1 else ''}: `{name}` is marked torch.compiler.disable, so "
                    "each call of it ends the graph and resumes after it")
            advice = (f"The break is what the disable costs. If `{name}` only logs or inspects, call it outside the "
                      "compiled function, on what it returns; if it must run inside, keep the break: it is one per call.")
            hint_note = ("torch's hint, removing the disable, lets Dynamo trace the function's body: the calls it was "
                         "disabled for break there instead")
        rewrite = _branch_rewrite(trace, self.artifacts) if self.library is None else None
        if rewrite is not None:  # the user's `if` on a tensor, written as the one op the capture read from the file
            advice = _WHERE_REWRITE.format(**rewrite)
        symbolic = next(iter(symbolic_breaks(self.artifacts)), None)
        if symbolic is not None:  # torch's hint (the code may fail eagerly too) is refuted: eager code has no symbols
            advice = symbolic_advice(symbolic, self.user.code if self.user else "",
                                     _symbols_at(trace, symbolic.compile_id, self.user) if symbolic.formatted else "")
            hint_note = ("torch's hint (that the code may fail when run eagerly too) is not passed on: the value was "
                         "symbolic only in the compiled version")
        elif (len(titles) > 1 or self.merged) and self.library is None:  # the user's own line breaks, not a library
            advice = _ONE_LINE + _passed_in(self.merged)
        return Finding(
            kind=kind, what=what, events=count, recompiles=len(self.merged), compile_ids=ids, cost_s=self.cost_s,
            user_line=self.user, library_line=self.library, graphs_added=graphs, no_graph=no_graph,
            eager_calls=eager, eager_note=trace.info.calls_note if self.skipped else None,
            explanation=explanation, hint=hint, hint_note=hint_note, torch_link=link.group(1) if link else None,
            graph_break_id=link.group(2).upper() if link else None, advice=advice, explained=BREAKS,
            parts=tuple(parts), cost_counts=_cost_counts(self),
            detail="\n\n".join(failure.raw for failure in (*self.merged.values(), *self.by_products.values())
                               if failure is not None))


def _symbols_at(trace: Trace, compile_id: str, user: SourceLine | None) -> str:
    """The values the compile made symbols at the user's line, in the user's words (```lr` and the number
    `loss.item()` returned``): torch's ``create_symbol`` records name each and the line it was made at."""
    if user is None:
        return ""
    names: list[str] = []
    for artifact in _named(trace, "create_symbol"):
        frame = artifact.metadata.get("user_frame")
        if artifact.compile_id != compile_id or not isinstance(frame, dict) or frame.get("line") != user.line:
            continue
        source = parse_source(str(artifact.metadata.get("source") or ""))
        named = naming(source) if source is not None else None
        if named is None or named.attribute is not None:  # a size's symbol, or nothing the grammar reads
            continue
        said = stack_value_words(user.code, None, str(artifact.metadata.get("val") or "")) \
            if named.stack is not None else f"`{named.name}`" if named.name else ""
        if said and said not in names and not said.startswith("a value computed"):
            names.append(said)
    return " and ".join(names)


_INDEX: list = [None, -1, {}]  # the trace last indexed, its record count then, its records by name


def _named(trace: Trace, name: str) -> list[Artifact]:
    """The trace's records of one name, indexed once per trace (each group scanning every record grew with their
    product on a large log)."""
    if _INDEX[0] is not trace or _INDEX[1] != len(trace.artifacts):
        index: dict[str, list[Artifact]] = {}
        for artifact in trace.artifacts:
            index.setdefault(artifact.name, []).append(artifact)
        _INDEX[:] = [trace, len(trace.artifacts), index]
    return _INDEX[2].get(name, [])


def _by_product_parts(group: BreakGroup, compiles: dict[str, CompileFacts]) -> list[str]:
    """The skip's by-products, said: the skipped version's own recompile, then each code that compiled on its own."""
    parts = [f"compile {compile_id} is a recompile of {frame_words(compiles[compile_id].frame)}: {failure.sentence}; "
             "that version is the one that broke here" for compile_id, failure in group.by_products.items()
             if compile_id in group.ids and failure is not None]
    codes: dict[str, list[str]] = {}
    for compile_id in group.by_products:
        if compile_id not in group.ids:
            codes.setdefault(frame_words(compiles[compile_id].frame), []).append(compile_id)
    for words, ids in codes.items():
        changes = [group.by_products[compile_id].sentence for compile_id in ids if group.by_products[compile_id]]
        parts.append(f"{words} compiled on its own as the frame ran eagerly: {len(ids)} version"
                     f"{'s' if len(ids) != 1 else ''} ({', '.join(ids)})"
                     + (f", recompiled when {' and when '.join(changes)}" if changes else "")
                     + ": not a cause of its own, and not in the cost (that code compiles inside the frame once the "
                     "break is gone)")
    return parts


def claim_by_products(groups: list[BreakGroup], evidence: RunEvidence, trace: Trace,
                      compiles: dict[str, CompileFacts]) -> set[str]:
    """A frame Dynamo could not resume runs eagerly, so the codes it calls compile on their own: where every compile
    of a code was called from the skipped frame and each of its recompiles is a change the skipped frame's own
    versions recompiled for (the same kind, the same dimension: the calls its versions served before the skip), those
    recompiles repeat the frame's and are the skip's doing, as is the skipped compile's own recompile on a size (the
    dynamic version that broke). They join the skip's group; returns their ids, which no recompile finding says again. A code that
    recompiled for a change of its own (a config field its forward sets) keeps its finding: the fix leaves it."""
    claimed: set[str] = set()
    failures = evidence.failures
    defs = def_lines(compiles)
    by_code: dict[str, list[str]] = {}  # a code's compiles (``0`` of ``0/3``; ``r1:0`` after a reset), in order
    for compile_id in sorted(compiles, key=compile_identity.sort_key):
        if "/" in compile_id:
            by_code.setdefault(compile_id.rpartition("/")[0], []).append(compile_id)
    for group in groups:
        if not group.skipped:
            continue
        # a size change whose new (dynamic) version is the one that broke, or a number that version made a symbol
        # where the break is on a symbolic value: "compiled it as dynamic" would say of a version that compiled
        # nothing; another change (a flag the user set) keeps its own finding and advice
        symbolic = {found.compile_id for found in symbolic_breaks(group.artifacts)}
        for compile_id in group.ids:
            failure = failures.get(compile_id)
            if failure is not None and compile_id in compiles and not compiles[compile_id].graphs and (
                    failure.kind == "size" or (compile_id in symbolic and failure.kind == "value" and
                                               evidence.made_symbolic(compile_id, failure.source, PLAIN_VALUE))):
                group.by_products[compile_id] = failures[compile_id]
                claimed.add(compile_id)
        skipped = {defined_at(compiles[compile_id].frame) for compile_id in group.ids if compile_id in compiles}
        skipped.discard(None)
        own = {code for code, ids in by_code.items() if any(compile_id in group.ids for compile_id in ids)}
        changes = {(failures[compile_id].kind, failures[compile_id].dimension) for code in own
                   for compile_id in by_code[code] if compile_id in failures}
        for code, ids in by_code.items():
            recompiles = [failures[compile_id] for compile_id in ids if compile_id in failures]
            if code in own or not skipped or not recompiles or \
                    any((failure.kind, failure.dimension) not in changes for failure in recompiles):
                continue
            callers = [direct_caller(trace, compile_id) for compile_id in ids]
            if all(caller is not None and enclosing(caller, defs) in skipped for caller in callers):
                for compile_id in ids:  # a version with no graph is the nested kind (claim_nested): in the cost
                    if compile_id in compiles and compiles[compile_id].graphs:
                        group.by_products[compile_id] = failures.get(compile_id)
                        claimed.update({compile_id} & set(failures))
    return claimed


def defined_at(frame: str | None) -> tuple[str, str, int] | None:
    """(file name, function, its def line) of a compiled frame, from ``Net.forward (net.py:12)``."""
    found = _FRAME_FILE_LINE.search(frame or "")
    return (_file_name(found.group(1)), _function(frame), int(found.group(2))) if found else None


def def_lines(compiles: dict[str, CompileFacts]) -> dict[tuple[str, str], list[int]]:
    """(file name, function) -> the def lines of the compiled functions of that name in that file, in order."""
    lines: dict[tuple[str, str], set[int]] = {}
    for facts in compiles.values():
        place = defined_at(facts.frame)
        if place is not None:
            lines.setdefault(place[:2], set()).add(place[2])
    return {key: sorted(found) for key, found in lines.items()}


def enclosing(caller: SourceLine, defs: dict[tuple[str, str], list[int]]) -> tuple[str, str, int] | None:
    """The compiled function a caller's line is in: of those of its name in its file, the last defined above it
    (two ``forward``s in one file are told apart by where each starts)."""
    key = (_file_name(caller.path), caller.function)
    above = [line for line in defs.get(key, ()) if line <= caller.line]
    return (*key, above[-1]) if above else None


_UNRESUMABLE = "cannot resume from"  # torch's reason for a break it compiles up to and skips the rest after
_CONTEXT_SKIP = ("Dynamo cannot resume inside `{code}` (line {line}), a context manager it cannot split at a graph "
                 "break, so every call of this function runs eagerly. Compile the work inside the block{inner} and call "
                 "this function uncompiled, so that the `with` block and the call that breaks{broken} run as plain "
                 "Python.")
# torch's note on a second break raised while handling the first inside a context manager, with the user's `with` line
_CONTEXT_BREAK = re.compile(r"Graph break under GenericContextWrappingVariable.*?File \"([^\"]+)\", line (\d+)\n\s*"
                            r"(with [^\n]*?):?\s*\n", re.S)


def _context_of(payload: str, trace: Trace) -> SourceLine | None:
    """The user's ``with`` line whose context manager a skipped frame's break happened in, where torch names it."""
    found = _CONTEXT_BREAK.search(payload)
    if found is None or is_library(found.group(1)):
        return None
    return SourceLine(found.group(1), int(found.group(2)), "", found.group(3).strip().rstrip(":"))


def skipped_places(group: BreakGroup, compiles: dict[str, CompileFacts]) -> set[tuple[str, str]]:
    """(file name, function) of the frames the group's breaks sent to eager."""
    return {(_file_name(found.group(1)), _function(facts.frame)) for compile_id in group.ids
            if (facts := compiles.get(compile_id)) and (found := _FRAME_FILE.search(facts.frame or ""))}


def _compiled_inside(group: BreakGroup, trace: Trace, compiles: dict[str, CompileFacts]) -> str:
    """`` (`Net.forward`, called at line 24, which already compiled on its own: compile it)``: what the skipped frame
    itself called that compiled with a graph and no break, the part worth compiling; empty where nothing did."""
    skipped = skipped_places(group, compiles)
    broken = {compile_identity.torch_id(artifact.compile_id).rpartition("/")[0] for artifact in trace.artifacts
              if artifact.kind == "break" and artifact.compile_id}
    inner: dict[str, int] = {}
    for compile_id, facts in compiles.items():
        caller = direct_caller(trace, compile_id)
        if not facts.graphs or caller is None or (_file_name(caller.path), caller.function) not in skipped or \
                compile_identity.torch_id(compile_id).rpartition("/")[0] in broken:
            continue
        inner.setdefault(short(facts.frame or ""), caller.line)
    if not inner:
        return ""
    named = ", ".join(f"`{name}`, called at line {line}" for name, line in list(inner.items())[:3])
    return f" ({named}, which already compiled on its own: compile {'it' if len(inner) == 1 else 'them'})"


_ONE_LINE = ("One line causes all of these: move it out of the compiled function (compute the value outside and pass "
             "it in; for a print or a .item(), return the tensor and use it after the call), so no break crosses it.")
# A value handed across the break recompiled the code after it: passed in as a Python number it is guarded all the same.
_AS_TENSOR = (" The value then comes in as an argument, and a Python number passed in is guarded as it is now ({version}"
              " was compiled for another value of it): pass it as a tensor (`torch.tensor(value)`) where the code only "
              "computes with it; where it sets a size (a slice's length), do the sized work outside the compiled "
              "function too, or mark that size dynamic.")


def _passed_in(merged: dict[str, GuardFailure]) -> str:
    """What the value handed across the break needs once it is passed in, where a later version was compiled for it."""
    version = next((compile_id for compile_id, failure in merged.items() if failure.kind == "value"), None)
    return _AS_TENSOR.format(version=version) if version else ""


_BACKWARD = "Tensor.backward()"
_BACKWARD_ADVICE = ("Return the loss and make the backward call{call} after the compiled call: with Inductor or "
                    "aot_eager the backward of the compiled forward is compiled all the same (AOTAutograd builds it).")
_DDP_BREAK = ("torch.compile(DDP(model)) compiles DDP's own forward, which breaks the graph: compile the module DDP "
              "wraps instead, DDP(torch.compile(model)), and Dynamo's DDPOptimizer splits its graph at the gradient "
              "buckets.")
_LIBRARY_BREAK = ("The break is in the code of {package} at {where}{code}, which your call at {line} runs: torch's hint is "
                  "about that code, not yours. What you control is whether your call runs it: such code often runs "
                  "only for an option of the call or of the model's config (labels passed in, a layer drop or a "
                  "dropout while training, an output option). Where one does, change it, or compute that part "
                  "outside the compiled function.")
_FIRST_CALL = ("The break is in the code of {package} at {where}, which runs in the first call only. Run that first call "
               "eagerly, so the set-up happens outside any compile: call the model once before compiling it, or make "
               "the first call under torch.compiler.set_stance(\"force_eager\").")
_UNSET = ("In this run, the compile that broke read {names} as None (its guards pin it): "
          "code that chooses its path by such a setting may take this one only while it is unset, so where your task "
          "tells what it {were} meant to be, set it before the first call and trace again.")
_SETTING_HINT = re.compile(r"torch\._(?:dynamo|inductor)\.config\.\w+")  # a setting: the tracer checks it
_DISABLED = re.compile(r"Skip calling function `<function (\S+) at 0x[0-9a-f]+>` since it was wrapped with "
                       r"`torch\.compiler\.disable`")


_BRANCH_REWRITE = "branch_rewrite"  # capture/branch_rewrites.py's record
_WHERE_REWRITE = ("Write the branch as one tensor op, in place of lines {first}-{last}: `{paste}`. Both sides are "
                  "computed and the condition stays a tensor, so nothing leaves the graph; where one side is costly or "
                  "not valid for the other's inputs, keep the branch outside the compiled function instead.")


def _branch_rewrite(trace: Trace, breaks: list[Artifact]) -> dict[str, Any] | None:
    """The capture's torch.where rewrite of the `if` the breaks happened at, where it wrote one."""
    at = {str(artifact.metadata.get("location") or "") for artifact in breaks}
    for artifact in _named(trace, _BRANCH_REWRITE):
        meta = artifact.metadata
        if meta.get("location") in at and isinstance(meta.get("paste"), str) \
                and isinstance(meta.get("first"), int) and isinstance(meta.get("last"), int):
            return {"paste": meta["paste"], "first": meta["first"], "last": meta["last"]}
    return None


@dataclass(frozen=True)
class FirstCall:
    """A code whose first version alone broke: its later versions, and the one compiled for the set-up's flag."""

    code: str  # ``0`` of ``0/1``
    later: list[str]
    flipped: str | None = None  # the later version compiled only because the set-up flipped a True/False value


def first_call_only(group: BreakGroup, failures: dict[str, GuardFailure],
                    compiles: dict[str, CompileFacts]) -> FirstCall | None:
    """Where the group's breaks are in one version of a code only, and later versions with graphs compiled without
    them for new sizes of that version's calls (a chain of size changes from it: the same calls, so the same path; a
    version for another mode, an evaluation's, may simply not take the path that breaks, and says nothing), or for a
    True/False value flipped once against it (the set-up's own ``installed`` flag, never changing again): the break's
    code ran in the first call that reached it alone."""
    ids = set(group.ids)
    for code in dict.fromkeys(compile_id.rpartition("/")[0] for compile_id in group.ids if "/" in compile_id):
        versions = sorted((compile_id for compile_id in compiles if compile_id.rpartition("/")[0] == code),
                          key=compile_identity.sort_key)
        broken = [compile_id for compile_id in versions if compile_id in ids]
        if len(broken) != 1:
            continue
        flipped = _flipped_once(versions, broken[0], failures)
        chain, later = {broken[0]}, []
        for compile_id in versions[versions.index(broken[0]) + 1:]:
            failure = failures.get(compile_id)
            if compile_id == flipped or (compiles[compile_id].graphs and failure is not None and
                                         failure.kind == "size" and failure.version in chain):
                chain.add(compile_id)
                later.append(compile_id)
        if later:
            return FirstCall(code, later, flipped)
    return None


_FLAG = re.compile(r"^it was (True|False)\b")


def _flipped_once(versions: list[str], broken: str, failures: dict[str, GuardFailure]) -> str | None:
    """The version right after ``broken``, where it was compiled because a True/False attribute ``broken`` had
    changed, and no other version of the code failed on that value."""
    index = versions.index(broken) + 1
    failure = failures.get(versions[index]) if index < len(versions) else None
    # an attribute the code keeps (``self.installed``): an argument's own value (``output_attentions``) is an option
    # of the call, which takes the other path for a reason of its own
    if failure is None or failure.kind != "value" or failure.version != broken or not _FLAG.match(failure.change) or \
            "." not in failure.subject:
        return None
    name = failure.source or failure.subject
    again = [compile_id for compile_id in versions if compile_id != versions[index] and compile_id in failures
             and name in (failures[compile_id].source, failures[compile_id].subject)]
    return None if again else versions[index]


def _unset_config(evidence: RunEvidence, compile_ids: tuple[str, ...]) -> list[str]:
    """The model config fields the compiles' guards pin to None (``self.config.problem_type``), in order."""
    names: list[str] = []
    for compile_id in compile_ids:
        names += [name for name, value in evidence.pinned_values.get(compile_id, {}).items()
                  if value == "None" and ".config." in name and name not in names]
    return names


def _change_values(change: str) -> str:
    """``159 before, now 239`` of ``dimension 2: 159 before, now 239``: the same change in any dimension."""
    return re.sub(r"^dimension \d+: ", "", change)


def _cost_counts(group: BreakGroup) -> str:
    said = []
    if group.merged:
        said.append("its recompiles")
    said.append("traced work thrown away")
    return ", ".join(said)


def _title(artifact: Artifact) -> str:
    meta = artifact.metadata
    return str(meta.get("title") or meta.get("reason") or "?")


def resume_firsts(compiles: dict[str, CompileFacts]) -> dict[Place, list[str]]:
    """The first compile of each resume function, by the (file, function, line) it continues after, in compile order:
    one pass over the compiles, where each group searching them all grew with groups × compiles."""
    firsts: dict[Place, list[str]] = {}
    for compile_id, facts in compiles.items():
        place = _resumed_at(facts.frame)
        if place is not None and compile_identity.torch_id(compile_id).endswith("/0"):
            firsts.setdefault(place, []).append(compile_id)
    return firsts


def group_breaks(trace: Trace, compiles: dict[str, CompileFacts]) -> list[BreakGroup]:
    """One group per user line (a library place where torch's traceback shows no line of the user's)."""
    groups: dict[tuple, BreakGroup] = {}
    for artifact in trace.artifacts:
        if artifact.kind != "break":
            continue
        location = str(artifact.metadata.get("location", "?"))
        frames = traceback_lines(artifact.payload or "")
        user, library = user_and_library(frames, location)
        skipped = FRAME_SKIPPED in (artifact.payload or "")
        # A logging call is one cause wherever it is reached from (its fix, ignoring it, is per function): two loggers
        # a library reaches from one line of the user's are two findings, one logger reached from two lines is one.
        if _LOGGING.search(_title(artifact)) and library is not None:
            key: tuple = ("log", location, skipped)
        elif library is not None and not (user and _IN_OPTIM in library.path.replace("\\", "/")):
            # each library line is a cause of its own, whichever line of the user's reaches it; torch.optim's own
            # breaks are the step the user's line makes (its skipped wrappers, its deliberate graph_break()): one
            key = ("library", location, skipped)
        else:
            key = ("user", user.path, user.line, skipped) if user else ("at", location, _title(artifact), skipped)
        group = groups.get(key)
        if group is None:
            group = groups[key] = BreakGroup([], user, library, skipped)
        group.artifacts.append(artifact)
        group.places.update((_file_name(frame.path), frame.function, frame.line) for frame in frames)
        happened = parse_location(location)
        facts = compiles.get(artifact.compile_id or "")
        if happened is not None and facts is not None:
            group.places.add((_file_name(happened.path), _function(facts.frame), happened.line))
    return list(groups.values())


def merge_stack_recompiles(groups: list[BreakGroup], failures: dict[str, GuardFailure],
                           compiles: dict[str, CompileFacts]) -> set[str]:
    """Recompiles of a resume function on a value the break's line computed (``print(loss.item())``'s float) are
    that line's doing: they join its group. Returns their compile ids."""
    merged: set[str] = set()
    carried = {_change_values(failure.change) for failure in failures.values()
               if failure.kind in _CARRIED and not failure.on_stack and failure.change}
    home_of: dict[Place, int] = {}  # each place's first group: looked up, not every group asked per recompile
    for index, group in enumerate(groups):
        for place in group.places:
            home_of.setdefault(place, index)
    for compile_id, failure in failures.items():
        facts = compiles.get(compile_id)
        # a tensor's size, dtype or device that changed as a named input's did (the same values) is the input's
        # change carried through the break: the input's finding; a number or a size the line computed is the line's
        if facts is None or (failure.kind in _CARRIED and _change_values(failure.change) in carried):
            continue
        place = _resumed_at(facts.frame)
        if not failure.on_stack:  # a local the break's line assigned (``n = mask.sum().item()``), used after a later break
            # pinned to the value it had (a range guard is a branch on it, already symbolic: a cause of its own)
            pinned = failure.kind == "value" and _WAS.match(failure.change) is not None
            home = _assigned_by(groups, failure, place) if place is not None and pinned else None
            if home is not None:
                groups[home].merged[compile_id] = failure
                merged.add(compile_id)
            continue
        home = home_of.get(place) if place is not None else None
        if home is not None:
            groups[home].merged[compile_id] = _by_break_line(failure, groups[home].user, place[2])
            merged.add(compile_id)
    return merged


_READS_VALUE = re.compile(r"Tensor\.item|\.item\(\)|\.tolist\(\)|Tensor\.tolist", re.I)


def _assigned_by(groups: list[BreakGroup], failure: GuardFailure, place: Place) -> int | None:
    """The group of the break whose line assigned the changed local a number read out of a tensor (``n_tokens =
    (labels != -100).sum().item()``), earlier in the function the resume function continues: its value is what that
    line computed, whichever later break handed it on."""
    for index, group in enumerate(groups):
        user = group.user
        target = _ASSIGNED.match(user.code or "") if user is not None else None
        if user is None or target is None or _file_name(user.path) != place[0] or user.function != place[1] or \
                user.line > place[2] or failure.subject not in re.split(r"\s*,\s*", target.group(1)):
            continue
        if any(_READS_VALUE.search(_title(artifact)) for artifact in group.artifacts):
            return index
    return None


_ASSIGNED = re.compile(r"^\s*(\w+(?:\s*,\s*\w+)*)\s*=(?!=)")


_WAS = re.compile(r"^it was (\S+) when")


def _by_break_line(failure: GuardFailure, user: SourceLine | None, line: int) -> GuardFailure:
    """A value handed across the break is what the break's line computed (``peak = h.max().item()``'s number),
    not the line after it where the guard records its use: said by the break's line."""
    if user is None or user.line != line or not user.code:
        return failure
    found = _WAS.match(failure.change)
    return replace(failure, subject=stack_value_words(user.code, line, found.group(1) if found else ""))

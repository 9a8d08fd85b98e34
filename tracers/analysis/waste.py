"""Findings about the run as a whole: nothing compiled at all, compiles thrown away or repeated that no break or
recompile explains, warm-run cache misses, and what is worth knowing (DDP's intended splits, a dominant stage)."""

from __future__ import annotations

import re
from collections import defaultdict

from tracers.tracefile.events import Trace
from tracers.tracefile.stages import STAGE_BY_ID
from tracers.vocabulary.durations import duration

from .by_code import by_code
from .failures import failed
from .finding_type import CACHES, DISTRIBUTED, KERNEL_SELECTION, RESTARTS, SETUP, Explained, Finding, Ledger
from .frames import SourceLine, block_caller, compiled_in_a_loop, is_library, short
from .one_time import ONE_TIME_STAGES, OneTime
from .trace_facts import DDP_SPLIT_CHILD, CompileFacts, TraceFacts
from .user_names import frame_words

# Checked: DDP(torch.compile(module)) gets its graph where torch.compile(DDP(torch.nn.Sequential(...))) gets none
# (tests/programs/findings/ddp_sequential.py and its variant in tests/tracers/analysis/test_findings.py).
_DDP_FIX = ("Compile the module DDP wraps instead, DDP(torch.compile(model)); or wrap a module whose forward is your "
            "own code, so Dynamo compiles it as a frame of its own after DDP's forward breaks (chapter 19's example).")


def _line(meta: dict) -> SourceLine:
    """A compile-call's line (the user's below a library's call, where one called torch.compile for the user)."""
    line = meta.get("line")
    return SourceLine(str(meta.get("filename")), line if isinstance(line, int) else 0, str(meta.get("name") or ""),
                      str(meta.get("loc") or ""))


def _ended(trace: Trace) -> str:
    info = trace.info
    error = (info.error or "").splitlines()
    return {"error": f"it raised {error[0][:120]}" if error else "it raised", "exit": f"exit {info.exit_code}",
            "interrupted": "Ctrl-C", "terminated": "SIGTERM"}.get(info.status, info.status)


def nothing_compiled(trace: Trace, facts: TraceFacts, compiles: dict[str, CompileFacts],
                     breaks: list[Finding]) -> list[Finding]:
    """torch.compile ran but produced no graph at all: everything ran eager, whatever else the findings say."""
    frame_compiles = facts.frame_compiles
    if not facts.compiles and COMPILE_ENTRY in facts.fired:
        calls = facts.stage_calls.get("entry", 0)
        called = [_line(artifact.metadata.get("user") if isinstance(artifact.metadata.get("user"), dict)
                        else artifact.metadata) for artifact in trace.artifacts if artifact.kind == "compile-call"]
        if trace.info.status not in ("ok", "running"):
            # the run ended (raised, was stopped) before anything was compiled: whether the compiled callable would
            # have been called is not for the trace to say
            return [Finding(
                kind="nothing-compiled", what=f"torch.compile was called, but the script ended ({_ended(trace)}) "
                                              "before Dynamo compiled a frame", events=0, compile_ids=(), cost_s=0.0,
                user_line=next((line for line in called if not is_library(line.path)), None),
                parts=(f"torch.compile's entry ran {calls} time{'s' if calls != 1 else ''}; no frame reached Dynamo "
                       "before the end",), explained=RESTARTS, informational=True)]
        return [Finding(
            kind="nothing-compiled", what="torch.compile was called, but Dynamo never compiled a frame: no call went "
                                          "through what it returned, so everything ran eager", events=0,
            compile_ids=(), cost_s=0.0, user_line=next((line for line in called if not is_library(line.path)), None),
            parts=(f"torch.compile's entry ran {calls} time{'s' if calls != 1 else ''}; "
                                               "no frame reached Dynamo",),
            advice=_NEVER_CALLED, explained=RESTARTS)]
    # compiles an exception ended are each said by their own finding, with where the exception went
    if not frame_compiles or facts.graph_count or \
            {c.compile_id for c in frame_compiles} <= {c.compile_id for c in failed(facts)}:
        return []
    names = [short(compile_facts.frame or "?") for compile_facts in frame_compiles]
    ddp = any(name.startswith("DistributedDataParallel.") for name in names)
    frames = list(dict.fromkeys(frame_words(name) for name in names))
    why = "; ".join(dict.fromkeys(finding.what for finding in breaks)) if breaks else \
        "Dynamo traced the frames and found no tensor work to compile"
    spent_ns = sum(compile_facts.time_ns for compile_facts in frame_compiles)
    what = (f"torch.compile produced no graph: {len(frame_compiles)} compile{'s' if len(frame_compiles) != 1 else ''} "
            f"({duration(spent_ns)}) and every call ran eager")
    if ddp:
        what += " — DDP's forward broke the graph and nothing after it was compiled"
    return [Finding(
        kind="nothing-compiled", what=what, events=len(frame_compiles),
        compile_ids=tuple(compile_facts.compile_id for compile_facts in frame_compiles), cost_s=0.0,
        parts=(f"frames compiled: {', '.join(frames[:4])}" + (" …" if len(frames) > 4 else ""), f"why: {why}"),
        advice=_DDP_FIX if ddp else "See the graph breaks below: each one sent its frame back to eager.",
        explained=DISTRIBUTED if ddp else RESTARTS)]


_BENCHMARK = "the first kernel benchmark"  # one_time.py's name for the benchmarker's setup
COMPILE_ENTRY = "torch:compile"  # the stages table's target for torch.compile itself
_NEVER_CALLED = ("Call what torch.compile returned, not the original: `model = torch.compile(model)` compiles the "
                 "wrapper's `__call__`, so another method of it (`.generate()`, a helper) runs the module's own code "
                 "uncompiled. To compile every call of the model, those inside `generate()` included, compile it in "
                 "place: `model.compile()`.")


def _generated(frame: str | None) -> bool:
    """``__init__ (<string>:2)``: a frame of code Python generated (exec of a string), not of a file."""
    return bool(frame) and "(<string>:" in frame


def _placed(frame: str | None) -> str:
    """``the rest of `__init__` after line 105 (contextlib.py:105)``: the frame in the user's words, with its place."""
    place = f" ({frame.split(' (', 1)[1]}" if frame and " (" in frame else ""
    return frame_words(frame) + place


def thrown_away(compiles: dict[str, CompileFacts], ledger: Ledger) -> list[Finding]:
    """Compiles that produced no graph, and restarts, that no other finding explains."""
    empty = [facts for facts in compiles.values()
             if not ledger.counted(facts.compile_id) and facts.graphs == 0 and "/" in facts.compile_id
             and not facts.fail_reason and facts.time_ns]
    out = []
    if empty:
        cost = sum(ledger.whole(facts.compile_id) for facts in empty)
        # Named with their places: a generated "__init__" alone says little.
        frames = "; ".join(list(dict.fromkeys(_placed(facts.frame) for facts in empty))[:3])
        out.append(Finding(
            kind="thrown-away", what=f"{len(empty)} compile{'s' if len(empty) != 1 else ''} traced a frame and produced "
                                     f"no graph ({frames})", events=len(empty),
            compile_ids=tuple(facts.compile_id for facts in empty), cost_s=cost, cost_counts="those compiles",
            advice="Dynamo traced these frames and found no tensor work to compile: what they cost is that tracing, "
                   "once per version, and their later calls run their Python as before. Nothing to fix unless the cost "
                   "matters; torch.compiler.disable on them saves the tracing but makes each call a graph break in the "
                   "frame that calls it.", explained=RESTARTS,
            # Code Python generated (a dataclass's __init__, a namedtuple's __new__) is nobody's to move: a note.
            informational=all(_generated(facts.frame) for facts in empty)))
    restarted = [facts for facts in compiles.values()
                 if not ledger.counted(facts.compile_id) and facts.graphs and facts.restart_ns]
    if restarted:
        cost = sum(ledger.restart(facts.compile_id) for facts in restarted)
        reason = next((reason for facts in restarted for reason in facts.restarts), "")
        out.append(Finding(
            kind="thrown-away", what=f"Dynamo restarted {len(restarted)} compile{'s' if len(restarted) != 1 else ''} "
                                     f"and threw the traced work away ({short(reason.splitlines()[0]) if reason else '?'})",
            events=len(restarted), compile_ids=tuple(facts.compile_id for facts in restarted), cost_s=cost,
            cost_counts="the tracing thrown away",
            advice="A restart retraces the frame from its first instruction with what the failed attempt learnt.",
            explained=RESTARTS))
    return out


def cache_misses(trace: Trace, compiles: dict[str, CompileFacts], ledger: Ledger) -> list[Finding]:
    if trace.info.cache_mode != "warm":
        return []
    missed = [compile_facts for compile_facts in compiles.values()
              if any(event.outcome == "miss" for event in compile_facts.cache)]
    if not missed:
        return []
    caches = sorted({event.cache for compile_facts in missed for event in compile_facts.cache if event.outcome == "miss"})
    return [Finding(
        kind="cache-miss", what=f"A warm run missed the {' and '.join(caches)} cache in {len(missed)} "
                                f"compile{'s' if len(missed) != 1 else ''}: they compiled from scratch",
        events=len(missed), compile_ids=tuple(compile_facts.compile_id for compile_facts in missed),
        cost_s=sum(ledger.whole(compile_facts.compile_id) for compile_facts in missed), cost_counts="those compiles",
        advice="A miss on a warm run means the cache key changed: another torch or config, changed code, new input "
               "shapes, or another cache dir (TORCHINDUCTOR_CACHE_DIR).", explained=CACHES)]


def ddp_splits(trace: Trace) -> list[Finding]:
    """DDPOptimizer's graph breaks at bucket boundaries: torch counts them as breaks, but they are meant."""
    splits = [artifact for artifact in trace.artifacts if artifact.name == DDP_SPLIT_CHILD]
    if not splits:
        return []
    ids = tuple(sorted({artifact.compile_id for artifact in splits if artifact.compile_id}))
    return [Finding(
        kind="ddp-split", what=f"DDPOptimizer split the graph at {len(splits)} bucket boundar"
                               f"{'ies' if len(splits) != 1 else 'y'} (torch counts each as a graph break; they are "
                               "intended: each bucket's all-reduce can start while the backward goes on)",
        events=len(splits), compile_ids=ids, cost_s=0.0, explained=DISTRIBUTED, informational=True)]


_STAGE_ADVICE = {
    "bytecode": "Dynamo traces every inlined call again in each frame it compiles: compile the repeated block (each "
                "layer) instead of the whole model (regional compilation), so it is traced once and reused.",
}
# What a stage's time is on a device, where its title alone would mislead.
_STAGE_WORDS = {
    ("load", "cpu"): "on the CPU this is the C++ compiler building each generated kernel; a warm run loads them "
                     "from the cache instead",
}
_SETUP_SHOWN_NS = 100_000_000  # below a tenth of a second, one-time setup is not worth a line


def one_time_setup(setup: OneTime, facts: TraceFacts) -> list[Finding]:
    """The run's one-time setup, said as such: in the first compile that needed it, on no line of the user's."""
    whole_ns = sum(compile_facts.time_ns for compile_facts in facts.compiles)
    if setup.ns < _SETUP_SHOWN_NS or not whole_ns:
        return []
    ns = min(setup.ns, whole_ns)
    ids = setup.compile_ids()
    where = f"compile {', '.join(ids)}" if ids else "the run's compiles"
    return [Finding(
        kind="one-time", what=f"One-time setup took {duration(ns)} of the run's "
                              f"{duration(whole_ns)} of compile ({ns / whole_ns:.0%}): it ran inside "
                              f"{where}, but no line of yours caused it, and no finding's cost counts it",
        events=len(setup.parts), compile_ids=ids, cost_s=0.0,
        parts=tuple(f"{part.what}: {duration(part.ns)}, {part.once}" for part in setup.parts),
        advice="A later compile in this process does without it. The ISA check recurs in every new process, warm "
               "runs included: its test programs are built once per machine (torch's cache dir keeps them for your "
               "runs, and the tracer's store for cold traces), but each process loads every one again, so a short "
               "script pays that each time.",
        # the C++ chapter where the CPU's checks ran; the kernel-selection section where only a benchmark set up
        explained=SETUP if any(not part.what.startswith(_BENCHMARK) for part in setup.parts) else KERNEL_SELECTION,
        informational=True)]


def dominant_stage(trace: Trace, facts: TraceFacts) -> list[Finding]:
    """A stage whose own time (its calls minus the other stages' calls inside them) is most of the run's compile time
    (every compile, backward included): worth knowing, not waste."""
    whole_ns = sum(compile_facts.time_ns for compile_facts in facts.compiles)
    if whole_ns < 1e9:
        return []
    own = own_stage_time(trace)
    # One-time setup has its own finding (one_time_setup); the dominant stage is among the per-compile ones.
    inner = {stage: ns for stage, ns in own.items() if stage not in ("entry", "frame", "user", *ONE_TIME_STAGES)}
    if not inner:
        return []
    stage, ns = max(inner.items(), key=lambda item: item[1])
    ns = min(ns, whole_ns)
    if ns < whole_ns / 2:
        return []
    known = STAGE_BY_ID.get(stage)
    title = known.title if known else stage
    words = _STAGE_WORDS.get((stage, trace.info.device))
    return [Finding(
        kind="slow-stage", what=f"{title} took {duration(ns)} of the run's {duration(whole_ns)} "
                                f"of compile ({ns / whole_ns:.0%}; its own time, not the steps of other stages it "
                                f"called){f': {words}' if words else ''}",
        events=facts.stage_calls.get(stage, 0), compile_ids=(), cost_s=0.0,
        advice=_bytecode_advice(trace, facts) if stage == "bytecode" else _STAGE_ADVICE.get(stage),
        explained=Explained(known.chapter, known.title) if known else None, informational=True)]


_REPEATED = 4  # a module's forward traced this often in one compile: a stack of blocks worth compiling once
_IN_RECOMPILES = ("Most of it is the recompiles' tracing ({share:.0%} of the compile time): each traces the whole "
                  "function again, and their findings say how to save them.")

_AT_BREAKS = ("Most of it is tracing that graph breaks threw away ({share:.0%} of the compile time: frames traced to a "
              "break and compiled with no graph, and traces restarted at one): the break findings say how to save it. "
              "Compiling a smaller region instead helps only where it leaves the breaking code out.")


def _bytecode_advice(trace: Trace, facts: TraceFacts) -> str | None:
    """What to do about slow bytecode tracing, as the run shows it: the recompiles where they are most of it, regional
    compilation only where one compile traced a repeated block (a layer's forward) many times, and not followed yet."""
    whole = sum(compile_facts.time_ns for compile_facts in facts.compiles)
    recompiled = {recompile.compile_id for recompile in facts.recompiles}
    again = sum(compile_facts.time_ns for compile_facts in facts.compiles if compile_facts.compile_id in recompiled)
    if whole and again / whole >= 0.5:
        return _IN_RECOMPILES.format(share=again / whole)
    # tracing that graph breaks threw away: whole compiles that produced no graph, and the restarts of the others
    broke = {found.compile_id for found in facts.graph_breaks}
    lost = sum(compile_facts.time_ns if not compile_facts.graphs else compile_facts.restart_ns
               for compile_facts in facts.compiles
               if compile_facts.compile_id in broke and compile_facts.compile_id not in recompiled)
    if whole and lost / whole >= 0.5:
        return _AT_BREAKS.format(share=lost / whole)
    if _regional(trace, facts):
        return None
    repeated = any(row.calls >= _REPEATED and row.code.split(" (", 1)[0].endswith(".forward")
                   for compiled in by_code(trace).compiles for row in compiled.rows)
    if not repeated:
        return None
    own = _per_block_constants(trace)
    if own is not None:  # the block's own number is guarded: one version per block
        name, values = own
        return _PER_BLOCK.format(name=name, values=", ".join(values), count=len(values))
    return _STAGE_ADVICE["bytecode"]


# ``L['self']._modules['layers']._modules['3']._modules['self_attn'].layer_idx == 3``: a number each block of a
# module list holds for itself, which the compile guards block by block
_BLOCK_CONSTANT = re.compile(r"EQUALS_MATCH: (?:\S*?)\._modules\['(\w+)'\]\._modules\['(\d+)'\]((?:\._modules\['\w+'\])*)"
                             r"\.(\w+) == (-?\d+)\b")
_PER_BLOCK = ("Dynamo traces every inlined call again in each frame it compiles: compiling the repeated block (each "
              "layer) instead of the whole model (regional compilation) can cut that, but each block's `{name}` is "
              "guarded to its own value ({values}), so the block's code compiles one version per block ({count} "
              "here), and past the recompile limit (torch._dynamo.config.recompile_limit) the later blocks run "
              "eagerly: measure it before keeping it.")


def _per_block_constants(trace: Trace) -> tuple[str, list[str]] | None:
    """(``layers[i].self_attn.layer_idx``, its values) where the guards pin a number that differs from block to block
    of one module list."""
    seen: dict[tuple[str, str, str], dict[str, str]] = {}
    for artifact in trace.artifacts:
        if artifact.kind != "guards" or not artifact.payload:
            continue
        for found in _BLOCK_CONSTANT.finditer(artifact.payload):
            blocks, index, path, attribute, value = found.groups()
            seen.setdefault((blocks, path, attribute), {})[index] = value
    for (blocks, path, attribute), values in seen.items():
        if len(values) > 1 and len(set(values.values())) == len(values):
            inner = "".join(f".{part}" for part in re.findall(r"\['(\w+)'\]", path))
            ordered = [values[index] for index in sorted(values, key=int)]
            return f"{blocks}[i]{inner}.{attribute}", ordered
    return None


def _regional(trace: Trace, facts: TraceFacts) -> bool:
    """Some compiled frame is a block its own package's code calls (each layer compiled on its own): the advice to
    compile the repeated block instead is followed already."""
    return compiled_in_a_loop(trace) and any(block_caller(trace, compile_facts.compile_id) is not None
                                             for compile_facts in facts.frame_compiles)


def own_stage_time(trace: Trace) -> dict[str, int]:
    """Per stage, the time inside compiles when the innermost open step was one of its own (each span's time minus its
    children's): a step with no compile id (a C++ build before any compile began) is no share of compile time."""
    children_ns: dict[int, int] = defaultdict(int)
    for span in trace.spans:
        if span.parent is not None:
            children_ns[span.parent] += span.duration_ns
    own: dict[str, int] = defaultdict(int)
    for span in trace.spans:
        if span.compile_id:
            own[span.stage] += max(span.duration_ns - children_ns.get(span.id, 0), 0)
    return dict(own)

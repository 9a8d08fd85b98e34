"""Module hooks the compiled code never runs: added to a compiled module or its submodules after its latest compile,
while torch skipped guards on module hooks (its default), so no guard failed and nothing recompiled."""

from __future__ import annotations

from tracers.tracefile.events import Trace

from .claims import Claim, say
from .finding_type import RECOMPILES, Finding, Remedy
from .run_evidence import RunEvidence
from .frames import SourceLine, is_library, short, user_caller
from .trace_facts import CompileFacts
from .user_names import resume_place

ARTIFACT = "late_hooks"  # capture/late_hooks.py's record
_FIX = ("Register the hook before the first call of the compiled module: Dynamo traces the hooks a module has when it "
        "compiles (compiling it again later reuses the version already made, whose guards ignore hooks). Where hooks "
        "must change after compiling, set torch._dynamo.config.skip_nnmodule_hook_guards = False before the first "
        "compile: Dynamo then guards on the module's hooks and compiles again when one is added.")
_DISABLED_FIX = ("Register the hook wrapped so that it runs eagerly, `register_forward_hook(torch.compiler.disable(fn))` "
                 "(the same for the other kinds), before the first call of the compiled module (or set "
                 "torch._dynamo.config.skip_nnmodule_hook_guards = False before the first compile, where hooks must "
                 "change after compiling): the compiled code then calls it at each call, outside the graph.")
_SKIPPED = ("torch skipped guards on module hooks in this run (torch._dynamo.config.skip_nnmodule_hook_guards, on by "
            "default), so no guard noticed the new hooks")


def _frame_said(frame: str) -> str:
    """``Net.forward``, or ``the rest of `Classifier.forward` after line 28`` for a resume function of it."""
    owner, _, code = frame.rpartition(".")
    place = resume_place(code)
    return f"the rest of `{owner}.{place[0]}` after line {place[1]}" if place else f"`{frame}`"


def ignored_hooks(trace: Trace, evidence: RunEvidence, compiles: dict[str, CompileFacts]) -> list[Finding]:
    """One finding per set of hooks added to a compiled module after a code of it was last compiled (the codes
    compiled before them said together), each named as its compile is (the forward a decorator's wrapper wraps)."""
    # the hooks -> (them, count, the frames compiled before them, the compiles that saw them)
    late: dict[str, tuple[list[dict], int, list[tuple[str, str]], list[str]]] = {}
    for artifact in trace.artifacts:
        meta = artifact.metadata
        if artifact.name != ARTIFACT or not isinstance(meta.get("hooks"), list):
            continue
        # a library's own hooks (transformers' output capturing installs them inside the call) are its design, and
        # whether the code compiled before them needs them is not in the run: nothing is said of them
        hooks = [hook for hook in meta["hooks"] if isinstance(hook, dict)
                 and not (isinstance(hook.get("file"), str) and hook["file"] and is_library(hook["file"]))]
        compile_id = meta.get("compile_id")
        named = compiles[compile_id].frame if isinstance(compile_id, str) and compile_id in compiles else None
        frame = short(named) if named else str(meta.get("frame") or "the compiled module")
        count = meta.get("count") if isinstance(meta.get("count"), int) and meta["count"] >= len(hooks) \
            and len(hooks) == len(meta["hooks"]) else len(hooks)
        # only a version that served calls ran without them: one that produced no graph ran the code eagerly, hooks
        # and all (its calls went to the module's own code)
        if hooks and isinstance(compile_id, str) and evidence.served.get(compile_id):
            entry = late.setdefault(repr(sorted(map(repr, hooks))), (hooks, count, [], []))
            entry[2].append((frame, compile_id))
            if isinstance(meta.get("seen_at"), str):
                entry[3].append(meta["seen_at"])
    found = []
    for hooks, count, frames, seen in late.values():
        frame, compile_id = frames[-1]
        # where the user's code called the module after adding them: a compile of its code that saw them
        after = user_caller(trace, seen[0]) if seen else None
        if after is None:  # no compile saw them: the hook itself, where the user wrote it, is the place
            after = next((SourceLine(hook["file"], hook["line"], str(hook.get("function") or ""),
                                     str(hook.get("loc") or ""))
                          for hook in hooks if isinstance(hook.get("file"), str) and hook["file"]
                          and isinstance(hook.get("line"), int) and hook["line"] > 0), None)
        owner = frame.split(".", 1)[0]
        said = [f"{hook.get('kind', 'hook')} `{hook.get('function', '?')}` on "
                + (f"`{hook['module']}` (in `{owner}`)" if hook.get("module") else f"`{owner}` itself")
                for hook in hooks]
        costly = [_traced_cost(hook) for hook in hooks]
        costly = [said for said in costly if said]
        claims: list[Claim] = []
        why = say(Claim("hook-guards-skipped", (compile_id,), _SKIPPED, "no guard noticed the new hooks"), evidence,
                  claims)
        found.append(Finding(
            kind="hook-ignored",
            what=f"{count} module hook{'s' if count != 1 else ''} added after "
                 f"{' and '.join(f'{_frame_said(name)} ({cid})' for name, cid in frames)} "
                 f"{'was' if len(frames) == 1 else 'were'} last compiled: the compiled code does not run "
                 f"{'them' if count != 1 else 'it'}, and nothing says so",
            events=count, compile_ids=tuple(cid for _, cid in frames), cost_s=0.0, user_line=after,
            parts=(*said, f"{why}: every call of that compiled code after they were added ran without them",
                   *costly),
            advice=_DISABLED_FIX if costly else _FIX, explained=RECOMPILES, claims=tuple(claims),
            # the setting makes the hooks run; for a costly hook its check shows the breaks and recompiles it costs
            remedies=(Remedy("setting", "torch._dynamo.config.skip_nnmodule_hook_guards", False,
                             changes_output=True),)))
    return found


def _traced_cost(hook: dict) -> str:
    """What tracing the hook would cost, from what its code calls (capture/late_hooks.py reads its bytecode): a
    value read into Python breaks the graph, a list it appends to is guarded on its length; "" where neither."""
    reads = [name for name in hook.get("reads") or [] if isinstance(name, str)]
    grows = [name for name in hook.get("grows") or [] if isinstance(name, str)]
    if not reads and not grows:
        return ""
    does = " and ".join(([f"calls {' and '.join(f'`.{name}()`' for name in reads)}"] if reads else []) +
                        ([f"appends to {' and '.join(f'`{name}`' for name in grows)}"] if grows else []))
    costs = ([f"{'each' if len(reads) > 1 else 'that'} call breaks the graph"] if reads else []) + \
        ([f"Dynamo guards on the length of {'each list' if len(grows) > 1 else f'`{grows[0]}`'}, so each append "
          "has the next call compile again, until the recompile limit"] if grows else [])
    return (f"`{hook.get('function', '?')}` {does}: traced by Dynamo (registered before compiling, or with the hook "
            f"guards on), {' and '.join(costs)}")

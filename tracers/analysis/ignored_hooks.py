"""Module hooks the compiled code never runs: added to a compiled module or its submodules after its latest compile,
while torch skipped guards on module hooks (its default), so no guard failed and nothing recompiled."""

from __future__ import annotations

from tracers.tracefile.events import Trace

from .claims import Claim, say
from .finding_type import RECOMPILES, Finding, Remedy
from .run_evidence import RunEvidence

ARTIFACT = "late_hooks"  # capture/late_hooks.py's record
_FIX = ("Register the hook before the first call of the compiled module: Dynamo traces the hooks a module has when it "
        "compiles (compiling it again later reuses the version already made, whose guards ignore hooks). Where hooks "
        "must change after compiling, set torch._dynamo.config.skip_nnmodule_hook_guards = False before the first "
        "compile: Dynamo then guards on the module's hooks and compiles again when one is added.")
_SKIPPED = ("torch skipped guards on module hooks in this run (torch._dynamo.config.skip_nnmodule_hook_guards, on by "
            "default), so no guard noticed the new hook and no call recompiled")


def ignored_hooks(trace: Trace, evidence: RunEvidence) -> list[Finding]:
    """One finding per compiled module that gained hooks after its latest compile."""
    found = []
    for artifact in trace.artifacts:
        meta = artifact.metadata
        if artifact.name != ARTIFACT or not isinstance(meta.get("hooks"), list):
            continue
        hooks = [hook for hook in meta["hooks"] if isinstance(hook, dict)]
        frame, compile_id = str(meta.get("frame") or "the compiled module"), meta.get("compile_id")
        count = meta.get("count") if isinstance(meta.get("count"), int) and meta["count"] >= len(hooks) else len(hooks)
        if not hooks or not isinstance(compile_id, str):
            continue
        owner = frame.rsplit(".", 1)[0]
        said = [f"{hook.get('kind', 'hook')} `{hook.get('function', '?')}` on "
                + (f"`{hook['module']}` (in `{owner}`)" if hook.get("module") else f"`{owner}` itself")
                for hook in hooks]
        claims: list[Claim] = []
        why = say(Claim("hook-guards-skipped", (compile_id,), _SKIPPED,
                        "no guard noticed the new hook and no call recompiled"), evidence, claims)
        found.append(Finding(
            kind="hook-ignored",
            what=f"{count} module hook{'s' if count != 1 else ''} added after `{frame}` was last compiled "
                 f"({compile_id}): the compiled code does not run {'them' if count != 1 else 'it'}, and nothing says so",
            events=count, compile_ids=(compile_id,), cost_s=0.0,
            parts=(*said, f"{why}: every compiled call after the hook was added ran without it"),
            advice=_FIX, explained=RECOMPILES, claims=tuple(claims),
            remedies=(Remedy("setting", "torch._dynamo.config.skip_nnmodule_hook_guards", False,
                             changes_output=True),)))
    return found

"""Recompiles grouped by frame and by what changed, each said against the version it failed, with the recompile limit
attached to the recompile it refused, and advice that fits what torch did next (automatic dynamic or not)."""

from __future__ import annotations

import dataclasses
import re
from collections import Counter
from dataclasses import dataclass, field

from tracers.tracefile.compile_identity import sort_key
from tracers.tracefile.events import Trace, rank_of

from .finding_type import (EXPLANATION, HINT, LIMIT, RECOMPILES, SHAPES, Finding, Ledger, Remedy, first_match,
                           unique_ids)
from .frames import (SourceLine, block_caller, caller_paths, caller_places, compiled_in_a_loop, direct_caller,
                     is_library, library_name, package_of, is_users_file, parse_location, passed_by_user, resumed_call, short, traceback_lines,
                     user_caller)
from .guard_failures import GuardFailure, made_dynamic, parse_failure, size_at
from .guard_sources import (MODULE_DICTS, Attr, Source, call_site, compiled_argument, map_passed, map_wrapper_args,
                            naming, parse_source)
from .claims import Claim, say
from .run_evidence import CompileCall, RunEvidence, Specialisation
from .symbolic_breaks import tells_dynamic, without_dynamic_advice
from .trace_facts import CompileFacts, TraceFacts
from .user_names import frame_words, resume_place, spoken

_LIMIT = re.compile(r"recompile[_ ]limit|cache[_ ]size[_ ]limit", re.I)
_LIMIT_VALUE = re.compile(r"currently set to (\d+)")

_ADVICE = {
    "identity": "Dynamo guards on the identity of `{name}`: every new object compiles a new version. Keep it out of "
                "the compiled function (compile per choice, or select it with a constant), or compile only the part "
                "that does not depend on it.",
    "size": "A size changed and Dynamo compiled a new version for it. Mark the dimension dynamic before the first "
            "call (torch._dynamo.mark_dynamic) if it keeps changing.",
    "dtype": "Each dtype of `{name}` compiles its own version: expected if intended, else cast before the call.",
    "device": "Each device of `{name}` compiles its own version.",
    "requires_grad": "`{name}` switched requires_grad: each setting compiles its own version.",
    "type": "`{name}` arrived with another type: each type compiles its own version.",
    "value": "The value of `{name}` is a constant in the compiled graph: each new value compiles a new version. If it "
             "varies from call to call, pass it as a tensor.",
    "backend": "Each torch.compile backend compiles its own version of the frame: expected when comparing backends.",
    "keys": "Each set of keys `{name}` arrives with compiles its own version, once: pass the same keys on every call "
            "(a default value where a key is optional) if the versions cost more than they are worth.",
    "global": "Nothing to fix: each setting of {name} compiles its own version, once, as expected when one compiled "
              "function serves both training and evaluation under torch.no_grad(). (Compiling the evaluation step on its "
              "own moves that compile there; it does not save it.)",
    "length": "The number of items in `{name}` is fixed in the compiled code: each new count compiles a new version. "
              "Keep the count fixed (pad or group the items to one count), or, where the items share one shape, stack "
              "them into one tensor before the call (items of several shapes then recompile once on their size).",
    "other": "A guard on `{name}` failed: see the reason and the guards of the compile before it.",
}
_ATTRIBUTE = ("`{name}` is {number} attribute of the module: torch.compile treats it as a constant, so each new "
              "value compiles a new version (and once the recompile limit is reached, calls run eager). {fix}")
_BUFFER = ("keep it in a tensor buffer (register_buffer) updated in place, and work on it with tensor ops (torch.clamp, "
           "not min()).")
_COUNTED = "Keep it out of forward (count outside the compiled call), or "
_TORCH_READS = ("`{name}` is {number} attribute that torch's own code reads as a Python number ({where}: `{code}`), so "
                "it is a constant of each version: each new value compiles a new version, and past the recompile "
                "limit calls run eager. A tensor cannot stand in for it there. Keep its values few (change it in a "
                "few steps), or raise torch._dynamo.config.recompile_limit above the number of values it takes.")
_NOT_YOURS = ("The guard is in `{frame}` at {file}, which your line calls, not in your code: state it reads changed "
              "after the version before was compiled.{once}")
_OPTIMIZER_ONCE = " Once is expected here: an optimizer's first step creates its state."
_WAS_NONE = re.compile(r"the guard was `(.+?) is None`|^it was None when")
_SET_SINCE = (" It was None when the version before was compiled and is set now: setting `{name}` before the first "
              "call (for a model's config attribute, in the config the model is built with) skips this recompile.")
_WRAPPER_TYPE = ("The code compiled here, `{frame}` at {file}, is a wrapper's (a decorator's) that runs for more than "
                 "one function: its versions are kept together, so each function it wraps, told apart by the type of "
                 "its first argument{hint}, compiles a version of its own, once. Nothing to fix.")
_NOT_YOURS_TYPE = ("`{name}` reached `{frame}` ({file}, which your line calls) as another type than when the version "
                   "before was compiled: each type compiles its own version, once. Expected where your calls switch "
                   "what the model passes down (an option such as use_cache); keep such options the same between "
                   "calls where the compile time matters.")
_LIBRARY_KEYWORDS = ("`{name}` is the compiled function's own catch-all, filled by the library's call at {where} "
                     "(code your line calls): it passes another number of keyword arguments on some calls than on "
                     "others (a model's generate(), for one, calls it one way for the prompt and another for each "
                     "decoding step), and each number compiles its own version, once. Expected; nothing in your code "
                     "to change.")
_PINNED = ("Dynamo compiled `{name}` with a dynamic size, but {where} makes the size a constant in each version "
           "(torch: symbolic_shape_specialization, {reason}), so every new size compiles again. Marking the dimension "
           "dynamic does not help (torch then raises ConstraintViolationError at that line); write that step so it "
           "does not need the size as a Python number (a tensor op over the whole dimension instead of a Python loop "
           "over it), or keep the sizes few.")
_WARMUP = ("The version before ({version}) served one call only, under the other setting of {name}: if that call was "
           "a warm-up, make it under the setting the later calls use (torch.no_grad() for an evaluation), and this "
           "second version is not needed; if both kinds of call are meant, each setting compiles its own version, "
           "once.")
_APPENDED = ("`{name}` is a Python list the compiled code adds to itself ({where}): its length is guarded, so each call "
             "that finds it longer compiles again. Keep the appending out of the compiled code: collect outside the "
             "compiled call, or, for a hook that collects outputs, wrap the hook in torch.compiler.disable (each of its "
             "calls is then a graph break of its own, but no recompile).")
_DIMENSION = re.compile(r"dimension (\d+):")
_ACROSS_BREAK = ("`{name}` is used at {where} (`{code}`), where the compiled function breaks (a graph break of its "
                 "own): the value handed to the code at a break is a constant of each version, so every new value "
                 "compiles again, dynamic or not. Keep `{name}` out of that line (or remove the break there), or "
                 "keep it in a tensor.")
_GLOBAL_COUNTER = ("`{name}` is a global number the compiled function changes itself (`{name} += …`): Dynamo reads "
                   "it as a constant of each version, so every call's new value compiles a new version (and past the "
                   "recompile limit, calls run eager). Count outside the compiled function (in the loop that calls "
                   "it), or keep the count in a tensor updated in place.")
_HOOK_DICT = re.compile(r"^(.+)\._(?:forward|forward_pre|backward|backward_pre)_hooks$")
_HOOKS_CHANGED = ("Dynamo guards the hooks on `{owner}` (the compiled code runs them inline): a hook added or removed "
                  "after a compile makes the next call compile again, with the hooks it finds then, so the results "
                  "stay right. Expected where hooks come and go on purpose; else register them before the first "
                  "call and keep them.")
_PER_LAYER = ("Each layer compiled on its own runs one shared code, and its versions serve whichever layer's call "
              "matches their guards: `{name}` differs from one layer's call to the next, so the layers need a version "
              "each, up to the recompile limit ({limit} by default); past it, the other layers run eager. {how}, or "
              "raise torch._dynamo.config.recompile_limit above the number of layers.")
_PER_LAYER_CACHE = ("Make what every layer reads the same at the call (a per-layer cache: for training, call the model "
                    "with use_cache=False where it has one)")
_PER_LAYER_BUFFER = ("Keep `{name}` in a tensor buffer (register_buffer), which the shared graph takes as an input "
                     "where a number is a constant of each version")
_PER_LAYER_PINNED = ("Its use at {where} (`{code}`) needs it as a Python number, so torch pins a number computed from it "
                     "in each version (`{guard}`): write that step with tensor ops that take the value as a tensor "
                     "(a mask from `torch.rand(...) < p` in place of a function that takes a Python float)")
_PER_LAYER_GRAD = ("`{name}` reaches the layers with requires_grad set on some calls and not on others (as when the "
                   "first layer's input is your data and the later layers' inputs are outputs that require grad): one "
                   "version for each setting, once; nothing to fix.")
_SPECIALISED = ("Each new value of `{name}` compiled a new version, and the next version still guarded it as a "
                "constant: its use at {where} needs a fixed value (indexing a Python list, a Python branch, a "
                "module's float argument), so marking it dynamic does not stop this. Hold the value in a tensor and "
                "write what uses it with tensor ops (a mask or torch.where in place of a Python loop or branch, a "
                "tensor index in place of an int); where it picks an item of a Python list, pass the item in; where a "
                "torch function takes it as a Python number (`F.dropout`'s `p`), keep it fixed or write that step "
                "with tensor ops; else compute what depends on it outside the compiled function and pass the result "
                "in.")
_MODULE_INDEX = ("`{name}` picks a module out of a ModuleList or Sequential ({where}): the module it picks is compiled "
                 "into the graph, so each index compiles a version of its own (and past the recompile limit, calls "
                 "run eager); a tensor cannot pick a module. Pass the module itself in instead of its index (`for "
                 "layer in layers: step(layer, …)`), or compile each module's forward on its own.")
_ONCE = ("It changed for one call only (the new version served 1 call, and nothing changed after it), as a shorter "
         "last batch does: drop it (DataLoader(..., drop_last=True)), pad it to the usual size, or mark the dimension "
         "dynamic before the first call (torch._dynamo.mark_dynamic(tensor, dim)) so that one version serves both.")
_ONCE_TRAINER = ("It changed for one call only (the new version served 1 call, and nothing changed after it), as the "
                 "shorter last batch of the Trainer's DataLoader does: drop it "
                 "(TrainingArguments(..., dataloader_drop_last=True)).")
_ONCE_OTHER = ("It changed for one call only (the new version served 1 call, and nothing changed after it): pad it to "
               "the usual size, or mark the dimension dynamic before the first call (torch._dynamo.mark_dynamic(tensor, "
               "dim)) so that one version serves both.")
# transformers' static KV cache: its layers' keys and values, sized per generate() call (prompt + max_new_tokens).
_STATIC_CACHE = re.compile(r"(?:^|\.)(?:cache|past_key_values)\.layers\[\d+\]\.(?:keys|values)$")
_CACHE_LENGTH = (" The cache's length changed between generate() calls (`{name}`): transformers makes the static "
                 "cache for each generate() call with room for the prompt and max_new_tokens, so each prompt length "
                 "or max_new_tokens gives it another size. generate(..., max_cache_len=N) (GenerationConfig's, N at "
                 "least the longest prompt plus the largest max_new_tokens) keeps one size for every call: the "
                 "decoding step's version is then reused, and only the prompt's own length recompiles.")
# a static cache's length itself, guarded as a number (its layers' ``max_cache_len``)
_CACHE_LENGTH_VALUE = re.compile(r"(?:^|\.)(?:cache|past_key_values)\.layers\[\d+\]\.max_cache_len$")
_FLAG_CHANGE = re.compile(r"it was (True|False|'[^']*'|\"[^\"]*\") when")  # None, then set: state set since
_FLAG = ("`{name}` is {what}, and the code that reads it is compiled for one setting: each setting compiles its own "
         "version, once, wherever the option reaches. Nothing to fix if every setting is "
         "meant; else keep it the same between calls (for a model's output options, always the same one, converting "
         "the result where another form is wanted), so one version serves them all. A tensor cannot stand in for "
         "it: a Python `if` on a tensor breaks the graph.")
_FLAG_WHAT = {"True": "a True/False option", "False": "a True/False option"}
# A flag of an object the library's own code passed to the compiled function (a cache generate() made, filled after
# its first step): no option of the user's, and nothing to hold constant.
_LIBRARY_FLAG = ("`{name}` is state of an object that the code of {package} passed in: that code's call of the "
                 "compiled function ({caller}) changed it between calls{once}, and each value compiles its own version. Expected where "
                 "the library's loop moves from one step to the next (a cache filled after the first); nothing of yours "
                 "sets it, so nothing to fix.")
_UNFREEZE = ("Which parameters require grad changed between calls ({times}: layers frozen or unfrozen, "
             "requires_grad_ on a module): torch guards each parameter's requires_grad, so each set of trainable "
             "parameters compiles its own version and backward, once. Expected where training unfreezes layers in "
             "stages, one recompile a stage. To avoid them, keep every parameter trainable and choose what the "
             "optimizer updates instead (optimizer.add_param_group as layers join), at the cost of a full backward "
             "from the first step.")
_INSTANCES = ("Each torch.compile call of another object of the same class compiles the same code, so every object's "
              "versions count against one limit: past it, calls of the later objects run eager. Give each its own "
              "count: torch.compile(..., isolate_recompiles=True) (torch 2.13 and later), or torch.compiler.reset() "
              "before compiling the next one where the earlier ones are no longer used; or raise "
              "torch._dynamo.config.recompile_limit.")
_INSTANCES_WITHIN = ("Each object of the same class compiled at this line runs the same code, so each one's own state "
                     "compiles versions in one shared cache: expected in a sweep, and here within the recompile limit "
                     "({allowed}). Past it, the later objects' calls would run eager.")
# ``features[2]['label']``: a field of an item of a list the call passed (a batch of examples, before collating)
_ITEMS_OF = re.compile(r"^([A-Za-z_]\w*)\[\d+\](?:\[|\.)")
_MODULE_PART = re.compile(r"_(?:modules|parameters|buffers)\[")  # a module's own parts: a Sequential's layers
_ITEMS = ("`{name}` is a Python list the compiled function reads item by item: each item's values and sizes are guards "
          "of their own, and each becomes dynamic only once it has changed itself ({times} here). A function that "
          "builds tensors from Python data (a collate function) gains nothing from torch.compile: leave it uncompiled "
          "and compile the model; or pass the items stacked into tensors.")
_GLOBAL_AT_LIMIT = ("Each setting of {name} compiles its own version, once, as expected when one compiled function "
                    "serves both training and evaluation; but the frame now holds {versions} versions, the most this "
                    "run allows ({allowed}), so every setting doubles what its other changes need. Fix what makes "
                    "the other versions (the findings above), or raise torch._dynamo.config.recompile_limit.")
_ALIGNED_CHANGE = re.compile(r"a multiple of (\d+) when")
_ALIGNED = ("Version {version} was compiled for sizes of `{name}` that are multiples of {n} (its guard checks it), "
            "and this call's is not, so it compiled again. Pad that dimension to a "
            "multiple of {n} (a Hugging Face collator: DataCollatorWithPadding(tokenizer, pad_to_multiple_of={n})), "
            "and the dynamic version made so far serves those calls too.")
_TO_CONSTANT = re.compile(r"dimension \d+: (?:\d+ before, )?now ([01])(?: \(.*\))?")
_TO_ONE = ("The new size is {size}: torch never makes a size of 0 or 1 symbolic, and compiles it as a constant of a "
           "version of its own, so calls with {size} there (one token at a time after a prompt, a batch of one) get "
           "that version, once. Nothing to fix while later calls keep to these sizes.")
_STATIC = ("{subject} changed on {pattern}, and every new version was compiled for the new value: {cause}, so no "
           "version is dynamic and each change compiles again{limit}.")
_STATIC_FIX = {
    "argument": "Leave `dynamic=False` out of torch.compile at {line} (with the default, dynamic=None, the second size "
                "gets a version with a symbolic size for the later sizes), or pass dynamic=True.",
    "config": "Leave torch._dynamo.config.automatic_dynamic_shapes at its default (True): the second size then gets a "
              "version with a symbolic size for the later sizes; or mark the dimension dynamic before the "
              "first call (torch._dynamo.mark_dynamic(tensor, dim)).",
}
_LAST_BATCH = ("The shorter last batch of each pass over the data is what recompiles: the calls each version served "
               "fit {passes} passes of {batches} batches of {full} (dimension 0) then one of {short}. Drop it "
               "(DataLoader(..., drop_last=True)) or pad it to {full} and mask the padding out, and {gone}. Marking "
               "the dimension dynamic instead ({how}) also leaves one version, but a dynamic first compile can take "
               "longer than the static one and the recompile together.")
_DROP_LAST = "(DataLoader(..., drop_last=True))"
# Under no_grad or inference_mode the calls are an evaluation or inference: a dropped batch is rows without results, and
# the call counts alone cannot tell passes over one dataset from batches that just differ.
_SHORT_BATCH_NO_GRAD = ("A batch of {short} rows (dimension 0, {full} before) is what recompiles; the calls each version "
                        "served would fit {passes} passes of {batches} batches of {full} then one of {short}, but the run "
                        "counts calls, not their sizes. These calls ran with gradients off (an evaluation or inference), "
                        "where dropping a batch drops its results: pad the short batches to {full} rows and mask the "
                        "padding out; where every batch then has {full} rows, {gone} (the dynamic version served the "
                        "later calls whatever their sizes, so another short size would compile in its place). Marking "
                        "the dimension dynamic instead ({how}) also leaves one version, but a dynamic first compile "
                        "can take longer than the static one and the recompile together.")
_DROP_LAST_TRAINER = ("(TrainingArguments(..., dataloader_drop_last=True): the Trainer makes the DataLoader, and this "
                      "drops the evaluation's short batch too, so its rows leave the evaluation)")
_DISTRIBUTED = (" Under DDP or FSDP a recompile on one rank holds every other rank at the next collective until it "
                "ends: keep what every rank passes the same (shapes, dtypes, requires_grad).")
_WENT = "after the first change Dynamo compiled it as dynamic (automatic dynamic)"  # claim ``went-dynamic``
_DYNAMIC_KEPT = "Nothing to fix if it keeps changing: {went}, and no later call compiled again for it."
_DYNAMIC = _DYNAMIC_KEPT + (" To skip the first, static version: {how}. A dynamic first compile can take longer than "
                            "the static one and the recompile together: measure before changing it.")
_FROM_CONSTANT = re.compile(r"dimension \d+: ([01]) before")
_DYNAMIC_FROM_ONE = (_DYNAMIC_KEPT + " The first size was {size}, which "
                     "torch always compiles as a constant of a version of its own (never symbolic), so marking the "
                     "dimension dynamic or passing dynamic=True does not skip that version.")
_DYNAMIC_LIBRARY = (_DYNAMIC_KEPT + " {package} made this compile itself (torch.compile at {where}), so there is no "
                    "call of yours to mark dynamic.")
_ALSO_DIFFERS = ("But version {version} would have failed this call on `{name}` too ({before} then, {now} now; torch "
                 "names one failed guard of each version), so marking the size dynamic alone does not save this "
                 "recompile: {fix}")
_ALSO_SET = ("set it before the first call (for a model's config attribute, in the config the model is built with), "
             "then make the first version dynamic: {how}.")
_ALSO_KEEP = "keep `{name}` the same from the first call, then make the first version dynamic: {how}."
# None when the version was compiled, a value in the next one's guards: state the user's code set since (a library's
# line that reads it is _NOT_YOURS with _SET_SINCE)
_NONE_THEN_SET = ("`{name}` was None when version {version} was compiled and holds {now} now: code that sets it where "
                  "it is still None (a model's forward filling its config on the first call) ran since, and each value "
                  "compiles its own version. Set it before the first call (for a model's config attribute, in the "
                  "config the model is built with) and the first version is compiled for the value it keeps.")
_ALSO_SET_FIRST = "set it before the first call (for a model's config attribute, in the config the model is built with)"
_ALSO_DIFFERS_LIBRARY = ("But version {version} would have failed this call on `{name}` too ({before} then, {now} now; "
                         "torch names one failed guard of each version), so sizes that never change would not save "
                         "this recompile alone: {fix} as well.")
_BRANCH_ON_DYNAMIC = ("{went}, and the later compiles ({later}) kept it dynamic but guarded `{guard}`: a Python "
                      "branch on it{where}, which compiles one version for each side it takes, once each. Nothing more "
                      "compiles for `{name}`; to have one version, decide the branch outside the compiled function and "
                      "pass its result in, or write both sides as tensor ops.")
_BRANCH_OF_DYNAMIC = ("`{name}` was dynamic already, and version {version} was compiled for the other side of a "
                      "Python branch on it{where}: its guard is `{guard}`. Each side it takes compiles a version, once; "
                      "nothing to fix unless the versions matter, and then decide the branch outside the compiled "
                      "function and pass its result in, or write both sides as tensor ops (torch.where). Marking it "
                      "dynamic does not help: it is dynamic.")
_DYNAMIC_NOT_ALL = ("{went}, but later calls compiled again for it ({later}): the dynamic version does not cover "
                    "them; see the guards those compiles failed.")
# The version the change failed already had the size symbolic (dynamic=True, mark_dynamic, or an automatic dynamic
# version), and a line of the user's made it a constant there: no marking skips that version.
_PINNED_BEFORE = ("Version {version} was already compiled with `{name}` dynamic, but {where} made it the constant "
                  "{value} there (torch: symbolic_shape_specialization, {reason}), so the other sizes fail that "
                  "version; version {last} takes them{kept}. Nothing to fix where that line is meant to tell the sizes "
                  "apart: each of its outcomes compiles a version, once. Marking the dimension dynamic or passing "
                  "dynamic=True does not skip it (torch raises ConstraintViolationError where the code pins a size "
                  "marked dynamic); to compile one version only, write that step so it does not test the exact size.")
_PINNED_KEPT = ", and no later call compiled again for it"
_PINNED_NOT_ALL = ", but later calls still failed its guards ({later})"

_DYNAMIC_HOW = {"size": "torch._dynamo.mark_dynamic(tensor, dim) before the first call, or torch.compile(..., "
                        "dynamic=True)",
                "value": "torch.compile(..., dynamic=True)"}


@dataclass
class _Group:
    frame: str  # the frame that recompiled, as the user calls it
    failures: list[tuple[str, GuardFailure]]  # (compile id, its failure against the version before)
    # its compiles of the same change in the frame's other kind of call (a decoding step after the prefill)
    other_calls: list[str] = field(default_factory=list)


_PROPAGATES = frozenset({"size", "dtype", "device", "requires_grad"})
# What one call brings to every frame it passes through: said once, as the call's (a no_grad evaluation's grad mode
# reaches the model's forward and each wrapper around it).
_BURSTS = _PROPAGATES | {"global"}


def named_failures(trace: Trace, failures: dict[str, GuardFailure]) -> dict[str, GuardFailure]:
    """Each recompile's failure in the names the user's call wrote (``_named``)."""
    return {compile_id: _named(trace, compile_id, failure) for compile_id, failure in failures.items()}


def recompile_findings(trace: Trace, facts: TraceFacts, compiles: dict[str, CompileFacts],
                       failures: dict[str, GuardFailure], merged: set[str], ledger: Ledger,
                       evidence: RunEvidence) -> list[Finding]:
    """One finding per frame and cause, and one per call whose size change recompiled several functions; the
    recompiles a break's line caused are left to that break (``merged``). ``failures``: named (``named_failures``);
    ``evidence``: the run's, that the claims are checked against."""
    groups: dict[tuple[str, str, str], _Group] = {}
    bursts = _bursts(trace, failures, merged, compiles, evidence)
    for compile_id, failure in _in_time_order(evidence.started, failures):
        if compile_id in merged:
            continue
        frame = _base_frame(compiles[compile_id].frame if compile_id in compiles else None)
        # A tensor's size, dtype or device change reaches every frame the values it made pass through (the model's,
        # its resume functions after a break, a loss function, a library's wrapper) in the one call that brought
        # it: one decision of the user's (a shorter last batch), one finding, named by the first frame's failure.
        items = _ITEMS_OF.match(failure.subject) if not _MODULE_PART.search(failure.source) else None
        key = (f"items {frame} {items.group(1)}", "", "items") if items else \
            (f"global {failure.subject}", "", "global") if failure.kind == "global" else \
            (f"burst {bursts[compile_id]}", "", failure.kind) if compile_id in bursts else \
            (f"option {failure.subject}", "", failure.kind) if _is_flag(failure) else \
            (frame, failure.subject, failure.kind)
        if _to_constant(failure):  # a size of 0 or 1 is its own version, never dynamic: another cause than growth
            key = (f"{key[0]} to {_to_constant(failure)}", key[1], key[2])
        groups.setdefault(key, _Group(frame, [])).failures.append((compile_id, failure))
    groups = _one_per_pattern(_per_instance(trace, groups, evidence, compiles), evidence)
    limits = {compile_id: facts for compile_id, facts in compiles.items()
              if facts.fail_reason and _LIMIT.search(facts.fail_reason)}
    limit_of = _limits_to_groups(groups, limits)
    # looked up per finding, each built once: searching every compile or artifact per finding grew with their product
    guards, versions = _last_guards(trace), _versions(compiles)
    out = [_finding(trace, key, group, compiles, limit_of.get(key), ledger, guards, versions, evidence)
           for key, group in sorted(groups.items(), key=lambda item: -len(item[1].failures))]
    claimed = {limit.compile_id for limit in limit_of.values()}
    for compile_id, limit in limits.items():  # a limit hit with no recompile reasons recorded for it
        if compile_id not in claimed:
            out.append(Finding(
                kind="recompile-limit", what=f"`{_base_frame(limit.frame)}` hit the recompile limit: calls that fail "
                                             "its guards run eager", events=1, compile_ids=(compile_id,),
                cost_s=ledger.whole(compile_id), cost_counts="the refused compile",
                eager_calls=trace.info.calls_eager.get(compile_id), eager_note=trace.info.calls_note,
                explanation=first_match(EXPLANATION, limit.fail_reason or ""),
                hint=first_match(HINT, limit.fail_reason or ""), explained=LIMIT))
    return out


def _per_instance(trace: Trace, groups: dict[tuple[str, str, str], _Group], evidence: RunEvidence,
                  compiles: dict[str, CompileFacts]) -> dict[tuple[str, str, str], _Group]:
    """Recompiles on the modules' own state (their settings, their parameters' sizes) of a frame whose torch.compile
    line compiled several objects (a sweep's models, one a trial) are one cause: the objects share the code, so one
    cache and one limit. Layers compiled one by one and called from their model's loop are said as layers."""
    merged: dict[tuple[str, str, str], _Group] = {}
    for key, group in groups.items():
        site = _compiled_at_one_line(evidence, compiles, group)
        separate = site is None or not all(failure.subject.startswith("self.") for _, failure in group.failures) \
            or _block_repeat(trace, group) is not None
        home = key if separate else (f"instances {group.frame}", "", "instances")
        if home in merged:
            merged[home].failures.extend(group.failures)
        else:
            merged[home] = _Group(group.frame, list(group.failures))
    for group in merged.values():
        group.failures.sort(key=lambda item: sort_key(item[0]))
    return merged


def _compiled_at_one_line(evidence: RunEvidence, compiles: dict[str, CompileFacts],
                          group: _Group) -> list[CompileCall] | None:
    """The torch.compile calls of one line of the user's that compiled the group's frame, where there were several."""
    facts = compiles.get(group.failures[0][0])
    call = evidence.call_for(facts.frame if facts else None)
    if call is None or call.by_library:
        return None
    same = [other for other in evidence.calls if (other.file, other.line, other.compiled_file, other.compiled_line)
            == (call.file, call.line, call.compiled_file, call.compiled_line)]
    return same if len(same) > 1 else None


def _one_per_pattern(groups: dict[tuple[str, str, str], _Group],
                     evidence: RunEvidence) -> dict[tuple[str, str, str], _Group]:
    """Bursts that are one pattern said once: the calls that brought them changed the same value of the same frame
    first, at the same dimension (a size growing on every call of a decoding loop is one cause, however many calls it
    recompiles on; a prompt's length and its batch are two), or made the same size change to the same argument in
    the frame's other kind of call (a new batch reaching the prefill version, then the decoding one, which the
    prefill's refused for its keyword arguments)."""
    merged: dict[tuple[str, str, str], _Group] = {}
    home: dict[tuple[str, str, str], tuple[str, str, str]] = {}
    size_home: dict[tuple[str, str, int | None, str], tuple[str, str, str]] = {}
    pin_home: dict[tuple[str, str, int | None], tuple[str, str, str]] = {}
    for key, group in groups.items():
        first = group.failures[0][1]
        signature = (group.frame, _pattern_subject(first), first.kind, first.dimension, _to_constant(first))
        change = (group.frame, first.source, first.dimension, first.change) if first.kind == "size" and first.source \
            else None
        other_call = change in size_home and _refused_as_another_call(
            evidence, group.failures[0][0], groups[size_home[change]] if size_home[change] in groups else None)
        # each new version made the size a constant at the same line of the user's (a loop over it): one cause,
        # whatever the argument is called in each call
        pinned = _pinned_at(evidence, group) if first.kind == "size" else None
        pin = (group.frame, pinned, first.dimension) if pinned else None
        if key[0].startswith("burst ") and (signature in home or other_call or pin in pin_home):
            target = merged[home[signature] if signature in home else size_home[change] if other_call
                            else pin_home[pin]]
            target.failures.extend(group.failures)
            if signature not in home and other_call:
                target.other_calls.append(group.failures[0][0])
            continue
        if key[0].startswith("burst "):
            home[signature] = key
            if change is not None:
                size_home.setdefault(change, key)
            if pin is not None:
                pin_home.setdefault(pin, key)
        merged[key] = group
    return merged


def _pinned_at(evidence: RunEvidence, group: _Group) -> str:
    """The user's line where the group's new version made the changed size a constant (``net.py:35``), if torch
    recorded one."""
    compile_id, first = group.failures[0]
    found = evidence.pinned(compile_id, first.source or first.subject, first.dimension) or \
        evidence.pinned(compile_id, first.subject, first.dimension)
    return found.short if found is not None else ""


def _refused_as_another_call(evidence: RunEvidence, compile_id: str, earlier: _Group | None) -> bool:
    """The versions the earlier group compiled refused this compile's call for what kind of call it is (the number
    or names of its keyword arguments), not for its sizes: the same change met the frame's other kind of call."""
    if earlier is None:
        return False
    return any(tried.version == member and tried.kind in ("length", "keys")
               for member, _ in earlier.failures for tried in evidence.tried.get(compile_id, ()))


_MARKABLE = re.compile(r"^[A-Za-z_]\w*(?:\[(?:'[^']*'|\"[^\"]*\"|\d+)\])*$")


def _markable(failure: GuardFailure) -> bool:
    """A tensor the user's code holds before the call (``ids``, ``batch['input_ids']``), which mark_dynamic can take:
    not words for an argument no call names, nor a path into an object the call builds (a cache's layers)."""
    return not failure.worded and _MARKABLE.match(failure.subject) is not None


def _to_constant(failure: GuardFailure) -> str:
    """``1`` (or ``0``) where the call's new size is one torch compiles as a constant; empty otherwise."""
    found = _TO_CONSTANT.fullmatch(failure.change) if failure.kind == "size" else None
    return found.group(1) if found else ""


def _limits_to_groups(groups: dict[tuple[str, str, str], _Group],
                      limits: dict[str, CompileFacts]) -> dict[tuple[str, str, str], CompileFacts]:
    """The limit belongs to the group whose recompile it refused; else to the largest group of that frame."""
    limit_of: dict[tuple[str, str, str], CompileFacts] = {}
    by_size = sorted(groups.items(), key=lambda item: -len(item[1].failures))
    for compile_id, limit in limits.items():
        home = next((key for key, group in by_size if any(member == compile_id for member, _ in group.failures)), None) \
            or next((key for key, group in by_size if group.frame == _base_frame(limit.frame) and key not in limit_of),
                    None)
        if home is not None and home not in limit_of:
            limit_of[home] = limit
    return limit_of


def _finding(trace: Trace, key: tuple[str, str, str], group: _Group, compiles: dict[str, CompileFacts],
             limit: CompileFacts | None, ledger: Ledger, guards: dict[str, str], versions: Counter[str | None],
             evidence: RunEvidence) -> Finding:
    """``guards``: each compile's last guards text (``_last_guards``); ``versions``: each code's (``_versions``);
    ``evidence``: what the claims said are checked against (claims.py)."""
    said: list[Claim] = []
    remedies: tuple[Remedy, ...] = ()
    frame, kind = group.frame, key[2]
    ids = unique_ids(compile_id for compile_id, _ in group.failures)
    first = group.failures[0][1]
    subject = first.subject
    compiled = [compile_id for compile_id in ids if limit is None or compile_id != limit.compile_id]
    # Whether the frame that failed first went dynamic: its own latest version (not a resume function's).
    first_frame = compiles[group.failures[0][0]].frame if group.failures[0][0] in compiles else None
    own = [compile_id for compile_id in compiled if compile_id in compiles and compiles[compile_id].frame == first_frame]
    last = compiles.get(own[-1]) if own else None
    dynamic = last is not None and made_dynamic(guards.get(last.compile_id, ""), first)
    made = group.failures[0][0]
    if not dynamic and first.dimension is not None and made in compiles and \
            evidence.made_symbolic(made, first.source, first.dimension):
        # the version this change compiled made the size a symbol; a later one of the group serves other calls
        # (a decoding step after the prompt), whose guards say nothing of it
        last, dynamic = compiles[made], True
    dim = _DIMENSION.match(first.change)
    dim_text = dim.group(1) if dim else ""
    if dynamic:  # symbolic in the guards, yet torch may have made it a constant while tracing (a loop over it)
        dynamic = bool(say(Claim("stays-dynamic", (last.compile_id, subject, dim_text), "yes"), evidence, said))
    pin = _pin(evidence, group, compiled) if last is not None and not dynamic and kind in ("size", "value") else None
    frames = list(dict.fromkeys(short(compiles[compile_id].frame or "") for compile_id in compiled
                                if compile_id in compiles))
    changed = first.said
    trainable = kind == "requires_grad" and all(_pattern_subject(failure) == _PARAMETERS for _, failure in group.failures)
    if trainable:  # layers frozen or unfrozen: one cause, whichever parameter torch's guard checked first
        changed = f"the parameters' requires_grad changed (`{subject}` first)"
    times = f"{len(compiled)} time{'s' if len(compiled) != 1 else ''}"
    if len({_base_frame(name) for name in frames}) > 1:  # one change through several functions: said once
        listed = ", ".join(frame_words(name) for name in frames[:4]) + (" …" if len(frames) > 4 else "")
        # frames by torch's frame number: a wrapper is named by what it wraps, so names may be fewer than frames
        count = len({compile_id.rpartition("/")[0] for compile_id in compiled})
        wrappers = ", with the wrappers around them" if count > len(frames) else ""
        what = f"{changed}{f' ({first.change})' if first.change else ''}: {count} frames recompiled for it, " \
               f"{times} in all ({listed}{wrappers})"
    else:  # one function, and the resume functions after its breaks
        where = f" (in {' and in '.join(frame_words(name) for name in frames)})" if len(frames) > 1 else ""
        what = f"{frame_words(frames[0]) if len(frames) == 1 else f'`{frame}`'} recompiled {times}{where}: {changed}"
    advice = _ADVICE.get(kind, _ADVICE["other"]).format(name=subject)
    explained = SHAPES if kind == "size" else RECOMPILES
    # Where a value keeps being pinned, the later versions' guards name the use that needs it constant.
    specialised = kind == "value" and not dynamic and len(group.failures) > 1 and not first.on_stack
    guard_failure = next((failure for _, failure in reversed(group.failures) if failure.line), first) \
        if specialised else first
    user, library = _lines(trace, guard_failure, ids[0], compiles[ids[0]].frame if ids[0] in compiles else None)
    keywords = kind == "length" and subject in ("kwargs", "args") and library is not None
    if keywords:
        # the compiled function's own ``**kwargs``, filled by the library's call at ``library``: not the user's items
        advice = _LIBRARY_KEYWORDS.format(name=subject, where=library.short)
    batch = _last_batches(group, compiles, evidence.failures) if kind == "size" else None
    # the new version ran once: a one-off size (a frame without a graph of its own counts no calls: its resumed code's)
    # the new version served one call and nothing changed after it (a size changing on every call serves one each)
    served_once = (last is not None and bool(say(Claim("served-once", (last.compile_id, subject), "yes"), evidence,
                                                 said))) or (batch is not None and batch.passes == 1)
    cost_counts = "the recompiles' whole compiles, backward included"
    # a container's length or a call's number of keyword arguments is never made dynamic: dynamic=False is not its cause
    static = _static_cause(evidence, own, first_frame) if not dynamic and kind in ("size", "value") else None
    if dynamic:
        served = f"; version {last.compile_id} served {last.calls} call{'s' if last.calls != 1 else ''}" \
            if last.calls else ""
        # torch names one failed guard: other numbers the same compile made symbols changed on that call too
        also_values = [name for name in evidence.values_made_symbolic(made) if name not in (first.source, subject)] \
            if kind == "value" else []
        listed = ", ".join(f"`{spoken(name)}`" for name in also_values)
        together = say(Claim("made-symbolic-too", (made, *also_values),
                             f" (and {listed}, made dynamic in the same compile)"), evidence, said) if also_values else ""
        # "after the first change … (automatic dynamic)": only where the version that failed had the value static
        went = say(Claim("went-dynamic", (first.version, first.source or subject, dim_text), _WENT), evidence, said) \
            or f"version {last.compile_id} has it dynamic"
        pinned_before = evidence.pinned(first.version, subject, first.dimension) \
            if kind in ("size", "value") and went != _WENT else None
        what += f"{together}, then Dynamo compiled it as dynamic{served}" if pinned_before is None else \
            f" from the {pinned_before.value} that version {first.version} pinned{served}"
        # by torch's name: another call site names the same argument otherwise (``batch`` here, ``x`` there)
        later = ", ".join(evidence.failed_against(last.compile_id, first.source or subject, first.dimension,
                                                  first.kind)) or \
            "the recompile limit refused a later call"
        # "after the first change …, and no later call compiled again for it": of the version that first change made,
        # where it is one of the frame's own (a second size change it did not cover compiled again)
        kept = made if made in own else last.compile_id
        again = evidence.failed_against(kept, first.source or subject, first.dimension, first.kind) + \
            evidence.changed_again(kept, first.source or subject, first.dimension, first.kind)
        later = ", ".join(dict.fromkeys(again)) or later  # the compiles that changed it again, whichever they failed
        library_call = evidence.library_compiled
        how = _DYNAMIC_HOW["size" if kind == "size" and _markable(first) else "value"]
        frame_first = evidence.versions.get(first.version.rpartition("/")[0], [first.version])[0]
        # the first size was 0 or 1 where the frame's first version was compiled for it (its guards say so): a later
        # version of size 1 that failed (decode after a prompt) is not where the dynamic one could have started
        from_one = _FROM_CONSTANT.match(first.change) if kind == "size" else None
        if from_one and frame_first != first.version and size_at(guards.get(frame_first, ""), first) not in ("0", "1"):
            from_one = None
        dynamic_said = _DYNAMIC_LIBRARY.format(package=_compiled_by(library_call), where=library_call.short,
                                               went=went) \
            if library_call is not None else _DYNAMIC_FROM_ONE.format(size=from_one.group(1), went=went) if from_one \
            else _DYNAMIC.format(how=how, went=went)
        not_all = _DYNAMIC_NOT_ALL.format(later=later, went=went[0].upper() + went[1:])
        branch = _branch_on(evidence, again)
        if branch is not None:  # the dynamic value kept, and a Python branch on it guarded: one version per side
            not_all = _BRANCH_ON_DYNAMIC.format(went=went[0].upper() + went[1:], later=", ".join(dict.fromkeys(again)),
                                                guard=branch[0], where=branch[1], name=subject)
        # torch names one failed guard per version: where the version before also pinned another value differently,
        # skipping the first, static version alone does not save the recompile
        also = evidence.also_differs(group.failures[0][0], first.version, first.source)
        alone_fails = False
        if pinned_before is not None:  # the line that pinned it is the cause, where torch's stack names one
            said.append(Claim("pinned", (first.version, subject, dim_text), ""))
            where = f"{pinned_before.short} (`{pinned_before.code}`)" if pinned_before.short else "your code"
            dynamic_said, not_all = (_PINNED_BEFORE.format(
                version=first.version, name=subject, where=where, value=pinned_before.value,
                reason=pinned_before.reason.replace("_", " "), last=last.compile_id, kept=kept)
                for kept in (_PINNED_KEPT, _PINNED_NOT_ALL.format(later=later)))
            if pinned_before.short and not is_library(pinned_before.file):
                user, library = SourceLine(pinned_before.file, pinned_before.line, "", pinned_before.code), None
        elif also and not from_one:
            name, before, now = also[0]
            claim = Claim("also-differs", (group.failures[0][0], first.version, name), "yes")
            alone_fails = bool(say(claim, evidence, said))
            if alone_fails and library_call is not None:  # nothing of the user's to mark: the value is theirs to set
                dynamic_said += " " + _ALSO_DIFFERS_LIBRARY.format(
                    version=first.version, name=name, before=before, now=now,
                    fix=_ALSO_SET_FIRST if before == "None" else f"keep `{name}` the same from the first call")
            elif alone_fails:
                dynamic_said = _DYNAMIC_KEPT.format(went=went) + " " + _ALSO_DIFFERS.format(
                    version=first.version, name=name, before=before, now=now,
                    fix=(_ALSO_SET if before == "None" else _ALSO_KEEP).format(name=name, how=how))
        call = evidence.call_for(first_frame)
        if library_call is None and not from_one and not alone_fails and pinned_before is None and call is not None \
                and not call.by_library \
                and call.says("dynamic") is None:  # the first, static version skipped, as the advice says: checked
            remedies = (Remedy("compile-argument", "dynamic", True, call.file, call.line),)
        advice = say(Claim("served-later-calls", (kept, first.source or subject, dim_text, first.kind), dynamic_said,
                           not_all), evidence, said)
        if advice != dynamic_said:
            remedies = ()  # the dynamic version does not serve the later calls: no fix of it is offered
        itself = _branch_on(evidence, [group.failures[0][0]])
        if itself is not None and advice == dynamic_said:  # the change was a branch on the value already dynamic
            advice, remedies = _BRANCH_OF_DYNAMIC.format(name=subject, version=group.failures[0][0], guard=itself[0],
                                                         where=itself[1]), ()
        explained = SHAPES
    elif pin is not None:
        said.append(Claim("pinned", (last.compile_id, subject, dim_text), ""))
        values = _values(group)
        what += f", and each version was specialised to it{f' ({values})' if values else ''}"
        where = f"{pin.short} (`{pin.code}`)" if pin.short else "your code"
        # a number is said as the values the next versions pin are (its use needs it fixed), a size as a size
        advice = _PINNED.format(name=subject, where=where, reason=pin.reason.replace("_", " ")) if kind == "size" \
            else _specialised(group, subject, where)
        explained = SHAPES
        served_once = False
        if pin.short and not is_library(pin.file):  # the cause is the line that pins it, not the call
            user, library = SourceLine(pin.file, pin.line, "", pin.code), None
    elif static is not None:
        cause, fix, remedies = static
        pattern = _pattern(evidence, own, len(compiled), limit is not None)
        values = _values(group)
        what += f" ({pattern}{f': {values}' if values else ''})"
        advice = _STATIC.format(subject=first.said[0].upper() + first.said[1:].removesuffix(" changed"),
                                pattern=pattern, cause=cause, limit="") + " " + fix
        explained = SHAPES
        served_once = False
    elif _is_flag(first) and (state := _library_state(trace, ids[0], subject)) is not None:
        once = "" if len(group.failures) > 1 else ", once in this run"
        advice = _LIBRARY_FLAG.format(name=subject, package=library_name(state.path), caller=state.short, once=once)
    elif _is_flag(first):
        was = _FLAG_CHANGE.match(first.change).group(1)
        advice = _FLAG.format(name=subject, what=_FLAG_WHAT.get(was, "an option given as a string"))
    elif specialised:
        what += ", and Dynamo specialised it on each value"
        crossing = _break_using(trace, own, subject)
        advice = _ACROSS_BREAK.format(name=subject, where=crossing.short, code=crossing.code.strip()) \
            if crossing is not None else \
            _attribute(group, subject) if subject.startswith("self.") else \
            _GLOBAL_COUNTER.format(name=subject) if _counts_itself(guard_failure, subject) else \
            _specialised(group, subject, (library or user).short if (library or user) else "its use")
        if subject.startswith("self.") and crossing is None and _read_by_torch(group) is not None:
            remedies = (*remedies, _raised_limit(evidence, own or list(ids)))
    elif kind == "value" and library is None and first.change.startswith("it was None when") and \
            (now := evidence.pinned_values.get(ids[0], {}).get(subject)) not in (None, "None"):
        advice = _NONE_THEN_SET.format(name=subject, version=first.version, now=now)
    elif kind == "value" and subject.startswith("self."):
        advice = _attribute(group, subject)
        if _read_by_torch(group) is not None:
            remedies = (*remedies, _raised_limit(evidence, own or list(ids)))
    elif trainable:
        advice = _UNFREEZE.format(times="once" if len(compiled) == 1 else f"{len(compiled)} times")
    if kind == "items":
        root = _ITEMS_OF.match(subject).group(1)
        what = (f"{frame_words(frames[0]) if len(frames) == 1 else f'`{frame}`'} recompiled {times}: the items of "
                f"`{root}` changed ({', '.join(dict.fromkeys(f'`{failure.subject}`' for _, failure in group.failures))})")
        advice = _ITEMS.format(name=root, times=f"{len(compiled)} recompile{'s' if len(compiled) != 1 else ''}")
    if kind == "instances":
        calls = _compiled_at_one_line(evidence, compiles, group) or []
        subjects = list(dict.fromkeys(f"`{failure.subject}`" for _, failure in group.failures))
        allowed, _ = evidence.recompile_limit(ids[-1])
        site = calls[0].short if calls else "one line"
        given = compiled_argument(calls[0].code) if calls else None
        objects = f"the {len(calls)} objects compiled from `{given}` at {site}" if given else \
            f"{len(calls)} objects compiled at {site}"
        what = (f"{objects} share the code of {frame_words(frame)}, so one cache and "
                f"one recompile limit ({allowed}): each one's own state ({', '.join(subjects[:3])}"
                f"{' …' if len(subjects) > 3 else ''}) compiled versions of its own, {times} in all")
        if calls:  # the cause is the line that compiles each object
            user, library = SourceLine(calls[0].file, calls[0].line, "", calls[0].code), None
        if limit is not None or versions[first_frame] >= allowed:
            advice = _INSTANCES
            remedies = (*((Remedy("compile-argument", "isolate_recompiles", True, calls[0].file, calls[0].line),)
                          if calls and _has_isolate(trace) else ()), _raised_limit(evidence, list(ids)))
            explained = LIMIT
        else:  # isolating them would compile a version per object: more, not fewer
            advice = _INSTANCES_WITHIN.format(allowed=allowed)
    elif kind == "global" and evidence.served.get(first.version) == 1:
        # the version before served one call only: a warm-up under the other mode, which the later calls never need
        said.append(Claim("served", (first.version, "1"), ""))
        advice = _WARMUP.format(name=subject, version=first.version)
    elif kind == "length" and _appends_itself(guard_failure, subject):
        advice = _APPENDED.format(name=subject, where=guard_failure.line.short if guard_failure.line else "its line")
    elif kind == "length" and _HOOK_DICT.match(subject):
        owner = _HOOK_DICT.match(subject).group(1)
        changed = f"the hooks on `{owner}` changed (one added or removed since the version before was compiled)"
        what = what.replace(first.said, changed)
        advice = _HOOKS_CHANGED.format(owner=owner)
    if kind in _PROPAGATES and served_once:
        # A batch is dimension 0: a different dimension that changed once is not a last batch (a prompt, then decode).
        once = _ONCE if first.change.startswith("dimension 0:") else _ONCE_OTHER
        if once is _ONCE and _under_trainer(evidence):  # the Trainer makes the DataLoader: its option drops it
            once = _ONCE_TRAINER
        elif once is _ONCE and any(call.by_library for call in evidence.calls):
            once = _ONCE_OTHER  # a library compiled its own call (generate()): no DataLoader of the user's feeds it
        advice = once + (_DISTRIBUTED if rank_of(trace.info) is not None else "")
    elif kind == "size" and _ALIGNED_CHANGE.match(first.change):
        advice = _ALIGNED.format(name=subject, n=_ALIGNED_CHANGE.match(first.change).group(1), version=first.version)
    elif _to_constant(first) and len(compiled) == 1:
        advice = _TO_ONE.format(size=_to_constant(first))
    elif batch is not None and batch.batches > 1:
        gone = "this recompile goes, saving all the compile time it costs" if len(compiled) == 1 else \
            f"these {len(compiled)} recompiles go, saving all the compile time they cost"
        # where a library called torch.compile, the user's own knob is marking the tensor they hand it
        how = "torch._dynamo.mark_dynamic(tensor, 0) before the first call" if evidence.library_compiled \
            else _DYNAMIC_HOW["size"]
        # a version compiled later for another cause (an evaluation's grad mode) took the size as dynamic because of
        # this change: its own calls may have a short batch too, which the trace cannot tell
        also = _dynamic_after(evidence, ids[-1], first)
        if also:
            gone = gone.split(",", 1)[0] + (f"; but version {also} was compiled after it, for another cause, with the size dynamic because "
                     "of this change: where its calls have a short batch too (an evaluation's last batch), that one "
                     "then compiles a version of its own, so pad that batch as well rather than drop it")
        evaluation = ids[-1] in evidence.grad_off
        advice = (_SHORT_BATCH_NO_GRAD if evaluation else _LAST_BATCH).format(
            passes=batch.passes, batches=batch.batches, full=batch.full, short=batch.short, gone=gone, how=how) + \
            (_DISTRIBUTED if rank_of(trace.info) is not None else "")
        if _under_trainer(evidence):  # the Trainer makes the DataLoader: the user's knob is its argument
            advice = advice.replace(_DROP_LAST, _DROP_LAST_TRAINER)
        if not also:
            cost_counts += ": what padding that batch saves" if evaluation else ": what dropping the last batch saves"
    elif kind in _PROPAGATES and rank_of(trace.info) is not None:
        advice += _DISTRIBUTED
    cache = next((failure.subject for _, failure in group.failures if failure.kind == "size"
                  and failure.dimension == 2 and _STATIC_CACHE.search(failure.subject)), None) or \
        next((failure.subject for _, failure in group.failures if failure.kind == "value"
              and _CACHE_LENGTH_VALUE.search(failure.subject)), None)
    if cache is not None:
        advice = (advice or "") + _CACHE_LENGTH.format(name=cache)
    # Layers called in one loop get the same kinds of arguments: a value their state holds (a per-layer cache slot)
    # can differ between them, a type or an object cannot, so those changed between calls of the model.
    block = _block_repeat(trace, group) if kind in ("value", "length", "requires_grad") else None
    if not dynamic and block is not None:
        # A model's loop calls one compiled code for each layer: the state each layer's call reads decides the version.
        what += f" (every layer runs this code, called from {block.short}: the version before was compiled for " \
                f"another call from that line)"
        if kind == "requires_grad":
            advice = _PER_LAYER_GRAD.format(name=subject)
        else:
            if first.computed and first.line is not None:
                how = _PER_LAYER_PINNED.format(where=first.line.short, code=first.line.code.strip(), guard=first.guard)
            else:
                how = (_PER_LAYER_BUFFER if subject.startswith("self.") else _PER_LAYER_CACHE).format(name=subject)
            advice = _PER_LAYER.format(name=subject, limit=_DEFAULT_LIMIT, how=how)
    elif kind not in _PROPAGATES and not dynamic and len(compiled) == 1 and library is not None and user is not None \
            and not _is_flag(first) and not keywords:
        # The guard is in code the user calls (a library's), not theirs: said so, and not told to rewrite it.
        # the function the guard's line is in (the compiled frame may be a wrapper that calls it)
        guard_frame = library.function or frame
        once = say(Claim("in-optimizer", (library.path,), _OPTIMIZER_ONCE), evidence, said)
        unset = _WAS_NONE.search(first.change)
        if unset:  # ``x is None`` held when the version before was compiled: x has been set since
            once += _SET_SINCE.format(name=subject)
        elif first.change.startswith("the guard was"):
            once += f" (torch's {first.change.removeprefix('the ')})"
        if kind == "type" and (subject == "self" or subject.startswith("the call's first")):
            # one code object (a decorator's) compiled for several functions: its first argument's type tells them
            advice = _WRAPPER_TYPE.format(frame=guard_frame, file=library.short, hint=f" ({first.torch_hint})"
                                          if first.torch_hint else "")
        else:
            advice = (_NOT_YOURS_TYPE if kind == "type" else _NOT_YOURS).format(
                frame=guard_frame, name=subject, once=once, file=library.short)
    eager, explanation, hint = None, None, first.torch_hint
    cost = sum(ledger.whole(compile_id) for compile_id in ids)
    if limit is not None:
        cost += ledger.whole(limit.compile_id)
        ids = unique_ids((*ids, limit.compile_id))
        eager = trace.info.calls_eager.get(limit.compile_id)
        cap = _LIMIT_VALUE.search(limit.fail_reason or "")
        set_here = say(Claim("default-limit", (limit.compile_id,), "",
                             f", set by this run: torch's default is {_DEFAULT_LIMIT}"), evidence, said) if cap else ""
        refused = f"the recompile limit{f' ({cap.group(1)}{set_here})' if cap else ''} refused a new version"
        what = f"{what}; then {refused}: calls no version accepts run eager" if compiled else \
            f"`{frame}`: {changed}, and {refused}: calls no version accepts run eager"
        explanation = first_match(EXPLANATION, limit.fail_reason or "")
        hint = first_match(HINT, limit.fail_reason or "") or hint
        explained = LIMIT
    if tells_dynamic(advice) and evidence.symbolic:
        advice = say(Claim("dynamic-safe", (), advice, without_dynamic_advice(advice, evidence.symbolic[0])),
                     evidence, said)
        remedies = tuple(remedy for remedy in remedies if not (remedy.name == "dynamic" and remedy.value is True))
    parts = tuple(f"{compile_id}: {failure.sentence}" + (
        " — the same change in the frame's other kind of call (the version before refused it for its keyword "
        "arguments), which compiles its own version for it, once" if compile_id in group.other_calls else "")
        for compile_id, failure in group.failures)
    versions = versions[first_frame]
    if limit is None and versions >= _NEAR_LIMIT:
        # Each version is a cache entry of the one code object, whichever instance or call made it (a model's layers
        # compiled one by one share it): past the limit, calls that fit no version run eager, silently.
        allowed, recorded = evidence.recompile_limit(own[-1] if own else ids[-1])
        kept = say(Claim("default-limit", (own[-1] if own else ids[-1],), f"of the {_DEFAULT_LIMIT} torch keeps by default",
                         f"of the {allowed} this run allows"), evidence, said) if recorded or allowed == _DEFAULT_LIMIT \
            else f"of the {_DEFAULT_LIMIT} torch keeps by default"
        parts += (f"{versions} versions of {frame_words(short(first_frame or frame))} exist now, {kept} "
                  "(torch._dynamo.config.recompile_limit): past that, calls no version accepts run eager",)
        if kind == "global" and versions >= allowed and advice.startswith("Nothing to fix"):
            # each mode's versions take places under the limit that the frame's other changes needed
            advice = _GLOBAL_AT_LIMIT.format(name=subject, versions=versions, allowed=allowed)
            remedies = (*remedies, _raised_limit(evidence, own or list(ids)))
    return Finding(
        kind="recompile-limit" if limit is not None else "recompile", what=what, events=len(group.failures),
        compile_ids=ids, cost_s=cost, user_line=user, library_line=library,
        graphs_added=sum(compiles[compile_id].graphs for compile_id in ids if compile_id in compiles),
        eager_calls=eager, eager_note=trace.info.calls_note if limit is not None else None,
        explanation=explanation, hint=hint, advice=advice, explained=explained, parts=parts,
        cost_counts=cost_counts, detail="\n\n".join(failure.raw for _, failure in group.failures[:3]),
        claims=tuple(said), remedies=remedies)


def _attribute(group: _Group, name: str) -> str:
    """The advice for a module attribute each version pinned: by who reads it (torch.nn's code, or the user's) and
    whether the compiled code changes it itself (a counter)."""
    first = group.failures[0][1]
    value = re.match(r"it was (-?[\d.e+-]+) when", first.change)
    number = "a float" if value and re.search(r"[.e]", value.group(1)) else "an int" if value else "a number"
    torch_line = _read_by_torch(group)
    if torch_line is not None:
        return _TORCH_READS.format(name=name, number=number, where=torch_line.short, code=torch_line.code.strip())
    fix = _COUNTED + _BUFFER if _counts_up(group) else _BUFFER[0].upper() + _BUFFER[1:]
    return _ATTRIBUTE.format(name=name, number=number, fix=fix)


def _read_by_torch(group: _Group) -> SourceLine | None:
    """The guard's line where it is torch's own (``F.dropout(input, self.p, …)`` in torch/nn/modules/dropout.py)."""
    return next((failure.line for _, failure in group.failures if failure.line is not None
                 and re.search(r"(?:^|/)(?:torch/)?nn/(?:modules/|functional)", failure.line.path.replace("\\", "/"))),
                None)


def _counts_up(group: _Group) -> bool:
    """The value went 1, 2, 3, … from one version to the next: a counter."""
    values = [int(found.group(1)) for _, failure in group.failures
              if (found := re.match(r"it was (-?\d+) when", failure.change))]
    return len(values) > 1 and all(later - earlier == 1 for earlier, later in zip(values, values[1:]))


def _has_isolate(trace: Trace) -> bool:
    """The run's torch.compile takes ``isolate_recompiles`` (torch 2.13 and later)."""
    found = re.match(r"(\d+)\.(\d+)", trace.info.torch_version or "")
    return found is not None and (int(found.group(1)), int(found.group(2))) >= (2, 13)


def _raised_limit(evidence: RunEvidence, versions: list[str]) -> Remedy:
    """The recompile limit raised, as the tracer applies it (checked by trace --check-fixes)."""
    allowed, _ = evidence.recompile_limit(versions[-1])
    return Remedy("setting", "torch._dynamo.config.recompile_limit", max(2 * allowed, 16))


def _specialised(group: _Group, name: str, where: str) -> str:
    """The advice for a number each version pinned: by what its use needs it for."""
    return (_MODULE_INDEX if _indexes_modules(group) else _SPECIALISED).format(name=name, where=where)


def _indexes_modules(group: _Group) -> bool:
    """The guarded number is an index torch.nn's containers looked up (ModuleList, Sequential): their
    ``__getitem__`` made the guard."""
    return any(failure.line is not None and failure.line.path.replace("\\", "/").endswith("nn/modules/container.py")
               for _, failure in group.failures)


def _pattern_subject(failure: GuardFailure) -> str:
    """What a pattern of recompiles is said to be about: any parameter's requires_grad is the trainable set's."""
    return _PARAMETERS if failure.kind == "requires_grad" and "_parameters[" in failure.source else failure.subject


_PARAMETERS = "the trainable parameters"


def _library_state(trace: Trace, compile_id: str, subject: str) -> SourceLine | None:
    """The library line that called the compiled frame, where the flag is a part of an object it passed (``cache.
    is_updated[0]``: an attribute or an item, not an argument's own value), so not the user's to set."""
    caller = direct_caller(trace, compile_id)
    if caller is None or not is_library(caller.path) or subject.startswith("self.") or \
            not re.match(r"^[A-Za-z_]\w*[.\[]", subject):
        return None
    return caller


def _is_flag(failure: GuardFailure) -> bool:
    """An option (True/False or a string: ``return_dict``, ``reduction``) whose setting the guard checked: never a
    number Dynamo could make dynamic."""
    return failure.kind == "value" and bool(_FLAG_CHANGE.match(failure.change))


def _pin(evidence: RunEvidence, group: _Group, compiled: list[str]) -> Specialisation | None:
    """torch's record that a recompile's own new version made the value it changed a constant, the newest first."""
    for compile_id, failure in reversed(group.failures):
        dim = _DIMENSION.match(failure.change)
        found = evidence.pinned(compile_id, failure.subject, int(dim.group(1)) if dim else None) \
            if compile_id in compiled else None
        if found is not None:
            return found
    return None


def _break_using(trace: Trace, versions: list[str], name: str) -> SourceLine | None:
    """A graph break in one of the frame's versions whose line (the user's) uses ``name``: where its value crosses a
    break and is made a constant."""
    bare = name.removeprefix("self.")
    for artifact in trace.artifacts:
        if artifact.kind != "break" or artifact.compile_id not in versions:
            continue
        line = parse_location(str(artifact.metadata.get("location") or ""))
        # the line's text from torch's own traceback in the break's record (the analysis reads no source files)
        code = next((frame.code for frame in traceback_lines(artifact.payload or "")
                     if line is not None and frame.path == line.path and frame.line == line.line), "")
        if line is not None and re.search(rf"(?<![\w.]){re.escape(bare)}(?!\w)", code) and \
                not re.search(rf"(?<![\w.]){re.escape(bare)}\s*[-+*]?=(?!=)", code):
            return SourceLine(line.path, line.line, line.function, code)
    return None


def _under_trainer(evidence: RunEvidence) -> bool:
    """Hugging Face's Trainer (through accelerate) called torch.compile for the user: it makes the DataLoader too."""
    return any(call.by_library and ("transformers/" in call.file or "accelerate/" in call.file)
               for call in evidence.calls)


def _appends_itself(failure: GuardFailure, subject: str) -> bool:
    """The guarded list is one the compiled code appends to: its guard's own line adds to it."""
    code = failure.line.code if failure.line is not None else ""
    bare = subject.rsplit(".", 1)[-1]
    return bool(re.search(rf"(?<![\w]){re.escape(bare)}\.(?:append|extend|insert)\(", code))


def _counts_itself(failure: GuardFailure, subject: str) -> bool:
    """The guarded global is one the compiled code changes: its guard's own line assigns it (``n += 1``)."""
    code = failure.line.code if failure.line is not None else ""
    return failure.source.startswith("G[") and bool(re.search(rf"(?<![\w.]){re.escape(subject)}\s*[-+*]?=(?!=)", code))


def _static_cause(evidence: RunEvidence, own: list[str],
                  frame: str | None) -> tuple[str, str, tuple[Remedy, ...]] | None:
    """(why each change compiled a static version, the fix, the fix as the tracer applies it) where the run's config had automatic dynamic shapes off
    for the frame's recompiles: ``torch.compile(..., dynamic=False)`` where the user's call passed it, else the
    setting; None where the config was not recorded or had them on."""
    if not own or any(evidence.setting(compile_id, "automatic_dynamic_shapes") is not False for compile_id in own):
        return None
    call = evidence.call_for(frame)
    if call is not None and call.says("dynamic") is False:
        return (f"torch.compile(..., dynamic=False) at {call.short} keeps every size static",
                _STATIC_FIX["argument"].format(line=call.short),
                (Remedy("compile-argument", "dynamic", None, call.file, call.line, drop=True),
                 Remedy("compile-argument", "dynamic", True, call.file, call.line)))
    return ("torch._dynamo.config.automatic_dynamic_shapes was False for these compiles", _STATIC_FIX["config"],
            (Remedy("setting", "torch._dynamo.config.automatic_dynamic_shapes", True),))


def _pattern(evidence: RunEvidence, own: list[str], recompiles: int, limited: bool) -> str:
    """How often it changed, in the run's words: ``every call until the recompile limit`` where every version the
    frame compiled served one call, else ``N calls``."""
    frame = own[0].rpartition("/")[0] if own else ""
    versions = [version for version in evidence.versions.get(frame, []) if version not in evidence.refused]
    every = len(versions) > 1 and all(evidence.served.get(version) == 1 for version in versions)
    if every:
        return "every call" + (" until the recompile limit" if limited else "")
    return "one new value a recompile" if recompiles else "one change"


def _values(group: _Group) -> str:
    """The distinct values a size or value went through, in the order they came (``3, 4, 5, 6, 7``), where torch's
    reasons give them."""
    values: list[str] = []
    for _, failure in group.failures:
        found = re.search(r"(\S+) before, now (\S+)", failure.change)
        if not found:
            return ""
        before, now = found.groups()
        if not values:
            values.append(before)
        values.append(now)
    values = list(dict.fromkeys(values))
    return ", ".join(values[:8]) + (" …" if len(values) > 8 else "")


@dataclass(frozen=True)
class _Passes:
    """Calls that fit passes over the data, each of ``batches`` batches of ``full`` then one of ``short``."""

    full: int
    short: int
    passes: int
    batches: int


_DIM0 = re.compile(r"dimension 0: (\d+) before, now (\d+)")


def _last_batches(group: _Group, compiles: dict[str, CompileFacts],
                  failures: dict[str, GuardFailure]) -> _Passes | None:
    """The group as the shorter last batch of each pass over the data, where torch's records show it: every failure is
    dimension 0 going from one size to one smaller size, each frame recompiled for it once and never again, and the
    calls its versions served (``calls_served``) fit passes of full batches then the short one (``_fit``); None
    otherwise, or where no version's calls were counted (a log read back)."""
    changes = {match.groups() if match else None
               for match in (_DIM0.fullmatch(failure.change) for _, failure in group.failures)}
    if len(changes) != 1 or None in changes:
        return _short_batch_again(group, compiles, failures)
    full, short = (int(size) for size in changes.pop())
    frames: dict[str, str] = {}  # frame id (the compile id's part before the version) -> its recompile in the group
    for compile_id, _ in group.failures:
        frame = compile_id.rpartition("/")[0]
        if not frame or frame in frames:
            return None
        frames[frame] = compile_id
    fits = set()
    for frame, compile_id in frames.items():
        new = compiles.get(compile_id)
        if new is None or new.calls is None:  # a frame with no graph of its own serves no calls
            continue
        versions = [facts for facts in compiles.values() if facts.compile_id.rpartition("/")[0] == frame]
        before = [facts for facts in versions if sort_key(facts.compile_id) < sort_key(compile_id)]
        # compiled again after it for a size (more than one short size), or calls not counted; a later version for
        # another cause (grad mode, for an evaluation) serves calls of its own, none of these
        if any(sort_key(facts.compile_id) > sort_key(compile_id) and _for_a_size(failures.get(facts.compile_id))
               for facts in versions) or any(facts.calls is None and facts.graphs for facts in before):
            return None
        fits.add(_fit(sum(facts.calls or 0 for facts in before), new.calls))
    if len(fits) != 1 or None in fits or short >= full:
        return None
    passes, batches = fits.pop()
    return _Passes(full, short, passes, batches)


_DIM0_NOW = re.compile(r"dimension 0: (?:(\d+) before, )?now (\d+)\b.*")


def _short_batch_again(group: _Group, compiles: dict[str, CompileFacts],
                       failures: dict[str, GuardFailure]) -> _Passes | None:
    """The shorter last batch recompiling one frame again against a version compiled later for another cause (a
    BatchNorm's eval mode, whose dynamic batch a guard starts above the short size): the first failure goes from the
    full size to the short one, each later one is the same short size refused by a version that was compiled for no
    size, and the frame's calls fit passes of full batches then one short batch served by the short versions alone
    (one call a pass each); None otherwise."""
    sizes = [_DIM0_NOW.fullmatch(failure.change) for _, failure in group.failures]
    if len(sizes) < 2 or None in sizes or sizes[0].group(1) is None:
        return None
    full, short = int(sizes[0].group(1)), int(sizes[0].group(2))
    frames = {compile_id.rpartition("/")[0] for compile_id, _ in group.failures}
    if short >= full or len(frames) != 1 or any(int(size.group(2)) != short for size in sizes) or \
            any(_for_a_size(failures.get(failure.version)) for _, failure in group.failures[1:]):
        return None
    frame = frames.pop()
    versions = [facts for facts in compiles.values() if facts.compile_id.rpartition("/")[0] == frame]
    if any(facts.calls is None for facts in versions if facts.graphs):
        return None
    passes = sum(compiles[compile_id].calls or 0 for compile_id, _ in group.failures if compile_id in compiles)
    full_calls = sum(facts.calls or 0 for facts in versions) - passes
    if passes < 1 or full_calls < passes or full_calls % passes:
        return None
    return _Passes(full, short, passes, full_calls // passes)


def _branch_on(evidence: RunEvidence, later: list[str]) -> tuple[str, str] | None:
    """(the guard, `` at file:line (`code`)``) where every later compile failed a guard comparing an expression of the
    value with a number (a branch on it, torch's guard on which side), at one line of the user's; None otherwise."""
    failures = [evidence.failures.get(compile_id) for compile_id in later]
    if not failures or any(failure is None or failure.kind != "value" or not failure.change.startswith(
            "the guard was `") for failure in failures):
        return None
    lines = {(failure.line.short, failure.line.code) for failure in failures if failure.line is not None}
    guard = failures[0].change.removeprefix("the guard was `").rstrip("`")
    where = f" at {next(iter(lines))[0]} (`{next(iter(lines))[1].strip()}`)" if len(lines) == 1 else ""
    return guard, where


def _compiled_by(call: CompileCall) -> str:
    """``Transformers`` (the library the user's line called), with the one whose code made the call where another's
    (``Transformers, through accelerate``: the Trainer's train() reaching accelerate's prepare)."""
    called, maker = package_of(call.entry_file or call.file), package_of(call.file)
    return called.capitalize() + (f", through {maker}," if maker != called and "/" not in maker else "")


def _dynamic_after(evidence: RunEvidence, compile_id: str, failure: GuardFailure) -> str:
    """A later version of the frame, compiled for another cause, that made the changed dimension a symbol."""
    frame = compile_id.rpartition("/")[0]
    later = [other for other in evidence.versions.get(frame, ()) if sort_key(other) > sort_key(compile_id)]
    return next((other for other in later if not _for_a_size(evidence.failures.get(other))
                 and failure.dimension is not None and evidence.made_symbolic(other, failure.source, failure.dimension)),
                "")


def _for_a_size(failure: GuardFailure | None) -> bool:
    """A version compiled for a size change, or for what the run does not say."""
    return failure is None or failure.kind == "size"


def _fit(before: int, new: int) -> tuple[int, int] | None:
    """(passes, full batches per pass) where ``before`` calls of the versions before the recompile and ``new`` of the
    recompiled version fit passes of full batches then one short batch, the first short one compiling it. Which
    version serves the later full batches depends on the order torch tries them in and on guards about other things
    (a slice's storage offset can refuse the dynamic version): either the new version took every call from the first
    short batch on (``before`` full batches, then passes of ``before + 1`` calls), or the version before kept the
    full batches and the new one served only the short ones (one a pass)."""
    if before < 1 or new < 1:
        return None
    if (before + new) % (before + 1) == 0:
        return (before + new) // (before + 1), before
    if before % new == 0:
        return new, before // new
    return None


def _block_repeat(trace: Trace, group: _Group) -> SourceLine | None:
    """The model's own line that called both the recompiled version and the version it failed against, where it calls
    a layer compiled on its own (``block_caller``): the layers share the code, so state that differs between them
    makes a version each."""
    compile_id, failure = group.failures[0]
    if not compiled_in_a_loop(trace):  # one compiled submodule called by its model's forward is no layer of many
        return None
    caller = block_caller(trace, compile_id)
    before = block_caller(trace, failure.version) if caller is not None else None
    return caller if before is not None and (before.path, before.line) == (caller.path, caller.line) else None


_DEFAULT_LIMIT = 8  # torch._dynamo.config.recompile_limit's default in every supported release
_NEAR_LIMIT = 4  # versions of one code from which its distance to the limit is said


def _versions(compiles: dict[str, CompileFacts]) -> Counter[str | None]:
    """The versions compiled for each code, by frame: its compiles that produced a graph or guards (the limit's
    refusal not)."""
    return Counter(facts.frame for facts in compiles.values()
                   if not (facts.fail_reason and _LIMIT.search(facts.fail_reason)))


def _lines(trace: Trace, failure: GuardFailure, compile_id: str,
           frame: str | None) -> tuple[SourceLine | None, SourceLine | None]:
    """(the user's line, the library line where the guard came from when that is not the user's): the guard's own
    line where it is the user's; else the innermost line of the user's among the frames that called the compile.
    A resume function is called at its break, which is not where the guarded value comes from: its user's line is
    the innermost of the user's in the guard's own stack, or, for an argument of the function it continues, the
    user's call that passed it."""
    known = caller_paths(trace)
    guard = failure.line if failure.line is not None and failure.line.line else None
    if guard is not None and is_users_file(guard.path, known):
        return guard, None
    if resume_place(short(frame or "")):
        stacked = next((line for line in reversed(traceback_lines(failure.raw)) if is_users_file(line.path, known)),
                       None)
        if stacked is not None:
            return stacked, guard
        called = resumed_call(trace, compile_id)
        if called is not None and failure.subject in called[1]:
            return called[0], guard
    return user_caller(trace, compile_id), guard


def named_failure(trace: Trace, compile_id: str, reason: str) -> GuardFailure:
    """One failure reason of a compile, in the names the user's call wrote (what the divergence of ranks says)."""
    return _named(trace, compile_id, parse_failure(reason))


def _named(trace: Trace, compile_id: str, failure: GuardFailure) -> GuardFailure:
    """``args[0]`` of a ``*args`` wrapper (a compiled module's ``__call__``, DDP's ``forward``) said as what the
    user's call passed: ``model(x)`` -> ``x``."""
    source = parse_source(failure.source) if failure.source else None
    if source is None:
        return failure
    passed = passed_by_user(trace, compile_id)  # read live from the user's call: exact where it exists
    mapped = map_passed(source, passed) if passed else None
    if mapped:
        return dataclasses.replace(failure, subject=mapped)
    argument = naming(source).wrapper_arg
    if argument is None or argument.index is None:
        return failure
    if argument.index == 0 and _module_inside(source):
        # a method's ``*args`` wrapper (a library's decorator on forward): its first argument is the module itself
        mapped = map_wrapper_args(source, ["self"], {})
        return dataclasses.replace(failure, subject=mapped) if mapped else failure
    caller = user_caller(trace, compile_id)  # a log read back: the user's line, when it holds one call
    passed_on_line = call_site(caller.code) if caller is not None and caller.code else None
    mapped = map_wrapper_args(source, *passed_on_line) if passed_on_line else None
    return dataclasses.replace(failure, subject=mapped) if mapped else failure


def _module_inside(source: Source) -> bool:
    """The source reads a module's own parts after its root (``args[0]._modules['model']``)."""
    steps = list(source.steps)
    return len(steps) > 1 and isinstance(steps[1], Attr) and steps[1].name in MODULE_DICTS


def _in_time_order(started: dict[str, int], failures: dict[str, GuardFailure]) -> list[tuple[str, GuardFailure]]:
    """The recompiles in the order they happened (``started``: the run evidence's first clock of each compile; a
    compile the limit refused has no frame record)."""
    order = {compile_id: index for index, compile_id in enumerate(failures)}
    return sorted(failures.items(), key=lambda item: (started.get(item[0], 0), order[item[0]]))


def _bursts(trace: Trace, failures: dict[str, GuardFailure], merged: set[str],
            compiles: dict[str, CompileFacts], evidence: RunEvidence) -> dict[str, int]:
    """Size-like recompiles numbered by the call that brought them: a recompile joins the current burst when its
    frame is one of the burst's, was called from one (its callers name it) or from the same line of the user's, or
    its size changed as one of the burst's did (the same dimension, from and to the same sizes), and
    the version it failed against was not compiled in the burst (that is a later call; a refusal by the recompile
    limit stays with the recompiles before it), nor is it of a code the burst already compiled (one call compiles a
    code once: a second version of it is a later call, 5 decoding steps on), unless the burst's version of that code
    refused it for a tensor's requires_grad (one call reaching the code twice: a layer's input, then the next's); and
    the burst's changes are of one kind."""
    bursts: dict[str, int] = {}
    number, members, places, calls, changes = 0, set(), set(), set(), set()
    codes: set[str] = set()
    kinds: set[str] = set()  # one kind of change per burst: a tensor's requires_grad is not the next call's size
    for compile_id, failure in _in_time_order(evidence.started, failures):
        if compile_id in merged or failure.kind not in _BURSTS:
            continue
        facts = compiles.get(compile_id)
        place, call = _place(facts), _user_call(trace, compile_id)
        # the same size change, next in time, at another call of the user's (the batch passed to the model, then to
        # a compiled metric): the same data reaching one more compiled function
        change = (failure.kind, failure.dimension, failure.change) if failure.kind == "size" and \
            failure.dimension is not None else None
        related = place in places or bool(caller_places(trace, compile_id) & places) or (call and call in calls) \
            or (change is not None and change in changes)
        refused = facts is not None and bool(facts.fail_reason and _LIMIT.search(facts.fail_reason))
        code = compile_id.rpartition("/")[0]
        again = code in codes and not refused and not _reached_twice(evidence, compile_id, members)
        if (failure.version in members and not refused) or not related or again or (kinds and failure.kind not in kinds):
            number, members, places, calls, changes, codes, kinds = number + 1, set(), set(), set(), set(), set(), set()
        kinds.add(failure.kind)
        members.add(compile_id)
        codes.add(code)
        places.add(place)
        calls.add(call)
        changes.add(change)
        bursts[compile_id] = number
    return bursts


def _reached_twice(evidence: RunEvidence, compile_id: str, members: set[str]) -> bool:
    """Every version of the compile's code in the burst refused it for a tensor's requires_grad: the same call reached
    that code again with another kind of tensor."""
    code = compile_id.rpartition("/")[0]
    mine = [tried for tried in evidence.tried.get(compile_id, ()) if tried.version in members
            and tried.version.rpartition("/")[0] == code]
    return bool(mine) and all(tried.kind == "requires_grad" for tried in mine)


def _user_call(trace: Trace, compile_id: str) -> tuple[str, int] | None:
    """The user's line whose call led to the compile, as (path, line)."""
    caller = user_caller(trace, compile_id)
    return (caller.path, caller.line) if caller is not None and not is_library(caller.path) else None


def _place(facts: CompileFacts | None) -> tuple[str, str]:
    """(file name, function name) of a compiled frame: ``GPT2LMHeadModel.forward (modeling_gpt2.py:647)``; a resume
    function stands for the function it continues."""
    found = re.match(r"(?:[\w.]+\.)?(\w+) \(([^():]+):\d+\)", facts.frame or "") if facts else None
    if not found:
        return ("", "")
    resumed = resume_place(found.group(1))
    return (found.group(2), resumed[0] if resumed else found.group(1))


def _last_guards(trace: Trace) -> dict[str, str]:
    """Each compile's last guards text, by compile id."""
    return {artifact.compile_id: artifact.payload or "" for artifact in trace.artifacts if artifact.kind == "guards"}


def _base_frame(frame: str | None) -> str:
    """A resume function Dynamo made after a break in ``f`` stands for ``f``: they recompile for the same cause."""
    name = short(frame or "?")
    place = resume_place(name)
    return place[0] if place else name


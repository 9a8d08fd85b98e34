"""torch's hints on graph breaks as evidence, not advice: each checked against the rest of the run before it is
passed on as the fix (a setting the same function's later breaks defeat, torch.optim's own breaks, a logging
setting that silences the logger)."""

from __future__ import annotations

import dataclasses
import re

from .finding_type import Finding, Remedy, unique_ids
from .frames import SourceLine, is_library, module_of

_CAPTURE = re.compile(r"capture_(?:dynamic_output_shape_ops|scalar_outputs)")
# What each kind of data-dependent step needs Dynamo to capture: a Python number out of a tensor (.item(),
# .tolist(): capture_scalar_outputs), or a tensor whose size depends on the data (nonzero: ..._shape_ops).
_NEEDS = ((re.compile(r"\.(?:tolist|item)\(\)|Tensor\.item|Data dependent operator", re.I), "capture_scalar_outputs"),
          (re.compile(r"nonzero|unique|masked_select|Dynamic shape operator", re.I), "capture_dynamic_output_shape_ops"))
_LOGGING_HINT = re.compile(r"ignore_log(?:ger_methods|ging_functions)|logging function|logger method", re.I)
_LOG_CALL = re.compile(r"([A-Za-z_][\w.]*\.(?:warning_once|info_once|warning|warn|info|debug|error|exception|critical|"
                       r"log))\s*\(")
_PRINT = re.compile(r"builtin `print`")  # torch's words for a break on print(...)
_OPTIM = ("torch/optim/", "optim/lr_scheduler.py", "optim/optimizer.py")

_OPTIM_ADVICE = ("This break is in torch.optim's own code ({where}), reached from your line: it is not yours to "
                 "change, and torch's hint (do not call it in compiled code) would take the step out of the compiled "
                 "function. The code around it still compiles as graphs of its own; nothing to fix unless the step's "
                 "time matters.")
_SKIPPED = re.compile(r"the function `([\w.]+)`")
_OPTIM_COMPILED = ("torch skips the torch.optim code around `{name}` (a wrapper it never traces), so the call breaks the "
                   "graph; `{name}` itself then compiled as a frame of its own. Nothing to fix: moving the call out of "
                   "the compiled function would run `{name}` eagerly instead.")
_OPTIM_EAGER = ("torch never traces `{name}` (its file is skipped): it runs eagerly wherever it is called, and the call "
                "breaks the graph. Where nothing after it in the compiled function depends on it, call it after the "
                "compiled call instead: the same work, one break fewer.")
_CAPTURE_NOTE = ("torch's hint ({setting}) is not passed on as the fix: the same function goes on to {other} at "
                 "{where}, a data-dependent step of another kind, which that setting does not cover (applied alone, "
                 "Dynamo traces on into that line). Check it before relying on it (trace --check-fixes).")
_CAPTURE_PART = ("torch's hint ({setting}) is not passed on as the fix: it covers the data-dependent break only, and "
                 "this line also breaks for another reason ({others}), which that setting leaves in place (applied "
                 "alone, the line still breaks). Check it before relying on it (trace --check-fixes).")
_CAPTURE_ADVICE = ("This line and {where} both work on values that depend on the data: compute them outside the "
                   "compiled function and pass the results in, or keep the data-dependent part in tensor ops.")
_LOGGING_ADVICE = ("The break is the logging call `{method}`{where}. Adding that function to "
                   "torch._dynamo.config.ignore_logging_functions (a set of the functions themselves) removes the break "
                   "(before the first call: {paste}), and with it any message the call would print while the code runs compiled (a message its "
                   "logger's level lets through, or a warning_once not yet said): the output can change. Keep it if "
                   "the messages matter; else add it (trace --check-fixes shows what changes), or log outside the "
                   "compiled function.")
_PRINT_ADVICE = ("The break is the `print` at this line. "
                 "`torch._dynamo.config.reorderable_logging_functions.add(print)` before the first call lets Dynamo "
                 "compile through it: the print is kept and moved to after the graph, printing the same values (a "
                 "tensor changed in place after the print shows its later value). Or print outside the compiled "
                 "function: return the value and print it after the call.")
_PRINT_NOTE = "torch's hint (an equivalent alternative to `print`) names none; one is given above"
_LOGGING_UNNAMED = ("torch's hint (ignore_logging_functions) removes the break by dropping the logging call from "
                    "compiled code: its messages are then not printed while the code runs compiled.")


_SETTING = re.compile(r"`?(torch\._(?:dynamo|inductor)\.config\.\w+)\s*=\s*(True|False|\d+)`?")


def checked_hints(found: list[Finding], compiled: frozenset[str] = frozenset()) -> list[Finding]:
    """The break findings with torch's hints checked against the run's other breaks and their places, and a setting a
    hint names as the fix the tracer can apply to check it (trace --check-fixes); a training step's backward and
    optimizer calls, each a break, said as one finding. ``compiled``: the functions the run compiled a graph for
    (``Adam.step``)."""
    breaks = [finding for finding in found if finding.kind in ("graph-break", "frame-skipped")]
    checked = [_with_remedy(_checked(finding, breaks, compiled)) if finding in breaks else finding for finding in found]
    return _rnn_unrolled(_packed_rnns(_one_per_function(_training_steps(_one_per_line(checked)))))


def _one_per_line(found: list[Finding]) -> list[Finding]:
    """Breaks at one place said once: a line that breaks in several frames (a loop Dynamo skips, and the frames it
    inlines, a resumable break and one it could not resume from) is one cause, and so is a library's line that breaks
    two ways (a call that returns no tensor, then its ``with`` Dynamo cannot enter): one statement, one cause."""
    home: dict[tuple, int] = {}
    out: list[Finding] = []
    for finding in found:
        key = None
        if finding.kind in ("graph-break", "frame-skipped") and finding.where:
            key = (finding.where,) if finding.library_line is not None else \
                (finding.where, finding.graph_break_id or finding.explanation)
        if key is None or key not in home:
            if key is not None:
                home[key] = len(out)
            out.append(finding)
            continue
        kept = out[home[key]]
        if _reason(kept) == _reason(finding):
            out[home[key]] = _merged(kept, finding)
            continue
        # two ways: the one that sent a frame to eager leads (it costs every call), the other said with it
        first, second = (finding, kept) if finding.kind == "frame-skipped" and kept.kind != "frame-skipped" else \
            (kept, finding)
        out[home[key]] = dataclasses.replace(
            _merged(first, second, f"{first.what}, and {second.events} more graph break"
                                   f"{'s' if second.events != 1 else ''} at the same line ({_reason(second)})"),
            kind=first.kind)
    return out


_SKIPPED_REASON = re.compile(r"^Dynamo could not resume after a graph break \((.+?)\)(?: inside `[^`]*` \(line \d+\))? "
                             r"and ran the whole frame eagerly")
_BREAKS_REASON = re.compile(r"^\d+ graph breaks?: (.+)$")


def _reason(finding: Finding) -> str:
    """The kind of break a finding's headline names (``Unsupported context manager``)."""
    found = _SKIPPED_REASON.match(finding.what) or _BREAKS_REASON.match(finding.what)
    return found.group(1) if found else finding.what


def _merged(kept: Finding, finding: Finding, what: str | None = None) -> Finding:
    """Two break findings of one cause as one: events, compiles, costs and parts added up."""
    skipped = [item for item in (kept, finding) if item.kind == "frame-skipped"]
    events = kept.events + finding.events
    what = what or re.sub(r"^\d+ graph breaks?", f"{events} graph break{'s' if events != 1 else ''}", kept.what)
    return dataclasses.replace(
        kept, what=what, events=events,
        compile_ids=unique_ids((*kept.compile_ids, *finding.compile_ids)), cost_s=kept.cost_s + finding.cost_s,
        graphs_added=kept.graphs_added + finding.graphs_added,
        no_graph=tuple(dict.fromkeys((*kept.no_graph, *finding.no_graph))),
        eager_calls=(kept.eager_calls or 0) + (finding.eager_calls or 0) or None,
        eager_note=kept.eager_note or finding.eager_note,
        parts=(*kept.parts, *finding.parts, *(["in one frame Dynamo could not resume after it and ran the whole "
                                               "frame eagerly"] if skipped and kept.kind != "frame-skipped" else [])),
        remedies=tuple(dict.fromkeys((*kept.remedies, *finding.remedies))))


_ON_ITS_OWN = "the code after it compiled on its own"  # breaks.py's part for the resume function's compiles


def _one_per_function(found: list[Finding]) -> list[Finding]:
    """Breaks of one kind, with one hint and one fix, at several lines of one function of the user's: one cause (three
    ``float(np.sum(...))`` lines in a row), said once at its first line, each line among its parts."""
    def key(finding: Finding) -> tuple | None:
        line = finding.user_line
        if finding.kind != "graph-break" or line is None or finding.library_line is not None or not line.function:
            return None
        return (line.path, line.function, finding.graph_break_id or finding.explanation, finding.hint, finding.advice,
                finding.remedies)

    groups: dict[tuple, list[Finding]] = {}
    for finding in found:
        if key(finding) is not None:
            groups.setdefault(key(finding), []).append(finding)
    replacement: dict[int, Finding] = {}
    merged_away: set[int] = set()
    for group in groups.values():
        if len({finding.user_line.line for finding in group}) < 2:  # type: ignore[union-attr]
            continue
        group.sort(key=lambda finding: finding.user_line.line)  # type: ignore[union-attr]
        first, events = group[0], sum(finding.events for finding in group)
        lines = [finding.user_line.line for finding in group]  # type: ignore[union-attr]
        said = ", ".join(map(str, lines[:-1])) + f" and {lines[-1]}"
        reason = re.sub(r"^\d+ graph breaks?: ", "", first.what)
        what = f"{events} graph breaks: {reason}, at lines {said} of `{first.user_line.function}`"  # type: ignore[union-attr]
        merged = dataclasses.replace(first, parts=tuple(f"line {finding.user_line.line} "  # type: ignore[union-attr]
                                                        f"(`{finding.user_line.code.strip()}`)" for finding in group)
                                     + first.parts)
        for finding in group[1:]:  # each line's resume function recompiles on its own: they add up
            merged = dataclasses.replace(_merged(merged, finding, what), recompiles=merged.recompiles + finding.recompiles)
        # the code after the last of these lines is what compiles on its own once they are gone: its part alone
        after = [part for part in group[-1].parts if part.startswith(_ON_ITS_OWN)]
        merged = dataclasses.replace(merged, parts=tuple(part for part in merged.parts
                                                         if not part.startswith(_ON_ITS_OWN)) + tuple(after))
        replacement[id(first)] = merged
        merged_away.update(id(finding) for finding in group[1:])
    return [replacement.get(id(finding), finding) for finding in found if id(finding) not in merged_away]


# The calls of a training step that break a compiled function by design: the backward (AOTAutograd compiles the
# backward of the compiled forward anyway) and torch.optim's steps (skipped by Dynamo here).
_STEP_CALL = re.compile(r"\.(backward|zero_grad|step)\s*\(")
_STEP_BREAK = re.compile(r"Tensor\.backward|Optimizer\.|LRScheduler\.|\w+\.step`|marked as skipped|graph_break\(\)")
_STEP_ADVICE = ("These are the training step's own calls ({calls}), and each breaks the compiled function: the "
                "backward is compiled all the same from the compiled forward (AOTAutograd), and torch.optim's steps "
                "break it by design (torch skips their wrappers). Compile the forward and the loss only, return the "
                "loss, and make all of these "
                "calls outside it: {before}the others after the compiled call, in the order the function makes them. "
                "Moving some out and not others "
                "changes what the loop computes (an optimizer step before the backward uses the old gradients; a "
                "zero_grad dropped lets them add up).")
_STEP_NOTE = ("torch's hints on these breaks (avoid calling them in compiled code) would drop calls the training "
              "needs: not passed on")


def _training_steps(found: list[Finding]) -> list[Finding]:
    """The breaks at a training step's calls in one file of the user's, two or more, merged into one finding at the
    first of them (where the step starts)."""
    def is_step(finding: Finding) -> bool:
        line = finding.user_line
        return finding.kind == "graph-break" and line is not None and bool(_STEP_CALL.search(line.code or "")) and \
            bool(_STEP_BREAK.search(" ".join((finding.what, finding.hint or "", finding.explanation or ""))))

    by_file: dict[str, list[Finding]] = {}
    for finding in found:
        if is_step(finding):
            by_file.setdefault(finding.user_line.path, []).append(finding)  # type: ignore[union-attr]
    merged_away: set[int] = set()
    replacement: dict[int, Finding] = {}
    for steps in by_file.values():
        # a training step is there only where its backward breaks beside the optimizer's calls
        if len(steps) < 2 or not any("backward" in (finding.user_line.code or "")  # type: ignore[union-attr]
                                     for finding in steps):
            continue
        steps.sort(key=lambda finding: finding.user_line.line)  # type: ignore[union-attr]
        calls = ", ".join(f"`{finding.user_line.code.strip()}` (line {finding.user_line.line})"  # type: ignore[union-attr]
                          for finding in steps)
        events = sum(finding.events for finding in steps)
        first = steps[0]
        replacement[id(first)] = dataclasses.replace(
            first, what=f"{events} graph breaks: a training step's backward and optimizer calls inside the compiled "
                        f"function ({len(steps)} lines)",
            events=events, compile_ids=unique_ids(cid for finding in steps for cid in finding.compile_ids),
            cost_s=sum(finding.cost_s for finding in steps),
            graphs_added=sum(finding.graphs_added for finding in steps),
            no_graph=tuple(dict.fromkeys(cid for finding in steps for cid in finding.no_graph)),
            parts=tuple(f"{finding.user_line.short}: {finding.what}" for finding in steps),  # type: ignore[union-attr]
            advice=_STEP_ADVICE.format(calls=calls, before="`zero_grad()` before the compiled call, " if any(
                "zero_grad" in (finding.user_line.code or "") for finding in steps) else ""),
            hint=next((finding.hint for finding in steps if finding.hint), None),  # torch's word, shown as such
            hint_note=_STEP_NOTE, torch_link=None,
            graph_break_id=None, remedies=(), recompiles=sum(finding.recompiles for finding in steps),
            cost_counts=first.cost_counts)
        merged_away.update(id(finding) for finding in steps[1:])
    return [replacement.get(id(finding), finding) for finding in found if id(finding) not in merged_away]


_ALLOW_RNN = re.compile(r"allow_rnn")
_PACKS = re.compile(r"^\s*(\w+)\s*=\s*(?:[\w.]+\.)?(pack_padded_sequence|pack_sequence)\s*\(")
_RNN_NOTE = ("torch's hint (allow_rnn) alone is not the fix here: the RNN's input is the PackedSequence made at "
             "{pack}, and Dynamo tracing an RNN over a PackedSequence meets its per-step batch sizes, values that "
             "depend on the data, which it breaks on inside torch's own RNN code (trace --check-fixes runs the "
             "setting alone)")
_RNN_ADVICE = ("Run the RNN on the padded tensor itself, without `{packer}` (at {pack}) and the unpacking after it "
               "(mask the padded steps out of the loss instead, as an ignore_index does), and set "
               "torch._dynamo.config.allow_rnn = True before the first call: the two together compile the RNN; "
               "either alone leaves it eager.")
_PACK_ADVICE = (" On its own this leaves the RNN after it running eagerly (its own finding, at {rnn}): drop the "
                "packing and set allow_rnn together.")


def _packed_rnns(found: list[Finding]) -> list[Finding]:
    """An RNN that sent its frame to eager (torch's hint: allow_rnn) fed by a PackedSequence that an earlier line of
    the same function made (its own break, a function Dynamo skips): two findings whose fixes work only together."""
    packs = {}
    for finding in found:
        line = finding.user_line
        made = _PACKS.match(line.code or "") if line is not None and finding.kind == "graph-break" else None
        if made:
            packs[(line.path, line.function, made.group(1))] = (finding, made.group(2))
    if not packs:
        return found
    replaced: dict[int, Finding] = {}
    for finding in found:
        line = finding.user_line
        if line is None or not _ALLOW_RNN.search(finding.hint or finding.advice or ""):
            continue
        fed = next((packed for (path, function, name), packed in packs.items() if path == line.path
                    and function == line.function and re.search(rf"(?<![\w.]){re.escape(name)}(?!\w)", line.code or "")),
                   None)
        if fed is None:
            continue
        pack, packer = fed
        where = pack.user_line.short  # type: ignore[union-attr]
        replaced[id(finding)] = dataclasses.replace(
            finding, advice=_RNN_ADVICE.format(packer=packer, pack=where),
            hint_note=((finding.hint_note + "; ") if finding.hint_note else "") + _RNN_NOTE.format(pack=where))
        base = pack.advice or f"Call `{packer}` outside the compiled function, or not at all."
        replaced[id(pack)] = dataclasses.replace(pack, advice=base + _PACK_ADVICE.format(rnn=line.short))
    return [replaced.get(id(finding), finding) for finding in found]


# What allow_rnn costs: AOTAutograd's decomposition of an RNN loops over the time steps in Python, so the graph holds
# every step (a GRU's forward graph: 152 nodes at 5 steps, 1,062 at 40, torch 2.13).
_UNROLLED = ("with allow_rnn, the compiled graph holds the RNN once per time step (torch unrolls it), so the compile "
             "grows with the sequence length and can cost more than the eager RNN's calls: measure before keeping it "
             "(trace --check-fixes runs the setting)")


def _rnn_unrolled(found: list[Finding]) -> list[Finding]:
    """A finding that advises allow_rnn (torch's hint, or ours with the packing dropped) says what it costs."""
    return [dataclasses.replace(finding, hint_note="; ".join(filter(None, (finding.hint_note, _UNROLLED))))
            if _ALLOW_RNN.search(f"{finding.hint or ''} {finding.advice or ''}") else finding for finding in found]


def _with_remedy(finding: Finding) -> Finding:
    """torch's hint as a remedy where it names a setting and a value (``capture_scalar_outputs = True``); the logging
    function ours names."""
    remedies = list(finding.remedies)
    setting = _SETTING.search(finding.hint or "")
    if setting:
        value = {"True": True, "False": False}.get(setting.group(2), setting.group(2))
        remedies.append(Remedy("setting", setting.group(1), int(value) if isinstance(value, str) else value))
    method = _logging_call(finding)
    line = finding.library_line or finding.user_line
    if method is not None:
        remedies.append(Remedy("ignore-logging", method, None, line.path if line else "", line.line if line else 0))
    if _is_print(finding):
        remedies.append(Remedy("reorder-logging", "print", None, line.path if line else "", line.line if line else 0))
    return dataclasses.replace(finding, remedies=tuple(remedies)) if remedies != list(finding.remedies) else finding


def _logging_paste(method: str, line: SourceLine | None) -> str:
    """The line to paste: the function as the user's code can name it; a library's by its module
    (``transformers.modeling_utils.logger.warning_once``), which --check-fixes resolves the same way."""
    module = module_of(line.path) if line is not None and is_library(line.path) else None
    added = f"torch._dynamo.config.ignore_logging_functions.add({f'{module}.' if module else ''}{method})"
    return f"`import {module}`, then `{added}`" if module else f"`{added}`"


def _logging_call(finding: Finding) -> str | None:
    """The logging call a logging break's line makes (``logger.warning_once``), where torch says it is one."""
    if not (_LOGGING_HINT.search(finding.hint or "") or _LOGGING_HINT.search(finding.explanation or "")):
        return None
    code = " ".join(line.code for line in (finding.library_line, finding.user_line) if line is not None and line.code)
    method = _LOG_CALL.search(code)
    return method.group(1) if method else None


def _is_print(finding: Finding) -> bool:
    """A break torch puts down to the builtin print, at a line that calls it."""
    said = " ".join((finding.hint or "", finding.explanation or "", finding.advice or "", finding.what))
    line = finding.library_line or finding.user_line
    return bool(_PRINT.search(said)) and line is not None and bool(re.search(r"(?<![\w.])print\s*\(", line.code or ""))


def _checked(finding: Finding, breaks: list[Finding], compiled: frozenset[str]) -> Finding:
    hint = finding.hint or ""
    if _is_print(finding):
        return dataclasses.replace(finding, advice=_PRINT_ADVICE,
                                   hint_note=((finding.hint_note + "; ") if finding.hint_note else "") + _PRINT_NOTE)
    library = finding.library_line
    if library is not None and any(part in library.path.replace("\\", "/") for part in _OPTIM):
        return dataclasses.replace(finding, advice=_OPTIM_ADVICE.format(where=library.short),
                                   hint_note="torch.optim breaks the graph here by design")
    skipped = _SKIPPED.search(finding.explanation or "")
    if skipped and "torch/optim/" in (finding.explanation or "").replace("\\", "/"):
        # torch skips torch.optim's wrappers by design; what they call may still compile as frames of its own
        name = skipped.group(1)
        advice = _OPTIM_COMPILED if name in compiled else _OPTIM_EAGER
        return dataclasses.replace(finding, advice=advice.format(name=name),
                                   hint_note="torch skips this torch.optim code by design: its hint to avoid the call "
                                             "is not passed on")
    capture = _CAPTURE.search(hint)
    if capture and finding.user_line is not None:
        others = _other_titles(finding, capture.group())
        if others:  # the line breaks on something else too: the setting alone leaves a break there
            return dataclasses.replace(finding, hint_note=_CAPTURE_PART.format(
                setting=f"torch._dynamo.config.{capture.group()} = True", others="; ".join(others)))
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
            line = finding.library_line or finding.user_line
            code = line.code.strip() if line is not None and line.code else ""
            code += "…" if code.endswith(("(", "[", "{", ",")) else ""  # a call that goes on over more lines
            where = f" ({line.short}: `{code}`)" if code and finding.library_line is not None else ""
            return dataclasses.replace(finding, advice=_LOGGING_ADVICE.format(
                method=method, where=where, paste=_logging_paste(method, line)))
        return dataclasses.replace(finding, hint_note=((finding.hint_note + "; ") if finding.hint_note else "")
                                   + _LOGGING_UNNAMED)
    return finding


def _other_titles(finding: Finding, setting: str) -> list[str]:
    """The finding's break reasons (``2 graph breaks: A; B``) that the capture setting does not cover."""
    titles = re.sub(r"^\d+ graph breaks?: ", "", finding.what).split("; ") if finding.kind == "graph-break" else []
    return [title for title in titles if not any(pattern.search(title) for pattern, needed in _NEEDS
                                                 if needed == setting)]


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

"""Differences between ranks said as the user would say them: the argument, its shape or dtype on each rank."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from tracers.analysis.guard_failures import ordinal_argument
from tracers.analysis.guard_sources import naming, parse_source
from tracers.analysis.user_names import spoken
from tracers.tracefile.compile_identity import sort_key

from .collectives import Parting, Step, operation

# A placeholder's metadata as Dynamo prints it in a graph's signature: ``i64[4, 128][128, 1]cuda:0``
# (dtype, shape, stride, device; torch/fx/graph.py's _format_target / the "f32[...]" annotations).
_TENSOR_META = re.compile(r"^(?P<dtype>\w+)\[(?P<shape>[^\]]*)\]\[(?P<stride>[^\]]*)\](?P<device>.*)$")
# A tensor guard: ``TENSOR_MATCH: check_tensor(L['x'], Tensor, DispatchKeySet(...), torch.float32,
# device=None, requires_grad=False, size=[2, 2], stride=[2, 1])`` (torch/_dynamo/guards.py).
_TENSOR_GUARD = re.compile(r"check_tensor\((?P<source>[^,]+), \w+, DispatchKeySet\([^)]*\), torch\.(?P<dtype>\w+), "
                           r"device=(?P<device>[^,]+), requires_grad=(?P<grad>\w+), size=\[(?P<shape>[^\]]*)\], "
                           r"stride=\[(?P<stride>[^\]]*)\]")
# A guard on a value: ``EQUALS_MATCH: L['n'] == 3`` (also ``___check_obj_id(L['m'], 140…) `` is not one: ids differ
# anyway and are made steady before comparing).
_VALUE_GUARD = re.compile(r"^[A-Z_]+: (?P<source>[LG]\[[^=]*?) == (?P<value>.+?)(?:\s+#.*)?$")
_STRIDE_DEVICE = re.compile(r"\[[^\]]*\](?:cuda|cpu)$")  # ``f32[64, 64][64, 1]cuda`` said as ``f32[64, 64]``
_TREE = re.compile(r"^[|\s]*\+-\s*")  # the guard tree's drawing before each guard
_SOURCE_PART = re.compile(r"\['([^']+)'\]|\.(\w+)|\[(\d+)\]")
_CONTAINERS = frozenset({"L", "G", "_modules", "_parameters", "_buffers", "kwargs", "args", "__dict__"})
_PLACEHOLDER_PARTS = (("_modules_", "."), ("_parameters_", "."), ("_buffers_", "."))


# From this many processes on, the ones that agree are said once (``ranks 0–4, 6, 7: …``), in the per-rank table
# and the compile rows: eight columns fit neither a page nor a terminal; two or three are clearer each on its own.
GROUP_FROM = 5


def ranks_text(ranks: Sequence[int]) -> str:
    """``rank 1``, ``ranks 0, 2``, ``ranks 0–4``, ``ranks 0–4, 6, 7`` (each run of three or more as a range)."""
    ranks = sorted(ranks)
    runs: list[list[int]] = []
    for rank in ranks:
        if runs and rank == runs[-1][-1] + 1:
            runs[-1].append(rank)
        else:
            runs.append([rank])
    parts = [f"{run[0]}–{run[-1]}" if len(run) > 2 else ", ".join(map(str, run)) for run in runs]
    return ("rank " if len(ranks) == 1 else "ranks ") + ", ".join(parts)


def ids_text(compile_ids: Iterable[str]) -> str:
    """``0/1–0/14`` for consecutive recompiles of one frame, else a list (``0/0, 1/0``)."""
    ids = sorted(compile_ids, key=sort_key)
    parts: list[list[str]] = []
    for cid in ids:
        frame, _, number = cid.rpartition("/")
        if parts and number.isdigit():
            last = parts[-1][-1]
            last_frame, _, last_number = last.rpartition("/")
            if last_frame == frame and last_number.isdigit() and int(last_number) + 1 == int(number):
                parts[-1].append(cid)
                continue
        parts.append([cid])
    return ", ".join(part[0] if len(part) == 1 else f"{part[0]}–{part[-1]}" for part in parts)


def by_ranks(groups: Sequence[tuple[Sequence[int], str]]) -> str:
    """``A on rank 0 and B on rank 1`` (values with the ranks that have them, the largest group first)."""
    said = [f"{value} on {ranks_text(ranks)}" for ranks, value in groups]
    return said[0] if len(said) == 1 else ", ".join(said[:-1]) + " and " + said[-1]


_SYMBOL = re.compile(r"[su]\d+")


def said_source(source: str) -> str:
    """A guarded value as a summary line says it: the user's name in backticks (by the guard-source grammar), or words
    where no name exists (``L['args'][0]`` of a wrapper: the call's first argument)."""
    parsed = parse_source(source)
    named = naming(parsed) if parsed is not None else None
    argument = named.wrapper_arg if named is not None else None
    if argument is not None and argument.index is not None and named.name == f"args[{argument.index}]":
        return ordinal_argument(argument.index)
    return f"`{named.name if named is not None and named.name else source_name(source)}`"


def source_name(source: str) -> str:
    """``L['kwargs']['input_ids']`` -> ``input_ids``; ``L['self']._modules['fc']._parameters['weight']`` ->
    ``self.fc.weight``: the name the user wrote, without Dynamo's containers."""
    parts = [key or attribute or f"[{index}]" for key, attribute, index in _SOURCE_PART.findall(source)]
    named = [part for part in parts if part not in _CONTAINERS]
    return ".".join(named).replace(".[", "[") or source.strip()


def placeholder_name(name: str) -> str:
    """``L_kwargs_input_ids_`` -> ``input_ids``, ``L_self_modules_fc_parameters_weight_`` -> ``self.fc.weight``."""
    text = re.sub(r"^[LG]_", "", name).removesuffix("_")
    text = re.sub(r"^(kwargs|args)_", "", text)
    for part, dot in _PLACEHOLDER_PARTS:
        text = text.replace(part, dot)
    return text


def _tensor_fields(meta: str) -> dict[str, str] | None:
    match = _TENSOR_META.match(meta.strip())
    if match is None:
        return None
    return {"shape": f"[{match['shape']}]", "dtype": match["dtype"], "stride": f"[{match['stride']}]",
            "device": re.sub(r":\d+$", "", match["device"]) or "?"}


def _field_words(name: str, fields_by_rank: dict[int, dict[str, str] | None], raw: dict[int, str]) -> str | None:
    """```input_ids` is [4, 128] on rank 0 and [4, 96] on rank 1``: the first field that differs, in words (``name``
    as said: in backticks, or words)."""
    if all(fields is not None for fields in fields_by_rank.values()):
        for field, verb in (("shape", "is"), ("dtype", "is"), ("stride", "has stride"), ("device", "is on"),
                            ("requires_grad", "has requires_grad")):
            values = {rank: fields.get(field) for rank, fields in fields_by_rank.items()}  # type: ignore[union-attr]
            if len(set(values.values())) > 1:
                return f"{name} {verb} " + by_ranks(_grouped(values))
    if len(set(raw.values())) > 1:
        return f"{name} is " + by_ranks(_grouped(raw))
    return None


def _grouped(values: dict[int, str | None]) -> list[tuple[tuple[int, ...], str]]:
    groups: dict[str, list[int]] = {}
    for rank, value in values.items():
        groups.setdefault(str(value), []).append(rank)
    return sorted(((tuple(ranks), value) for value, ranks in groups.items()), key=lambda item: (-len(item[0]), item[0]))


def input_words(inputs_by_rank: dict[int, tuple[str, ...]]) -> list[str]:
    """One line per graph input that differs between ranks (``name: meta`` entries, as the signature has them)."""
    parsed = {rank: dict(entry.split(": ", 1) for entry in inputs if ": " in entry)
              for rank, inputs in inputs_by_rank.items()}
    names: list[str] = []
    for inputs in parsed.values():
        names += [name for name in inputs if name not in names]
    lines = []
    for name in names:
        having = {rank: inputs[name] for rank, inputs in parsed.items() if name in inputs}
        if len(having) < len(parsed):
            # A symbol (``s33``) is a size Dynamo made dynamic: the other ranks' graphs were compiled for fixed sizes.
            kind = ", a dynamic size," if _SYMBOL.fullmatch(name) else ""
            lines.append(f"`{placeholder_name(name)}`{kind} is an input on {ranks_text(list(having))} only")
            continue
        said = _field_words(f"`{placeholder_name(name)}`", {rank: _tensor_fields(meta) for rank, meta in having.items()},
                            having)
        if said:
            lines.append(said)
    return lines


def guard_words(guards_by_rank: dict[int, frozenset[str]]) -> list[str]:
    """The guards that differ, in words: a tensor's shape, dtype or stride per rank from its TENSOR_MATCH, other
    guards as the ranks that check them; the guard tree's own structure lines are left out."""
    tensors: dict[str, dict[int, dict[str, str]]] = {}
    values: dict[str, dict[int, str]] = {}
    others: dict[str, set[int]] = {}
    for rank, guards in guards_by_rank.items():
        for line in sorted(guards):  # a set: sorted, so the same logs say the same lines in the same order every run
            text = _TREE.sub("", line)
            match = _TENSOR_GUARD.search(text)
            if is_structure(text):
                continue
            if match:
                # None in a guarded size or stride is a dimension left dynamic: any value passes.
                shape, stride = (re.sub(r"\bNone\b", "any", match[key]) for key in ("shape", "stride"))
                fields = {"shape": f"[{shape}]", "dtype": match["dtype"], "stride": f"[{stride}]",
                          "device": match["device"], "requires_grad": match["grad"]}
                tensors.setdefault(match["source"], {})[rank] = fields
            elif (value := _VALUE_GUARD.match(text)) is not None:
                values.setdefault(value["source"], {})[rank] = value["value"].strip()
            else:
                others.setdefault(text, set()).add(rank)
    lines = []
    everyone = set(guards_by_rank)
    for source, by_rank in tensors.items():
        name = said_source(source)
        if set(by_rank) != everyone:
            lines.append(f"{name} is guarded as a tensor on {ranks_text(list(by_rank))} only")
            continue
        said = _field_words(name, dict(by_rank), {rank: str(sorted(fields.items())) for rank, fields in by_rank.items()})
        if said:
            lines.append(said)
    for source, by_rank in values.items():
        if set(by_rank) != everyone:
            lines.append(f"{said_source(source)} is checked on {ranks_text(list(by_rank))} only")
        elif len(set(by_rank.values())) > 1:
            lines.append(f"{said_source(source)} is " + by_ranks(_grouped(dict(by_rank))))
    for text, ranks in others.items():
        if ranks != everyone:
            said = _other_guard_words(text)
            if said:  # torch's own helper calls are said in words, or left out (the page has torch's text)
                lines.append(f"{ranks_text(sorted(ranks))} only: {said}")
    return lines


def said_guard(line: str) -> str | None:
    """One guard in the user's words, as guard_words says a guard only some ranks check (``the type of `x` is
    checked``): for a group of ranks' own guards; None for the tree's structure and for text not said in words."""
    text = _TREE.sub("", line)
    if is_structure(text):
        return None
    tensor = _TENSOR_GUARD.search(text)
    if tensor:
        return f"{said_source(tensor['source'])} is guarded as a tensor"
    value = _VALUE_GUARD.match(text)
    if value:
        return f"{said_source(value['source'])} is checked"
    return _other_guard_words(text)


def is_structure(line: str) -> bool:
    """The guard tree's own lines (its managers), no guard."""
    text = _TREE.sub("", line)
    return not text or text.startswith(("GuardManager:", "DictGuardManager:", "RootGuardManager", "TREE_GUARD_MANAGER",
                                        "DictSubclassGuardManager"))


_HELPER_GUARD = re.compile(r"^(?P<kind>[A-Z_]+): ___check_(?P<check>type_id|obj_id)\((?P<source>.+), [^,]+\)\s*(#.*)?$")
_GUARD_KIND = re.compile(r"^[A-Z_]+: ")  # ``DICT_LENGTH: …``: the guard's kind before its check
_SCOPED = re.compile(r"\b[LG]\[")  # a value of the compiled frame's, in Dynamo's spelling
_CELL = re.compile(r"\.__closure__\[(\d+)\]\.cell_contents")


def _other_guard_words(text: str) -> str | None:
    """A guard that is no tensor's or value's, in words: ``the type of the first variable `fn` captures is checked``;
    None where it calls torch's helpers in a way not said in words (``___``), kept as written otherwise."""
    match = _HELPER_GUARD.match(text)
    if match is None:
        if "___" in text:
            return None
        # another check on the user's values (``DICT_LENGTH: len(L['self']._modules) == 2``): the check as written,
        # its values in the user's names (``len(self._modules) == 2``), never Dynamo's L[...] spelling
        check = text.split(": ", 1)[1] if _GUARD_KIND.match(text) else text
        return f"`{spoken(check.split('  #', 1)[0].strip())}` is checked" if _SCOPED.search(check) else text
    source, what = match["source"], "type" if match["check"] == "type_id" else "identity"
    code = source.endswith(".__code__")
    source = source.removesuffix(".__code__")
    method = ".__func__" in source  # a bound method's function: the method the user wrote
    source = source.replace(".__func__", "")
    cells = _CELL.findall(source)
    base = _CELL.sub("", source)
    if "__" in base.replace("['", "").replace("']", "") and not base.startswith(("L['", "G['")):
        return None
    name = said_source(base)
    if len(cells) == 1:
        index = int(cells[0])
        ordinal = ("first", "second", "third")[index] if index < 3 else f"{index + 1}th"
        name = f"the {ordinal} variable {name}{' (a method)' if method else ''} captures"
    elif cells or "__" in name:
        return None
    elif method:
        name += " (a method)"
    return f"the {what} of {'the code of ' if code else ''}{name} is checked"


def collective_words(collectives_by_rank: dict[int, tuple]) -> list[str]:
    """``the compiled graph issues all_reduce f32[64, 64], all_reduce f32[64] on rank 1 and …``: each rank's
    collectives in the last graph of the pipeline that holds any (what runs), said once per group of ranks."""
    said: dict[int, str] = {}
    for rank, collectives in collectives_by_rank.items():
        last = collectives[-1].graph if collectives else None
        ops = [f"{c.op} {_STRIDE_DEVICE.sub('', c.tensor)}" for c in collectives if c.graph == last]
        said[rank] = ", ".join(ops) if ops else "no collective"
    if len(set(said.values())) < 2:
        return []
    return [f"the compiled graphs issue {by_ranks(_grouped(dict(said)))}"]


HANG = "under NCCL a hang until the watchdog's timeout"
GLOO = ("on CPU tensors (gloo) the ranks may wait until the process group's timeout or go on, each getting what it "
        "did not ask for; the log does not show which")


def step_text(step: Step | None, ended: str) -> str:
    """``all_reduce_ f32[64]``: a collective as the ranks compare it (its shape, not stride or device)."""
    if step is None:
        return ended
    return f"{step.op} {_STRIDE_DEVICE.sub('', step.tensor)}".strip()


def parting_words(parting: Parting, sequences: dict[int, Sequence[Step]], ended: str) -> tuple[str, str]:
    """Where the ranks' collectives first differ (``collective 2 is … on rank 0 and … on rank 1``), and what that
    means, said as strongly as a log shows it: a hang only where the ranks cannot meet (collectives.parting)."""
    place = f"collective {parting.index + 1}"
    where = place + " is " + by_ranks(_grouped({rank: step_text(step, ended) for rank, step in parting.at.items()}))
    going = {rank: step for rank, step in parting.at.items() if step is not None}
    if parting.cannot_meet:
        first = next(iter(going.values()))
        graph = first.compile_id
        in_graph = 1 + sum(1 for step in next(iter(sequences.values()))[:parting.index] if _graph(step) == _graph(first))
        # NCCL runs only CUDA tensors: on CPU ones (gloo) a finished run is as likely as a hang, so none is claimed
        on_cpu = all(step.tensor.endswith("cpu") for step in going.values())
        outcome = GLOO if on_cpu else HANG
        return where, (f"collective {in_graph} of graph {graph} differs in operation between the ranks; nothing runs "
                       f"between a graph's collectives, so where the ranks run {graph} together these cannot pair — "
                       f"{outcome}")
    for step in going.values():  # a graph that ends early on some ranks: the others go on with its next collective
        on = [rank for rank, other in going.items() if _graph(other) == _graph(step)]
        stopped = [rank for rank in parting.at if rank not in on]
        # every rank on this graph: nothing stopped early here (a damaged merge can put them so)
        if stopped and all(parting.at[rank] is None
                           or _graph(step) in {_graph(s) for s in sequences[rank][:parting.index]} for rank in stopped):
            count = sum(1 for s in sequences[stopped[0]][:parting.index] if _graph(s) == _graph(step))
            graph = f"graph {step.compile_id}" if step.compile_id else "the graph"
            return where, (f"{graph} ends after {count} collective{'s' if count != 1 else ''} on {ranks_text(stopped)} "
                           f"where on {ranks_text(on)} it goes on with {step_text(step, ended)}; a log shows only the "
                           "collectives inside compiled graphs: if the ranks that stop make the missing ones outside "
                           f"them (eagerly), the ranks stay in step; if they never do, the others wait for them")
    steps = list(going.values())
    if len(steps) == len(parting.at) and len({operation(step.op) for step in steps}) == 1:
        if len({step.tensor for step in steps}) > 1:
            return where, "the same operation on tensors of other sizes: what the ranks exchange there does not match"
        return where, "the same operation, in place on some ranks and functional on others: the ranks pair it"
    graphs = ", ".join(sorted({f"{step.compile_id or '?'}" + (f" ({step.frame})" if step.frame else "")
                               for step in steps}))
    return where, (f"the ranks' graphs differ there ({graphs}); a log shows only the collectives inside compiled "
                   "graphs, so whether collectives made outside them (eagerly) bring the ranks back in step is not "
                   "in it")


def _graph(step: Step) -> tuple[str, str]:
    return step.compile_id, step.frame

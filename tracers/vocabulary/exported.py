"""A TORCH_TRACE log's torch.export part in one line, said alike by the summary, the page and the ranks' report."""

from __future__ import annotations

from typing import Any

NOT_ANALYSED = "export's own content is not analysed here (tlparse --export shows it)"


def export_of(from_log: dict[str, Any] | None) -> dict[str, Any] | None:
    """The export part a log's reader counted (torchlogs/export.py), or None."""
    export = (from_log or {}).get("export")
    return export if isinstance(export, dict) else None


def has_problems(export: dict[str, Any] | None) -> bool:
    """Whether the export part holds a problem tlparse --export lists, or an export that made no program (then no
    line may say "No problems found")."""
    return bool(export and (_int(export.get("problem_count")) or _unfinished(export)))


def troubles(export: dict[str, Any] | None) -> list[str]:
    """What a header says of the export part: ``1 export problem``, ``1 export made no program``."""
    if not export:
        return []
    count, unfinished = _int(export.get("problem_count")), _unfinished(export)
    return ([f"{count} export problem{'s' if count != 1 else ''}"] if count else []) + \
        ([f"{unfinished} export{'s' if unfinished != 1 else ''} made no program"] if unfinished else [])


def _unfinished(export: dict[str, Any]) -> int:
    """Exports started (torch logs a start record for each) that logged no exported program: they raised, or were cut."""
    return max(_int(export.get("started")) - _int(export.get("programs")), 0)


def export_line(export: dict[str, Any]) -> str:
    """``This log is from torch.export, not torch.compile: 1 exported program (…); 1 problem torch.export met: …;
    export's own content is not analysed here (…)``; a log with compiles too (analysed as any other) says so."""
    records = export.get("records") if isinstance(export.get("records"), dict) else {}
    held = [_count(_int(export.get("programs")), "exported program")]
    inside = _int(export.get("inside_export"))
    if inside and not _int(export.get("programs")) and not _int(export.get("started")):
        # a non-strict export logs no start and no program: only records its stack shows made inside the call
        held = [f"{_count(inside, 'record')} made inside torch.export's call (a non-strict export logs no exported "
                "program)"]
    started = _int(export.get("started"))
    if started > _int(export.get("programs")):
        held.append(f"{started} export{'s' if started != 1 else ''} started")
    others = [f"{_int(records.get(kind))} {one if _int(records.get(kind)) == 1 else many}"
              for kind, one, many in _RECORDS if _int(records.get(kind))]
    said = ", ".join(held) + (f" ({', '.join(others)})" if others else "")
    count = _int(export.get("problem_count"))
    listed = export.get("problems")  # a trace file read back may hold anything here: only a list of dicts counts
    problems = [_problem(item) for item in listed if isinstance(item, dict)] if isinstance(listed, list) else []
    if count:
        more = f"; {count - len(problems)} more" if count > len(problems) else ""
        said += f"; {_count(count, 'problem')} torch.export met: {'; '.join(problems)}{more}"
    else:
        said += "; none of the problems tlparse --export lists"
    opening = "It also holds torch.export records" if export.get("with_compiles") else \
        "This log is from torch.export, not torch.compile"
    return f"{opening}: {said}; {NOT_ANALYSED}."


def no_problems_in_compiles(headline: str, export: dict[str, Any] | None) -> str:
    """A clean headline narrowed to the compiles where the log's export part has problems."""
    text = headline.lstrip()
    if has_problems(export) and text.startswith("No problems found"):
        return headline[:len(headline) - len(text)] + "No problems found in the compiles" + \
            text.removeprefix("No problems found")
    return headline


_RECORDS = (("guard_added", "guard added", "guards added"),
            ("expression_created", "symbolic expression", "symbolic expressions"),
            ("create_unbacked_symbol", "unbacked symbol", "unbacked symbols"))


def _problem(item: dict[str, Any]) -> str:
    """One problem in tlparse --export's words."""
    kind = str(item.get("kind", "?"))
    if kind == "guard evaluated":
        return f"a guard was evaluated, {item.get('expr')} (it may have caused a constraint violation)"
    if kind == "data-dependent expression":
        return (f"data-dependent {item.get('expr')} could not be decided and was taken as {item.get('result')} "
                "(asserts inserted)")
    if kind == "missing fake kernel":
        return f"torch.ops.{item.get('op')} has no fake kernel"
    if kind == "mismatched fake kernel":
        return f"torch.ops.{item.get('op')}'s fake kernel disagrees with the real one: {item.get('reason')}"
    return kind


def _int(value: object) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0


def _count(n: int, what: str) -> str:
    return f"{n} {what}{'' if n == 1 else 's'}"

"""A matched cause in words: a change said once with both releases' words, a moved line or a spread never as one."""

from __future__ import annotations

from tracers.analysis.findings_diff import KIND_WORDS

from .model import CauseChange

REASONS_SHOWN = 2  # torch's reasons quoted per release; the page's fold has them all


def code_words(code: str) -> str:
    """``counter.py step`` -> ``step (counter.py)``."""
    file, _, function = code.partition(" ")
    return f"`{function}` ({file})" if function else file


def events_words(events: tuple[int, ...]) -> str:
    """``4 in each of 3 runs`` or ``3, 4, 4 in its 3 runs``."""
    if len(set(events)) == 1:
        return f"{events[0]} in {'each of ' if len(events) > 1 else ''}{len(events)} run{'s' if len(events) > 1 else ''}"
    return f"{', '.join(map(str, events))} in its {len(events)} runs"


def _reasons(reasons: tuple[str, ...]) -> str:
    shown = "; ".join(reasons[:REASONS_SHOWN])
    return shown + (f" (and {len(reasons) - REASONS_SHOWN} more)" if len(reasons) > REASONS_SHOWN else "")


def _found(events: tuple[int, ...]) -> str:
    found = sum(1 for count in events if count)
    return f"found in {found} of {len(events)} runs"


def sentence(change: CauseChange, a: str, b: str) -> str:
    """The cause and what became of it, e.g. ``a recompile in `step` (counter.py) changed: under 2.13.0 …``."""
    noun = KIND_WORDS.get(change.kind, change.kind)
    where = f" in {code_words(change.code)}" if change.code else ""
    if change.change == "appeared":
        return (f"{noun}{where} appeared under {b}, at {change.b_line or 'no line'} "
                f"({events_words(change.b_events)}): {_reasons(change.b_reasons)}; none under {a}")
    if change.change == "went away":
        return (f"{noun}{where} went away under {b}; under {a}, at {change.a_line or 'no line'} "
                f"({events_words(change.a_events)}): {_reasons(change.a_reasons)}")
    if change.change == "varies":
        return (f"{noun}{where} is within the run-to-run spread, not a change: {_found(change.a_events)} under {a} "
                f"(events {', '.join(map(str, change.a_events))}), {_found(change.b_events)} under {b} "
                f"(events {', '.join(map(str, change.b_events))})")
    moved = f"; its line moved from {change.a_line} to {change.b_line}, which is no change" if change.moved else ""
    if change.change == "same":
        counts = (f"{change.a_events[0]} event{'s' if change.a_events[0] != 1 else ''} in every run of both"
                  if len(set(change.a_events + change.b_events)) == 1 else
                  f"events {', '.join(map(str, change.a_events))} under {a}, {', '.join(map(str, change.b_events))} "
                  f"under {b}")
        return f"{noun}{where}: the same under both releases ({counts}){moved}"
    return (f"{noun}{where} changed: under {a}, {_at(change.a_line, change.a_events)}: "
            f"{_reasons(change.a_reasons)}; under {b}, {_at(change.b_line, change.b_events)}: "
            f"{_reasons(change.b_reasons)}")


def _at(line: str, events: tuple[int, ...]) -> str:
    # No line: the release's finding grouped this cause with another (a recompile of the code after a break).
    where = f"at {line}" if line else "inside another finding above"
    return f"{where}, {events_words(events)}"


def is_change(change: CauseChange) -> bool:
    return change.change in ("appeared", "went away", "changed")

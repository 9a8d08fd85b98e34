"""A command-line mistake said in one line, with the closest right word: for the commands and for ``%%trace``."""

from __future__ import annotations

import argparse
import difflib
import re


def option_strings(parser: argparse.ArgumentParser) -> list[str]:
    """Every option of ``parser`` and of the subcommands filled in below it (not the hidden ones: never suggested)."""
    found: list[str] = []
    for action in parser._actions:
        if action.help != argparse.SUPPRESS:
            found.extend(flag for flag in action.option_strings if flag.startswith("--"))
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                found.extend(option_strings(sub))
    return found


def unrecognized_line(words: list[str], options: list[str]) -> str | None:
    """"unrecognized option --vs-eagr (did you mean --vs-eager?)" for the first option-like word; None if none is."""
    for word in words:
        if word.startswith("-") and word != "-":
            flag = word.split("=", 1)[0]
            close = difflib.get_close_matches(flag, sorted(set(options)), n=1, cutoff=0.6)
            return f"unrecognized option {flag}" + (f" (did you mean {close[0]}?)" if close else "")
    return None


# argparse's words for a value outside an option's choices (3.11 quotes each choice; 3.12 and later do not)
_INVALID_CHOICE = re.compile(r"argument (?P<argument>[^:]+): invalid choice: (?P<value>.+?) \(choose from (?P<choices>.*)\)$")


def invalid_choice_line(message: str) -> str | None:
    """"invalid COMMAND 'trac' (did you mean trace?); choose from trace, record, …" for argparse's invalid choice."""
    match = _INVALID_CHOICE.match(message)
    if match is None:
        return None
    value = match["value"].strip("'\"")
    choices = [choice.strip().strip("'\"") for choice in match["choices"].split(",")]
    close = difflib.get_close_matches(value, choices, n=1, cutoff=0.6)
    return (f"invalid {match['argument']} {value!r}" + (f" (did you mean {close[0]}?)" if close else "")
            + f"; choose from {', '.join(choices)}")


def mistake_line(parser: argparse.ArgumentParser, message: str) -> str | None:
    """argparse's ``message`` for ``parser`` as one line naming the closest option, command or choice; None where
    argparse's own words are the line (a missing value, a required argument)."""
    prefix = "unrecognized arguments: "
    if message.startswith(prefix):
        return unrecognized_line(message[len(prefix):].split(), option_strings(parser))
    return invalid_choice_line(message)

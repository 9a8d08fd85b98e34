"""Find the excerpts, symbol links and facts that the docs pages use, by reading their MyST text."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from walkthrough.excerpt import ExcerptSpec, parse_spec
from walkthrough.facts import Claim
from walkthrough.symbols import split_name

EXCERPT_DIRECTIVE = "torch-excerpt"
SYMBOL_ROLE = "torch-symbol"
FACT_ROLE = "torch-fact"

_FENCE = re.compile(r"^(?P<indent> {0,3})(?P<fence>`{3,}|~{3,}|:{3,})\{(?P<name>[\w-]+)\}\s*(?P<arg>.*)$")
_PLAIN_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,}|:{3,})")
_ROLE = re.compile(r"\{(?P<role>" + SYMBOL_ROLE + "|" + FACT_ROLE + r")\}`(?P<text>[^`]+)`")
_OPTION = re.compile(r"^:(?P<key>[\w-]+):\s*(?P<value>.*)$")
_TITLED = re.compile(r"^(?P<title>.*?)\s*<(?P<target>[^<>]+)>$")


class PageError(ValueError):
    """A malformed directive or role in a page, with the page and line."""


@dataclass(frozen=True)
class PageRefs:
    page: str  # docname: the path under docs/ without .md
    excerpts: tuple[ExcerptSpec, ...]
    symbols: tuple[str, ...]
    facts: tuple[Claim, ...]


def role_target(text: str) -> tuple[str, str]:
    """``title <target>`` or a bare ``target`` → (title or "", target), as Sphinx roles read them."""
    match = _TITLED.match(text.strip())
    if match:
        return match["title"], match["target"].strip()
    return "", text.strip()


def split_directive_block(lines: list[str]) -> tuple[dict[str, str], list[str]]:
    """MyST's leading ``:key: value`` lines (or a ``---`` YAML-ish block), then the body."""
    options: dict[str, str] = {}
    index = 0
    if lines and lines[0].strip() == "---":
        index = 1
        while index < len(lines) and lines[index].strip() != "---":
            key, sep, value = lines[index].partition(":")
            if sep:
                options[key.strip()] = value.strip()
            index += 1
        index += 1
    else:
        while index < len(lines):
            match = _OPTION.match(lines[index].strip())
            if not match:
                break
            options[match["key"]] = match["value"]
            index += 1
    return options, lines[index:]


def scan_text(page: str, text: str) -> PageRefs:
    """Every walkthrough directive and role in one page's markdown."""
    excerpts: list[ExcerptSpec] = []
    symbols: list[str] = []
    facts: list[Claim] = []
    lines = text.splitlines()
    index = 0
    while index < len(lines):
        line = lines[index]
        match = _FENCE.match(line)
        plain = _PLAIN_FENCE.match(line)
        if match or plain:
            fence = match["fence"] if match else plain.group(1)
            end = index + 1
            while end < len(lines):
                closing = lines[end].strip()
                if closing.startswith(fence) and set(closing) == {fence[0]}:
                    break
                end += 1
            if match and match["name"] == EXCERPT_DIRECTIVE:
                options, body = split_directive_block(lines[index + 1:end])
                try:
                    excerpts.append(parse_spec(match["arg"], options, body))
                except ValueError as exc:
                    raise PageError(f"{page}.md:{index + 1}: {exc}") from None
            index = end + 1  # other fenced blocks are code: roles in them are not roles
            continue
        for role in _ROLE.finditer(line):
            _, target = role_target(role["text"])
            try:
                if role["role"] == SYMBOL_ROLE:
                    split_name(target)
                    symbols.append(target)
                else:
                    facts.append(Claim.parse(target))
            except ValueError as exc:
                raise PageError(f"{page}.md:{index + 1}: {exc}") from None
        index += 1
    return PageRefs(page, tuple(excerpts), tuple(symbols), tuple(facts))


def scan_docs(docs: Path) -> list[PageRefs]:
    """All pages under a docs dir that use the walkthrough, sorted by page name; build output is skipped."""
    found = []
    for path in sorted(docs.rglob("*.md")):
        relative = path.relative_to(docs)
        if any(part.startswith(("_", ".")) for part in relative.parts[:-1]):
            continue  # _build, _traces and hidden dirs hold no pages
        refs = scan_text(relative.with_suffix("").as_posix(), path.read_text(encoding="utf-8"))
        if refs.excerpts or refs.symbols or refs.facts:
            found.append(refs)
    return found

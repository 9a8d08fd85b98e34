"""Kernels tied to user lines from the comments Inductor writes into its output code, where no codegen was seen."""

from __future__ import annotations

import re

from tracers.tracefile.events import Artifact

# The wrapper writes this before each Triton kernel call and each extern call (not before C++ kernel calls),
# naming the nodes of the graph Dynamo built (or, for a backward, of the post-grad graph): torch/_inductor/utils.py
# (get_kernel_metadata).
_SOURCE_NODES = re.compile(r"#\s*(?:Topologically Sorted|Unsorted) Source Nodes: \[")
_CALL = re.compile(r"^\s*(?:[\w, ]+=\s*)?([A-Za-z_][\w.]*?)(?:\.run)?\(")
_DEFINITION = re.compile(r"^(\w+) = async_compile\.\w+\(")  # a Triton kernel's header comments precede it
# What print_readable writes above the nodes that share a stack: ``# File: path:12 in forward, code: ...``.
_FILE = re.compile(r"#\s*File: (?P<file>.+?):(?P<line>\d+) in (?P<function>[^,]+), code: (?P<code>.*)$")
_NODE = re.compile(r'^\s+(\w+)(?::\s*"[^"]*")?\s*=')
GRAPHS = ("dynamo_output_graph", "inductor_post_grad_graph")
_HELPERS = ("get_raw_stream", "empty_strided", "reinterpret_tensor", "assert_", "alloc_from_pool")


def node_lines(graphs: list[Artifact]) -> dict[str, tuple[str, int, str, str]]:
    """Node name -> ``(file, line, function, code)`` of the last ``# File:`` comment above it; the Dynamo graph's
    names first (what the comments name), the post-grad graph's for names only it has."""
    found: dict[str, tuple[str, int, str, str]] = {}
    for name in GRAPHS:
        for artifact in graphs:
            if artifact.name != name or not artifact.payload:
                continue
            current = None
            for text in artifact.payload.splitlines():
                where = _FILE.search(text)
                if where:
                    # The graphs print a path as torch holds it, relative or absolute (then scrubbed to ./...).
                    current = (where["file"].removeprefix("./"), int(where["line"]), where["function"].strip(),
                               where["code"].strip())
                    continue
                node = _NODE.match(text)
                if node and current and node[1] not in found:
                    found[node[1]] = current
    return found


def calls(code: str) -> list[tuple[str, tuple[str, ...], bool]]:
    """``(kernel, source node names, whether it is the kernel's definition)`` for each call or Triton kernel
    definition the output code comments, in order."""
    found = []
    pending: tuple[str, ...] | None = None
    for text in code.splitlines():
        names = _source_nodes(text)
        if names is not None:
            pending = tuple(name.strip() for name in names.split(",") if name.strip())
            continue
        if pending is None or text.strip().startswith("#") or not text.strip():
            continue
        definition = _DEFINITION.match(text)
        if definition:
            found.append((definition[1], pending, True))
            pending = None
            continue
        call = _CALL.match(text)
        if call and call[1].startswith(_HELPERS):  # the stream or buffer a Triton call needs, written between
            continue
        if call:
            found.append((call[1], pending, False))
        pending = None
    return found


def _source_nodes(text: str) -> str | None:
    """The names inside ``# Topologically Sorted Source Nodes: [...]``: the bracket is closed by one find, where a
    pattern's closing search rescanned the rest of the line at every opening (a line of many unclosed ones: quadratic)."""
    if "Source Nodes: [" not in text:
        return None
    opening = _SOURCE_NODES.search(text)
    if opening is None:
        return None
    closing = text.find("]", opening.end())
    return text[opening.end():closing] if closing >= 0 else None

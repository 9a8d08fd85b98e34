"""What to render and where links go: the renderer's inputs besides the trace, as plain dataclasses."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from tracers.vocabulary.releases import REFERENCE_TORCH

# Every part, in the personal page's order: answers first (findings, the compile table), records after.
PARTS = ("findings", "counts", "runtime", "timeline", "tree", "code", "kernels", "artifacts")
# What a chapter's trace shows unless its directive asks for parts ("findings", and "code": compile time by your
# code, asked for where a chapter explains them); the personal page shows every part.
EMBED_PARTS = ("timeline", "tree", "counts", "artifacts")
# Artifact kinds a reader can ask for; the recorder also keeps metrics, frame and error records.
ARTIFACT_KINDS = ("graph", "guards", "break", "recompile", "code", "bytecode", "decompiled", "cache", "shapes", "ir",
                  "autotune", "cudagraphs", "metrics", "debug", "distributed", "error")
DEFAULT_ARTIFACTS = ("graph", "guards", "break", "recompile", "code", "decompiled", "autotune", "cudagraphs")
# A trace's own page also lists each compile's bytecode as torch logged it, its compilation_metrics, its shape records (one list a compile), what torch
# logs for comparing ranks (Inductor's per-op runtime estimates among them), its errors and, read from a TORCH_TRACE
# log, every other record tlparse shows (torch_records.LOG_GRAPHS says which): each folded.
PAGE_ARTIFACTS = DEFAULT_ARTIFACTS + ("bytecode", "metrics", "debug", "shapes", "distributed", "error")


def _no_link(_: str) -> str | None:
    return None


@dataclass(frozen=True)
class Links:
    """Where spans point: the chapter of a stage, torch's source of a target, the trace file itself.

    Callables, so the renderer needs no Sphinx: the docs build resolves chapters among the pages that
    exist and targets in the torch it builds with; the personal page may link to the public site.
    """

    chapter_url: Callable[[str], str | None] = _no_link  # stage id -> URL
    source_url: Callable[[str], str | None] = _no_link  # target name (module:qualname) -> URL
    download_url: str | None = None  # the Perfetto-compatible JSON; None: the caller links it itself
    site_url: str | None = None  # the walkthrough the chapter links go to, which a personal page names ...
    site_note: str = ""  # ... with how it was chosen, or why there are no chapter links; "": say nothing
    page_url: Callable[[str], str | None] = _no_link  # docs path, e.g. chapters/04-guards#the-recompile-limit -> URL


PAGE_PAYLOAD_CHARS = 60_000  # the personal page's share for artifacts (benchmarks/: the page stays within 1 MB)
ARTIFACT_FLOOR_CHARS = 1_500


@dataclass(frozen=True)
class RenderOptions:
    parts: tuple[str, ...] = PARTS
    artifacts: tuple[str, ...] = DEFAULT_ARTIFACTS  # artifact kinds or torch's names
    compile_id: str | None = None  # only this compile's artifacts
    open_stages: frozenset[str] | None = None  # tree nodes of these stages start open; None: top two levels
    caption: str = ""
    title: str = ""  # what was traced, e.g. the example's name
    reference_torch: str = REFERENCE_TORCH
    expected_torch: frozenset[str] = field(default_factory=frozenset)  # other releases this trace may have
    max_payload_chars: int = 20_000  # longer artifacts are cut, with a note: the trace file has them whole
    # All artifacts together (None: no cap): a real model's graphs, guards and code would make a personal page of
    # megabytes; each then gets an equal share, at least ARTIFACT_FLOOR_CHARS.
    max_total_payload_chars: int | None = None


def split_list(text: str) -> tuple[str, ...]:
    """``a, b c`` -> ``("a", "b", "c")``: directive options accept commas and spaces."""
    return tuple(item for item in text.replace(",", " ").split() if item)


def parse_parts(text: str) -> tuple[str, ...]:
    parts = split_list(text)
    unknown = [part for part in parts if part not in PARTS]
    if unknown or not parts:
        raise ValueError(f"unknown part(s) {', '.join(unknown) or '(none given)'}; choose from {', '.join(PARTS)}")
    return parts

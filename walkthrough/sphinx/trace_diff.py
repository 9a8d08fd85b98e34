"""The torch-trace-diff directive, kept thin: two recordings of one example, their stage diff as HTML."""

from __future__ import annotations

from pathlib import Path

from docutils import nodes
from docutils.parsers.rst import directives
from sphinx.application import Sphinx

from tracers.analysis.diff import diff
from tracers.vocabulary.releases import REFERENCE_TORCH
from tracers.report.options import Links
from tracers.report.diff import Side, render_diff, side_names
from tracers.tracefile.names import Recording, TraceName, find_recording, parse_side, recording_pattern
from tracers.tracefile.events import Trace
from walkthrough import __version__
from walkthrough.sphinx.directives import WalkthroughError
from walkthrough.sphinx.traces import RAW_CLASS, TorchTrace

DIFF_DIRECTIVE = "torch-trace-diff"
DEFAULT_SIDES = ("cpu/cold", "cuda/cold")


class TorchTraceDiff(TorchTrace):
    """``{torch-trace-diff} stem``: the stage diff of two recordings of one example.

    :a: DEVICE/CACHE of side A (default cpu/cold)
    :b: DEVICE/CACHE of side B (default cuda/cold)
    :caption: a line under the header
    """

    option_spec = {"a": directives.unchanged_required, "b": directives.unchanged_required,
                   "caption": directives.unchanged}

    def run(self) -> list[nodes.Node]:
        stem = self.arguments[0]
        root = Path(self.env.srcdir, self.config.walkthrough_traces)
        sides = []
        for key, default in zip("ab", DEFAULT_SIDES):
            try:
                device, cache = parse_side(self.options.get(key, default))
            except ValueError as exc:
                raise WalkthroughError(f"{self.where}: :{key}: {exc}") from None
            recording = find_recording(root, TraceName(stem, device, cache), REFERENCE_TORCH)
            if recording is None:
                pattern = recording_pattern(root, TraceName(stem, device, cache))
                raise WalkthroughError(f"{self.where}: no recorded trace of {stem!r} ({device}, {cache}) "
                                       f"for side {key.upper()}: looked for {pattern}")
            sides.append((recording, self._load(recording)))
        (rec_a, trace_a), (rec_b, trace_b) = sides
        names = side_names(trace_a.info, trace_b.info)
        links = Links(chapter_url=self._chapter_url, source_url=self._source_url)
        try:
            html = render_diff(diff(trace_a, trace_b), self._side(rec_a, trace_a, names[0]),
                               self._side(rec_b, trace_b, names[1]), links, title=stem,
                               caption=self.options.get("caption") or "")
        except (TypeError, ValueError, KeyError, AttributeError) as exc:
            raise WalkthroughError(f"{self.where}: {rec_a.path.name} / {rec_b.path.name}: trace file is damaged "
                                   f"({type(exc).__name__}: {exc})") from None
        return [nodes.raw("", html, format="html", classes=[RAW_CLASS])]

    def _side(self, recording: Recording, trace: Trace, name: str) -> Side:
        """The side as shown, warning (as torch-trace does) when its release is neither reference nor declared."""
        version = self.check_release("trace", recording.path.name, recording.device, trace.info.torch_version)
        note = "" if version.is_reference else f"not the reference {REFERENCE_TORCH}"
        return Side(name, trace.info, recording.path.name, note)


def setup(app: Sphinx) -> dict:
    app.setup_extension("walkthrough.sphinx.traces")  # the trace stylesheet, chapter-link resolution, the traces folder
    app.add_directive(DIFF_DIRECTIVE, TorchTraceDiff)
    return {"version": __version__, "parallel_read_safe": True, "parallel_write_safe": True}

"""The Sphinx side of distributed recordings, kept thin: ``{torch-ranks}``, the merged ranks of one run per device."""

from __future__ import annotations

from pathlib import Path

from docutils import nodes
from docutils.parsers.rst import directives
from sphinx.application import Sphinx

from tracers.vocabulary.releases import REFERENCE_TORCH
from tracers.ranks.merge import MergedRun, MergeError, load_merged
from tracers.ranks.page import PageUnavailable, render_ranks
from tracers.ranks.summary import report
from tracers.report.options import Links
from tracers.tracefile.names import CACHE_MODES, DEVICES, Recording, TraceName, find_recording, recording_pattern
from walkthrough import __version__
from walkthrough.sphinx.directives import WalkthroughError
from walkthrough.sphinx.traces import DEVICE_LABELS, RAW_CLASS, TorchTrace, _choice, _tab_set

RANKS_DIRECTIVE = "torch-ranks"
NOT_RECORDED = ("Not recorded yet: the {device} recording of this example needs a machine with two or more "
                "{device} devices (python -m tracers record --device {device_arg} --nproc 2 "
                "docs/examples/distributed/{stem}.py).")


class TorchRanks(TorchTrace):
    """``{torch-ranks} stem``: the merged recording ``<stem>-<device>-<cache>-ranks.json`` of a distributed run:
    divergence, ranks side by side, one timeline with a band per rank, each rank's call tree.

    :cache: cold (default) or warm
    :caption: a line under the block

    CPU and CUDA tabs always; a device with no recording says so in its tab (it is never required).
    """

    option_spec = {"cache": _choice(CACHE_MODES), "caption": directives.unchanged}

    def run(self) -> list[nodes.Node]:
        stem = self.arguments[0]
        cache = self.options.get("cache", "cold")
        root = Path(self.env.srcdir, self.config.walkthrough_traces)
        found = {device: find_recording(root, TraceName(stem, device, cache, merged="ranks"), REFERENCE_TORCH)
                 for device in DEVICES}
        if not any(found.values()):
            looked = recording_pattern(root, TraceName(stem, DEVICES[0], cache, merged="ranks"), DEVICES)
            raise WalkthroughError(f"{self.where}: no merged rank recording of {stem!r} ({cache}): looked for {looked}")
        tabs = []
        for device in DEVICES:
            recording = found[device]
            if recording is None:
                note = NOT_RECORDED.format(device=DEVICE_LABELS[device], device_arg=device, stem=stem)
                tabs.append((Recording(device, "", root), nodes.paragraph("", note, classes=["wt-not-recorded"])))
            else:
                tabs.append((recording, self._ranks_block(recording, self._load_run(recording))))
        return [_tab_set(tabs)]

    def _load_run(self, recording: Recording) -> MergedRun:
        self.env.note_dependency(str(recording.path))
        try:
            return load_merged(recording.path)
        except MergeError as exc:
            raise WalkthroughError(f"{self.where}: {exc}") from None

    def _ranks_block(self, recording: Recording, run: MergedRun) -> nodes.Element:
        for rank, trace in run.present:
            self.check_release("trace", f"{recording.path.name} (rank {rank})", recording.device,
                               trace.info.torch_version)
        links = Links(chapter_url=self._chapter_url, source_url=self._source_url)
        try:
            html = render_ranks(report(run), links)
        except PageUnavailable as exc:
            raise WalkthroughError(f"{self.where}: {exc}") from None
        block = nodes.container(classes=["wt-trace-ranks"])
        if self.options.get("caption"):
            block += nodes.paragraph("", self.options["caption"], classes=["wt-caption"])
        block += nodes.raw("", html, format="html", classes=[RAW_CLASS])
        block += self._download(recording)
        return block


def setup(app: Sphinx) -> dict:
    app.setup_extension("walkthrough.sphinx.traces")  # the trace stylesheet, chapter links, walkthrough_traces
    app.add_directive(RANKS_DIRECTIVE, TorchRanks)
    return {"version": __version__, "parallel_read_safe": True, "parallel_write_safe": True}

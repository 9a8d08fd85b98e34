"""torch-output: a recorded example output (docs/_outputs/<torch>/<example>.json), its console text and tables."""

from __future__ import annotations

from pathlib import Path

from docutils import nodes
from docutils.parsers.rst import directives
from sphinx.application import Sphinx

from tracers.vocabulary.releases import REFERENCE_TORCH
from walkthrough import __version__
from walkthrough.outputs import OutputError, find, load, render
from walkthrough.sphinx.directives import PageDirective, WalkthroughError, release_view


class TorchOutput(PageDirective):
    """``{torch-output} pgo_two_processes``: what the example printed, and the tables it recorded.

    :tables: table names to show, comma-separated (default: none)
    :stdout: yes (default) or no — the command and its printed lines
    :caption: a line under them (the torch release and date of the recording follow it)
    """

    required_arguments = 1
    option_spec = {"tables": directives.unchanged_required, "caption": directives.unchanged,
                   "stdout": lambda argument: directives.choice(argument, ("yes", "no"))}

    def run(self) -> list[nodes.Node]:
        example = self.arguments[0]
        root = Path(self.env.srcdir, self.config.walkthrough_outputs)
        path = find(root, example, (release_view(self.env).release, REFERENCE_TORCH))
        if path is None:
            raise WalkthroughError(f"{self.where}: no recorded output of {example!r}: looked for {root}/<release>/"
                                   f"{example}.json (python -m walkthrough.outputs docs/examples/{example}.py)")
        self.env.note_dependency(str(path))
        try:
            recording = load(path)
        except OutputError as exc:
            raise WalkthroughError(f"{self.where}: {exc}") from None
        self.check_release("output recording", path.name, "cpu", recording.torch_version)
        tables = tuple(name.strip() for name in self.options.get("tables", "").split(",") if name.strip())
        unknown = [name for name in tables if name not in recording.tables]
        if unknown:
            raise WalkthroughError(f"{self.where}: :tables: unknown {', '.join(unknown)}; the recording has "
                                   f"{', '.join(recording.tables) or 'none'}")
        html = render(recording, self.options.get("stdout", "yes") == "yes", tables, self.options.get("caption", ""))
        return [nodes.raw("", html, format="html")]


def setup(app: Sphinx) -> dict:
    app.add_config_value("walkthrough_outputs", "_outputs", "env", [str])
    app.add_directive("torch-output", TorchOutput)
    return {"version": __version__, "parallel_read_safe": True, "parallel_write_safe": True}

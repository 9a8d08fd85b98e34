"""The Sphinx side of the toolbox recording, kept thin: toolbox-table, toolbox-costs and toolbox-output."""

from __future__ import annotations

from pathlib import Path

from docutils import nodes
from docutils.parsers.rst import directives
from sphinx.application import Sphinx

from tracers.vocabulary.releases import REFERENCE_TORCH
from walkthrough import __version__
from walkthrough.sphinx.directives import PageDirective, WalkthroughError

from .recording import Recording, RecordingError, find_recording, load
from .render import render_costs, render_output, render_table

RAW_CLASS = "wt-toolbox-html"


def _ids(text: str | None) -> tuple[str, ...]:
    return tuple(part.strip() for part in (text or "").split(",") if part.strip())


class _ToolboxDirective(PageDirective):
    required_arguments = 1  # the example's stem, e.g. graph_breaks
    has_content = False
    common_options = {"device": lambda argument: directives.choice(argument, ("cpu", "cuda"))}


    def recording(self) -> Recording:
        stem, device = self.arguments[0], self.options.get("device", "cpu")
        root = Path(self.env.srcdir, self.config.walkthrough_toolbox)
        path = find_recording(root, stem, device, REFERENCE_TORCH)
        if path is None:
            raise WalkthroughError(f"{self.where}: no toolbox recording of {stem!r} on {device}: looked for "
                                   f"{root}/<release>/{stem}-{device}.json (python -m walkthrough.toolbox record)")
        self.env.note_dependency(str(path))
        try:
            recording = load(path)
        except RecordingError as error:
            raise WalkthroughError(f"{self.where}: {error}") from None
        # Another release is expected where the site declares it for the device, as for recorded traces.
        self.check_release("toolbox recording", path.name, device, recording.torch_version)
        return recording

    def checked(self, recording: Recording, option: str, known: list[str]) -> tuple[str, ...]:
        chosen = _ids(self.options.get(option))
        unknown = [item for item in chosen if item not in known]
        if unknown:
            raise WalkthroughError(f"{self.where}: :{option}: unknown {', '.join(unknown)}; "
                                   f"the recording has {', '.join(known)}")
        return chosen

    def raw(self, html: str) -> list[nodes.Node]:
        return [nodes.raw("", html, format="html", classes=[RAW_CLASS])]


class ToolboxTable(_ToolboxDirective):
    """``{toolbox-table} graph_breaks``: which facts each tool's output showed.

    :device: cpu (default) or cuda
    :tools: tool ids to show (default: all, the plain run first)
    :features: fact ids to show (default: all)
    :caption: a line above the table
    """

    option_spec = {**_ToolboxDirective.common_options, "tools": directives.unchanged_required,
                   "features": directives.unchanged_required, "caption": directives.unchanged}

    def run(self) -> list[nodes.Node]:
        recording = self.recording()
        tools = self.checked(recording, "tools", [tool.id for tool in recording.tools])
        features = self.checked(recording, "features", [id_ for id_, _ in recording.features])
        return self.raw(render_table(recording, tools, features, self.options.get("caption") or ""))


class ToolboxCosts(_ToolboxDirective):
    """``{toolbox-costs} graph_breaks``: how each tool is run, its time against a plain run, what it writes."""

    option_spec = {**_ToolboxDirective.common_options, "tools": directives.unchanged_required}

    def run(self) -> list[nodes.Node]:
        recording = self.recording()
        return self.raw(render_costs(recording, self.checked(recording, "tools", [t.id for t in recording.tools])))


class ToolboxOutput(_ToolboxDirective):
    """``{toolbox-output} graph_breaks``: one tool's commands and the recorded excerpts of what it showed.

    :tool: the tool's id (required)
    :features: fact ids whose excerpts to show (default: every fact it showed)
    :files: also list the files it wrote
    :caption: the block's title (default: the tool's name)
    """

    option_spec = {**_ToolboxDirective.common_options, "tool": directives.unchanged_required,
                   "features": directives.unchanged_required, "files": directives.flag,
                   "caption": directives.unchanged}

    def run(self) -> list[nodes.Node]:
        recording = self.recording()
        tool_id = self.options.get("tool")
        tool = recording.tool(tool_id) if tool_id else None
        if tool is None:
            raise WalkthroughError(f"{self.where}: :tool: {tool_id or '(missing)'}; the recording has "
                                   f"{', '.join(t.id for t in recording.tools)}")
        features = self.checked(recording, "features", [id_ for id_, _ in recording.features])
        return self.raw(render_output(recording, tool, features, "files" in self.options,
                                      self.options.get("caption") or ""))


def setup(app: Sphinx) -> dict:
    app.setup_extension("walkthrough")  # the static folder and the error type
    app.add_config_value("walkthrough_toolbox", "_toolbox", "env", [str])
    app.add_directive("toolbox-table", ToolboxTable)
    app.add_directive("toolbox-costs", ToolboxCosts)
    app.add_directive("toolbox-output", ToolboxOutput)
    app.add_css_file("toolbox.css")
    return {"version": __version__, "parallel_read_safe": True, "parallel_write_safe": True}

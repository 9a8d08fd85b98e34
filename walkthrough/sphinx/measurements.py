"""The torch-measure directive: a recorded measurement's numbers as a table and its SVG charts, in CPU / CUDA tabs."""

from __future__ import annotations

import os
from pathlib import Path

from docutils import nodes
from docutils.parsers.rst import directives
from sphinx.application import Sphinx

from tracers.vocabulary.releases import REFERENCE_TORCH
from tracers.measure.measurement import MeasureFileError, Measurement, load
from tracers.measure.plots import KINDS
from tracers.measure.table import HEADERS, LEGEND, disagreements, rows
from tracers.tracefile.names import DEVICES, Recording
from tracers.vocabulary.releases import release_key
from walkthrough import __version__
from walkthrough.sphinx.directives import PageDirective, WalkthroughError

MEASURE_DIRECTIVE = "torch-measure"


def find_measurement(root: Path, stem: str, device: str, reference: str) -> Recording | None:
    """``<root>/<device>/<release>/<stem>.json``: the reference release's if there is one, else the newest."""
    device_dir = root / device
    if not device_dir.is_dir():
        return None
    releases = [folder.name for folder in device_dir.iterdir() if (folder / f"{stem}.json").is_file()]
    if not releases:
        return None
    release = reference.split("+", 1)[0]
    release = release if release in releases else max(releases, key=release_key)
    return Recording(device, release, device_dir / release / f"{stem}.json")


def machine_line(measurement: Measurement) -> str:
    """Which machine, torch and settings produced the numbers, in one sentence (plain text)."""
    machine = measurement.machine
    settings = measurement.settings
    if measurement.device == "cuda":
        where = f"CUDA, {machine.get('device_name') or 'a GPU'}"
        extras = [f"CUDA {machine['cuda']}" if machine.get("cuda") else "",
                  f"Triton {machine['triton']}" if machine.get("triton") else ""]
    else:
        where = f"CPU, {machine.get('cpu') or machine.get('device_name') or 'unknown'}"
        threads = settings.threads or machine.get("torch_threads")
        extras = [f"{machine['cpu_count']} cores" if machine.get("cpu_count") else "",
                  (f"{threads} torch thread{'s' if threads != 1 else ''}"
                   + (", set for the runs" if settings.threads else "")) if threads else ""]
    sha = str(machine.get("torch_git_sha") or "")[:12]
    torch = f"torch {machine.get('torch_version', '?')}" + (f" (git {sha})" if sha else "")
    software = ", ".join(filter(None, [torch, *extras, f"Python {machine.get('python', '?')}",
                                       str(machine.get("platform") or "")]))
    load_average = machine.get("load_average")
    busy = (f"; load average {load_average[0]} when it started" if isinstance(load_average, list) and load_average
            else "")
    day = measurement.started[:10]
    return (f"Measured on {where} — {software} — on {day or 'an unknown day'}{busy}. Backend "
            f"{settings.backend}; {settings.repeats} timed samples per point after {settings.warmup} warm-up calls; "
            f"each mode and batch size in a fresh process.")


def table_node(measurement: Measurement) -> nodes.table:
    """The numbers as a docutils table (the writer escapes every cell)."""
    table = nodes.table(classes=["wt-measure-table"])
    group = nodes.tgroup(cols=len(HEADERS))
    table += group
    for _ in HEADERS:
        group += nodes.colspec(colwidth=1)
    head, body = nodes.thead(), nodes.tbody()
    group += head
    group += body
    for container, cells in [(head, [HEADERS]), (body, rows(measurement))]:
        for cell_values in cells:
            row = nodes.row()
            for value in cell_values:
                row += nodes.entry("", nodes.paragraph(text=value))
            container += row
    return table


def failures(measurement: Measurement) -> list[str]:
    """A line per run that did not finish: what the table's gaps mean."""
    return [f"{run.mode}, batch size {run.batch_size}, {run.cache} cache: failed in {run.phase or 'the process'}: "
            f"{run.error}" for run in measurement.runs if not run.ok]


class TorchMeasure(PageDirective):
    """``{torch-measure} stem``: ``<walkthrough_measurements>/<device>/<release>/<stem>.json`` and its charts.

    :device: cpu, cuda or both (default: tabs for whichever measurements exist)
    :plots: chart kinds to show, comma-separated (default: all: steady, speedup, first-call, break-even, memory)
    :caption: a line under the machine line
    """

    required_arguments = 1
    has_content = False
    option_spec = {
        "device": lambda argument: directives.choice(argument, (*DEVICES, "both")),
        "plots": directives.unchanged_required,
        "caption": directives.unchanged,
    }


    def run(self) -> list[nodes.Node]:
        stem = self.arguments[0]
        device = self.options.get("device", "both")
        devices = DEVICES if device == "both" else (device,)
        root = Path(self.env.srcdir, self.config.walkthrough_measurements)
        found = [hit for name in devices if (hit := find_measurement(root, stem, name, REFERENCE_TORCH))]
        if not found:
            pattern = f"{root}/{{{','.join(devices)}}}/<release>/{stem}.json"
            raise WalkthroughError(f"{self.where}: no measurement of {stem!r}: looked for {pattern} "
                                   f"(record one with python -m tracers measure)")
        kinds = self._kinds()
        blocks = [(recording, self._block(recording, kinds)) for recording in found]
        if device != "both":
            return [blocks[0][1]]
        from walkthrough.sphinx.traces import _tab_set

        return [_tab_set(blocks)]

    def _kinds(self) -> tuple[str, ...]:
        asked = [kind.strip() for kind in self.options.get("plots", ",".join(KINDS)).split(",") if kind.strip()]
        unknown = [kind for kind in asked if kind not in KINDS]
        if unknown:
            raise WalkthroughError(f"{self.where}: :plots: unknown kind {unknown[0]!r}; choose from {', '.join(KINDS)}")
        return tuple(asked)

    def _block(self, recording: Recording, kinds: tuple[str, ...]) -> nodes.Element:
        self.env.note_dependency(str(recording.path))
        try:
            measurement = load(recording.path)
        except MeasureFileError as exc:
            raise WalkthroughError(f"{self.where}: {exc}") from None
        self._check_version(recording, measurement)
        block = nodes.container(classes=["wt-measure"])
        block += nodes.paragraph(text=machine_line(measurement), classes=["wt-measure-machine"])
        if self.options.get("caption"):
            block += nodes.paragraph(text=self.options["caption"], classes=["wt-measure-caption"])
        if measurement.status != "complete":
            lines = failures(measurement) or [f"the run was {measurement.status}"]
            note = nodes.paragraph(text=f"This measurement is {measurement.status}: ")
            block += note
            items = nodes.bullet_list()
            for line in lines:
                items += nodes.list_item("", nodes.paragraph(text=line))
            block += items
        block += table_node(measurement)
        block += nodes.paragraph(text=LEGEND, classes=["wt-measure-legend"])
        for said in disagreements(measurement):
            block += nodes.paragraph(text=f"Note: {said}", classes=["wt-measure-note"])
        by_kind = {plot.kind: plot for plot in measurement.plots}
        for kind in kinds:
            plot = by_kind.get(kind)
            if plot is None:
                raise WalkthroughError(f"{self.where}: {recording.path.name} has no {kind!r} chart")
            path = recording.path.parent / plot.file
            if not path.is_file():
                raise WalkthroughError(f"{self.where}: {recording.path.name} names {plot.file}, which is missing")
            self.env.note_dependency(str(path))
            relative = Path(os.path.relpath(path, self.env.srcdir)).as_posix()
            if relative.startswith("../"):
                raise WalkthroughError(f"{self.where}: {path} is outside the docs; walkthrough_measurements must "
                                       "be a folder of the docs")
            # Relative to the source dir ("/..."): Sphinx collects the image and copies it into _images/.
            uri = "/" + relative
            block += nodes.image(uri=uri, alt=plot.title, classes=["wt-measure-plot"])
        block += self._download(recording)
        return block

    def _check_version(self, recording: Recording, measurement: Measurement) -> None:
        self.check_release("measurement", recording.path.name, recording.device,
                           str(measurement.machine.get("torch_version", "")))

    def _download(self, recording: Recording) -> nodes.paragraph:
        reference = self.download(recording.path)
        hint = nodes.inline("", " — every run's numbers, and the machine's facts", classes=["wt-muted"])
        return nodes.paragraph("", "Download ", reference, hint, classes=["wt-measure-download"])


def setup(app: Sphinx) -> dict:
    app.setup_extension("walkthrough.sphinx.traces")  # sphinx-design tabs and walkthrough_trace_versions
    app.add_config_value("walkthrough_measurements", "_measure", "env", [str])
    app.add_directive(MEASURE_DIRECTIVE, TorchMeasure)
    return {"version": __version__, "parallel_read_safe": True, "parallel_write_safe": True}

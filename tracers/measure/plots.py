"""The charts of a measurement (steady state, speedup, first call, break-even, memory), written as SVG beside its JSON."""

from __future__ import annotations

from pathlib import Path

from tracers.tracefile.atomic import write_text_atomic

from .measurement import EAGER, Measurement, Plot, Result
from .svgplot import Chart, Series, render_svg

# One colour per mode on every chart (Okabe-Ito; eager in grey).
MODE_COLORS = {EAGER: "#6b6b6b", "default": "#0072B2", "reduce-overhead": "#D55E00",
               "max-autotune-no-cudagraphs": "#009E73", "max-autotune": "#CC79A7"}
KINDS = ("steady", "speedup", "first-call", "break-even", "memory")


def _color(mode: str) -> str:
    return MODE_COLORS.get(mode, "#000000")


def _by_mode(measurement: Measurement) -> dict[str, list[Result]]:
    grouped: dict[str, list[Result]] = {mode: [] for mode in measurement.settings.modes}
    for result in measurement.results:
        grouped.setdefault(result.mode, []).append(result)
    return grouped


def _subtitle(measurement: Measurement) -> str:
    machine = measurement.machine
    where = machine.get("device_name") or machine.get("cpu") or measurement.device
    return (f"{measurement.example} on {measurement.device.upper()} ({where}), torch {machine.get('torch_version', '?')}, "
            f"backend {measurement.settings.backend}")


def charts(measurement: Measurement) -> dict[str, Chart]:
    """The charts by kind; every number comes from the measurement's results."""
    grouped = _by_mode(measurement)
    batches = tuple(float(b) for b in measurement.settings.batch_sizes)
    compiled = [mode for mode in grouped if mode != EAGER]
    common = dict(x_label="batch size", x_format="number", x_ticks=batches, subtitle=_subtitle(measurement))

    steady = Chart(
        title="Steady-state time per call (median; bars: 25th to 75th percentile)", y_label="time per call",
        y_format="seconds", series=tuple(
            Series(mode, tuple((r.batch_size, r.steady_s) for r in rows if r.steady_s is not None), _color(mode),
                   spread=tuple((r.batch_size, r.p25_s, r.p75_s) for r in rows
                                if r.p25_s is not None and r.p75_s is not None))
            for mode, rows in grouped.items()) + tuple(
            Series(f"eager, timed beside {mode}", tuple((r.batch_size, r.eager_paired_s) for r in grouped[mode]
                                                        if r.eager_paired_s is not None), _color(mode), dashed=True)
            for mode in compiled if any(r.eager_paired_s is not None for r in grouped[mode])), **common)
    speedup = Chart(
        title="Speedup over eager in steady state (timed in alternating blocks)", y_label="eager time / compiled time",
        y_format="ratio",
        reference_y=1.0, reference_label="as fast as eager", series=tuple(
            Series(mode, tuple((r.batch_size, r.speedup) for r in grouped[mode] if r.speedup is not None),
                   _color(mode)) for mode in compiled), **common)

    first = [Series("eager", tuple((r.batch_size, r.first_call_cold_s) for r in grouped.get(EAGER, ())
                                   if r.first_call_cold_s is not None), _color(EAGER))]
    even: list[Series] = []
    never: list[str] = []
    for mode in compiled:
        rows = grouped[mode]
        first.append(Series(f"{mode}, cold cache", tuple((r.batch_size, r.first_call_cold_s) for r in rows
                                                         if r.first_call_cold_s is not None), _color(mode)))
        even.append(Series(f"{mode}, cold cache", tuple((r.batch_size, r.break_even_cold) for r in rows
                                                        if r.break_even_cold is not None), _color(mode)))
        if measurement.settings.warm:
            first.append(Series(f"{mode}, warm cache", tuple((r.batch_size, r.first_call_warm_s) for r in rows
                                                             if r.first_call_warm_s is not None),
                                _color(mode), dashed=True))
            even.append(Series(f"{mode}, warm cache", tuple((r.batch_size, r.break_even_warm) for r in rows
                                                            if r.break_even_warm is not None),
                               _color(mode), dashed=True))
        sizes = [str(r.batch_size) for r in rows if r.pays_off is False]
        if sizes:
            never.append(f"{mode} never catches up at batch size {', '.join(sizes)} (not faster than eager)")
    first_call = Chart(title="Time to the first result: torch.compile(), compiling, the first call",
                       y_label="first result",
                       y_format="seconds", series=tuple(first), **common)
    break_even = Chart(title="Break-even: calls until compiling has paid for itself", y_label="calls",
                       y_format="count", series=tuple(even), notes=tuple(never), **common)

    label = "torch.cuda.max_memory_allocated()" if measurement.device == "cuda" else "peak RSS of the process"
    memory = Chart(title=f"Peak memory ({label})", y_label="peak memory", y_format="bytes", series=tuple(
        Series(mode, tuple((r.batch_size, r.peak_memory_bytes) for r in rows if r.peak_memory_bytes is not None),
               _color(mode)) for mode, rows in grouped.items()), **common)
    return {"steady": steady, "speedup": speedup, "first-call": first_call, "break-even": break_even,
            "memory": memory}


def write_plots(measurement: Measurement, json_path: Path) -> tuple[Plot, ...]:
    """Write ``<stem>-<kind>.svg`` beside the JSON file; returns what was written, in KINDS order."""
    plots = []
    for kind, chart in charts(measurement).items():
        name = f"{json_path.stem}-{kind}.svg"
        write_text_atomic(json_path.with_name(name), render_svg(chart))
        plots.append(Plot(name, kind, chart.title))
    return tuple(plots)

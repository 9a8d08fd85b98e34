"""A small SVG line-chart writer (axes, log or linear scales, labelled ticks, legend); standard library only."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from xml.sax.saxutils import escape, quoteattr

from tracers.vocabulary.durations import duration_s

SCALES = ("auto", "linear", "log")
FORMATS = ("number", "seconds", "bytes", "ratio", "count")
# A scale is made logarithmic when the data's largest value is at least this many times its smallest.
LOG_SPAN = 20.0
# Colour-blind-safe (Okabe-Ito) colours, used in order for series that bring none.
PALETTE = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#000000", "#F0E442")
FONT = "system-ui, -apple-system, 'Segoe UI', Roboto, Helvetica, Arial, sans-serif"
_CHAR_WIDTH = 6.6  # average width of a 12 px character of FONT, to size the legend and margins


@dataclass(frozen=True)
class Series:
    name: str
    points: tuple[tuple[float, float], ...]
    color: str = ""  # empty: the next colour of PALETTE
    dashed: bool = False
    # Optional spread per point, drawn as a vertical bar: (x, low, high), e.g. the 25th..75th percentile.
    spread: tuple[tuple[float, float, float], ...] = ()


@dataclass(frozen=True)
class Chart:
    title: str
    x_label: str
    y_label: str
    series: tuple[Series, ...]
    x_scale: str = "auto"
    y_scale: str = "auto"
    x_format: str = "number"
    y_format: str = "number"
    x_ticks: tuple[float, ...] = ()  # ticks at these values (e.g. the batch sizes measured) instead of computed ones
    reference_y: float | None = None  # a horizontal guide line, e.g. speedup 1.0
    reference_label: str = ""
    subtitle: str = ""
    notes: tuple[str, ...] = field(default=())  # short lines under the plot
    width: int = 680
    height: int = 420


@dataclass(frozen=True)
class _Axis:
    low: float
    high: float
    log: bool
    ticks: tuple[float, ...]
    fmt: str

    def fraction(self, value: float) -> float:
        if self.log:
            return (math.log10(value) - math.log10(self.low)) / (math.log10(self.high) - math.log10(self.low))
        return (value - self.low) / (self.high - self.low)


def format_value(value: float, kind: str = "number") -> str:
    """A tick or table label: ``250 µs``, ``1.5 GB``, ``3.2×``, ``4k``."""
    if not math.isfinite(value):
        return str(value)
    if kind == "seconds":
        return duration_s(value)
    if kind == "bytes":
        for unit, scale in (("GB", 1e9), ("MB", 1e6), ("kB", 1e3), ("B", 1.0)):
            if abs(value) >= scale or unit == "B":
                return f"{_short(value / scale)} {unit}"
    if kind == "ratio":
        return f"{_short(value)}×"
    if kind == "count":
        for unit, scale in (("M", 1e6), ("k", 1e3)):
            if abs(value) >= scale:
                return f"{_short(value / scale)}{unit}"
        return _short(value)
    return _short(value)


def _short(value: float) -> str:
    """Three significant digits at most, no trailing zeros: 0.25, 3.2, 48, 1000."""
    if value == 0:
        return "0"
    if abs(value) >= 100:
        return f"{value:.0f}"
    text = f"{value:.3g}" if abs(value) >= 0.01 else f"{value:.2g}"
    return text


def choose_scale(values: list[float], scale: str) -> bool:
    """True for a log scale: asked for, or ``auto`` and the positive data spans at least LOG_SPAN."""
    if scale not in SCALES:
        raise ValueError(f"unknown scale {scale!r} (expected one of {', '.join(SCALES)})")
    if scale != "auto":
        return scale == "log"
    positive = [v for v in values if v > 0]
    return bool(positive) and len(positive) == len(values) and max(positive) / min(positive) >= LOG_SPAN


def log_ticks(low: float, high: float) -> tuple[float, ...]:
    """Powers of ten covering [low, high]; with 1-2-5 steps between them when the range is two decades or less."""
    first, last = math.floor(math.log10(low) + 1e-9), math.ceil(math.log10(high) - 1e-9)
    if last == first:
        last += 1
    steps = (1, 2, 5) if last - first <= 2 else (1,)
    ticks = [step * 10.0 ** exponent for exponent in range(first, last + 1) for step in steps]
    return tuple(t for t in ticks if 10.0 ** first <= t <= 10.0 ** last)


def linear_ticks(low: float, high: float, count: int = 5) -> tuple[float, ...]:
    """About ``count`` round ticks (1, 2, 2.5 or 5 times a power of ten apart) from below ``low`` to above ``high``."""
    if high <= low:
        high = low + (abs(low) or 1.0)
    raw = (high - low) / max(count - 1, 1)
    magnitude = 10.0 ** math.floor(math.log10(raw))
    step = next(m * magnitude for m in (1, 2, 2.5, 5, 10) if m * magnitude >= raw)
    first, last = math.floor(low / step + 1e-9), math.ceil(high / step - 1e-9)
    return tuple(round(index * step, 12) for index in range(first, last + 1))


def _axis(values: list[float], scale: str, fmt: str, fixed_ticks: tuple[float, ...], zero: bool) -> _Axis:
    log = choose_scale(values, scale)
    if log:
        values = [v for v in values if v > 0]
    low, high = min(values), max(values)
    if log:
        ticks = log_ticks(low, high)
        low, high = min(ticks[0], low), max(ticks[-1], high)
    else:
        if zero:
            low = min(low, 0.0)
        if math.isclose(low, high):
            low, high = low - (abs(low) * 0.5 or 1.0), high + (abs(high) * 0.5 or 1.0)
        ticks = linear_ticks(low, high)
        low, high = min(ticks[0], low), max(ticks[-1], high)
    if fixed_ticks:
        usable = tuple(t for t in fixed_ticks if (t > 0 or not log))
        ticks = usable or ticks
        low, high = min(low, *ticks), max(high, *ticks)
        if log:  # a margin of a fraction of a decade, so the end points do not sit on the frame
            low, high = low / 10 ** 0.15, high * 10 ** 0.15
        else:
            pad = (high - low) * 0.04
            low, high = low - pad, high + pad
    return _Axis(low, high, log, ticks, fmt)


def render_svg(chart: Chart) -> str:
    """The chart as a standalone SVG document (valid XML; every text escaped)."""
    palette = iter(PALETTE)
    series = [s if s.color else Series(s.name, s.points, next(palette), s.dashed, s.spread) for s in chart.series]
    drawable = [s for s in series if s.points]
    xs = [x for s in drawable for x, _ in s.points]
    ys = [y for s in drawable for _, y in s.points] + [v for s in drawable for _, lo, hi in s.spread for v in (lo, hi)]
    if chart.reference_y is not None:
        ys.append(chart.reference_y)

    legend_width = max((len(s.name) for s in series), default=0) * _CHAR_WIDTH + 44 if series else 0
    left, right, top = 74, 16 + legend_width, 52 if chart.subtitle else 40
    bottom = 52 + 16 * len(chart.notes)
    plot_w, plot_h = chart.width - left - right, chart.height - top - bottom
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{chart.width}" height="{chart.height}" '
        f'viewBox="0 0 {chart.width} {chart.height}" role="img" aria-label={quoteattr(chart.title)} '
        f'font-family={quoteattr(FONT)} font-size="12">',
        f"<title>{escape(chart.title)}</title>",
        f'<rect x="0" y="0" width="{chart.width}" height="{chart.height}" fill="#ffffff"/>',
        f'<text x="{left}" y="22" font-size="15" font-weight="600" fill="#222">{escape(chart.title)}</text>',
    ]
    if chart.subtitle:
        out.append(f'<text x="{left}" y="39" fill="#555">{escape(chart.subtitle)}</text>')
    for index, note in enumerate(chart.notes):
        out.append(f'<text x="{left}" y="{chart.height - bottom + 44 + 16 * index}" fill="#555">{escape(note)}</text>')
    if not xs or not ys:
        out.append(f'<text x="{left + plot_w / 2}" y="{top + plot_h / 2}" text-anchor="middle" fill="#555">'
                   "no data</text></svg>")
        return "\n".join(out) + "\n"

    x_axis = _axis(xs, chart.x_scale, chart.x_format, chart.x_ticks, zero=False)
    y_axis = _axis(ys, chart.y_scale, chart.y_format, (), zero=chart.y_format in ("seconds", "bytes", "count"))

    def px(x: float) -> float:
        return round(left + x_axis.fraction(x) * plot_w, 2)

    def py(y: float) -> float:
        return round(top + (1 - y_axis.fraction(y)) * plot_h, 2)

    out.append(f'<rect x="{left}" y="{top}" width="{plot_w}" height="{plot_h}" fill="none" stroke="#999"/>')
    out.append('<g stroke="#e5e5e5">')
    for tick in y_axis.ticks:
        out.append(f'<line x1="{left}" x2="{left + plot_w}" y1="{py(tick)}" y2="{py(tick)}"/>')
    for tick in x_axis.ticks:
        out.append(f'<line x1="{px(tick)}" x2="{px(tick)}" y1="{top}" y2="{top + plot_h}"/>')
    out.append("</g>")
    out.append('<g fill="#333">')
    for tick in y_axis.ticks:
        out.append(f'<text x="{left - 6}" y="{py(tick) + 4}" text-anchor="end">'
                   f"{escape(format_value(tick, y_axis.fmt))}</text>")
    for tick in x_axis.ticks:
        out.append(f'<text x="{px(tick)}" y="{top + plot_h + 16}" text-anchor="middle">'
                   f"{escape(format_value(tick, x_axis.fmt))}</text>")
    out.append("</g>")
    scale_note = {True: " (log scale)", False: ""}
    out.append(f'<text x="{left + plot_w / 2}" y="{top + plot_h + 36}" text-anchor="middle" fill="#222">'
               f"{escape(chart.x_label + scale_note[x_axis.log])}</text>")
    out.append(f'<text transform="translate(16 {top + plot_h / 2}) rotate(-90)" text-anchor="middle" fill="#222">'
               f"{escape(chart.y_label + scale_note[y_axis.log])}</text>")
    if chart.reference_y is not None and (chart.reference_y > 0 or not y_axis.log):
        y = py(chart.reference_y)
        out.append(f'<line x1="{left}" x2="{left + plot_w}" y1="{y}" y2="{y}" stroke="#666" stroke-dasharray="2 3"/>')
        if chart.reference_label:
            out.append(f'<text x="{left + plot_w - 4}" y="{y - 4}" text-anchor="end" fill="#666">'
                       f"{escape(chart.reference_label)}</text>")
    for item in drawable:
        out.extend(_series(item, px, py, x_axis, y_axis))
    for index, item in enumerate(series):
        y = top + 8 + 18 * index
        x = left + plot_w + 14
        dash = ' stroke-dasharray="6 4"' if item.dashed else ""
        out.append(f'<line x1="{x}" x2="{x + 22}" y1="{y}" y2="{y}" stroke={quoteattr(item.color)} '
                   f'stroke-width="2"{dash}/>')
        out.append(f'<circle cx="{x + 11}" cy="{y}" r="3" fill={quoteattr(item.color)}/>')
        label = item.name if item.points else f"{item.name} (no data)"
        out.append(f'<text x="{x + 28}" y="{y + 4}" fill="#222">{escape(label)}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def _series(item: Series, px, py, x_axis: _Axis, y_axis: _Axis) -> list[str]:  # noqa: ANN001 - the two mappings
    def visible(x: float, y: float) -> bool:
        return math.isfinite(x) and math.isfinite(y) and (x > 0 or not x_axis.log) and (y > 0 or not y_axis.log)

    points = sorted((x, y) for x, y in item.points if visible(x, y))
    color = quoteattr(item.color)
    out = ["<g>"]
    for x, low, high in item.spread:
        if visible(x, low) and visible(x, high):
            out.append(f'<line x1="{px(x)}" x2="{px(x)}" y1="{py(low)}" y2="{py(high)}" stroke={color} '
                       f'stroke-width="1" opacity="0.6"/>')
    if len(points) > 1:
        dash = ' stroke-dasharray="6 4"' if item.dashed else ""
        coords = " ".join(f"{px(x)},{py(y)}" for x, y in points)
        out.append(f'<polyline points="{coords}" fill="none" stroke={color} stroke-width="2"{dash}/>')
    for x, y in points:
        tip = f"{item.name}: {format_value(x, x_axis.fmt)} → {format_value(y, y_axis.fmt)}"
        out.append(f'<circle cx="{px(x)}" cy="{py(y)}" r="3.5" fill={color}><title>{escape(tip)}</title></circle>')
    out.append("</g>")
    return out

"""The SVG chart writer: well-formed XML, log scales where data spans decades, labelled ticks, legend, escaping."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from tracers.measure.svgplot import Chart, Series, choose_scale, format_value, linear_ticks, log_ticks, render_svg

pytestmark = pytest.mark.pure

SVG = "{http://www.w3.org/2000/svg}"


def _parse(svg: str) -> ET.Element:
    root = ET.fromstring(svg)  # raises on anything that is not well-formed XML
    assert root.tag == f"{SVG}svg"
    return root


def _texts(root: ET.Element) -> list[str]:
    return ["".join(element.itertext()) for element in root.iter(f"{SVG}text")]


def _chart(**changes) -> Chart:
    values = dict(
        title="Time per call", x_label="batch size", y_label="time", y_format="seconds", x_ticks=(1.0, 64.0, 4096.0),
        series=(Series("eager", ((1, 2e-4), (64, 1e-3), (4096, 0.25)), spread=((64, 9e-4, 1.2e-3),)),
                Series("compiled", ((1, 1.2e-4), (64, 4e-4), (4096, 0.03)), dashed=True)),
    )
    values.update(changes)
    return Chart(**values)


def test_a_chart_over_decades_gets_log_axes_with_unit_labels():
    root = _parse(render_svg(_chart()))
    texts = _texts(root)
    assert "batch size (log scale)" in texts and "time (log scale)" in texts
    assert {"100 µs", "1 ms", "10 ms", "100 ms"} <= set(texts)  # decades of the y axis, in time units
    assert {"1", "64", "4096"} <= set(texts)  # the x ticks asked for: the batch sizes
    assert texts[0] == "Time per call"
    legend = [t for t in texts if t in ("eager", "compiled")]
    assert legend == ["eager", "compiled"]
    lines = root.findall(f".//{SVG}polyline")
    assert len(lines) == 2 and lines[1].get("stroke-dasharray") and not lines[0].get("stroke-dasharray")
    # One marker per point, each with its value as a tooltip.
    tips = ["".join(t.itertext()) for t in root.iter(f"{SVG}title")]
    assert "eager: 4096 → 250 ms" in tips


def test_a_narrow_range_stays_linear_and_a_reference_line_is_labelled():
    chart = _chart(title="Speedup", y_format="ratio", reference_y=1.0, reference_label="as fast as eager",
                   series=(Series("default", ((1, 1.4), (64, 2.5), (4096, 7.5))),))
    texts = _texts(_parse(render_svg(chart)))
    assert "time" in texts and "time (log scale)" not in texts
    assert {"0×", "2×", "4×", "6×", "8×"} <= set(texts)
    assert "as fast as eager" in texts


def test_labels_are_escaped():
    name = 'a <b> & "c"'
    chart = _chart(title=f"title {name}", subtitle=f"sub {name}", x_label=f"x {name}", y_label=name,
                   notes=(f"note {name}",), series=(Series(name, ((1, 1.0), (10, 2.0))),))
    svg = render_svg(chart)
    assert "<b>" not in svg
    texts = _texts(_parse(svg))
    for expected in (f"title {name}", f"sub {name}", f"note {name}", name):
        assert expected in texts
    assert _parse(svg).get("aria-label") == f"title {name}"


def test_empty_series_still_give_a_valid_chart_that_says_so():
    root = _parse(render_svg(_chart(series=(Series("eager", ()),))))
    assert "no data" in _texts(root)
    with_one = _parse(render_svg(_chart(series=(Series("eager", ()), Series("default", ((4, 1e-3),))))))
    assert "eager (no data)" in _texts(with_one)


def test_non_positive_points_are_left_out_of_a_log_axis():
    chart = _chart(y_scale="log", series=(Series("s", ((1, 0.0), (10, 1e-3), (100, 1.0))),))
    root = _parse(render_svg(chart))
    assert len(root.findall(f".//{SVG}circle")) == 2 + 1  # two points, one legend marker


def test_scale_choice_and_ticks():
    assert choose_scale([1, 4096], "auto") and not choose_scale([1, 5], "auto")
    assert not choose_scale([0, 1000], "auto")  # zero has no logarithm
    assert choose_scale([1, 2], "log") and not choose_scale([1, 1e6], "linear")
    with pytest.raises(ValueError, match="unknown scale"):
        choose_scale([1], "cubic")
    assert log_ticks(3e-4, 0.2) == (1e-4, 1e-3, 1e-2, 0.1, 1.0)
    assert log_ticks(2, 30) == (1, 2, 5, 10, 20, 50, 100)
    assert linear_ticks(0, 452) == (0, 200, 400, 600)
    assert linear_ticks(0.9, 7.5) == (0, 2, 4, 6, 8)


@pytest.mark.parametrize(("value", "kind", "text"), [
    (2.5e-4, "seconds", "250 µs"), (1.5, "seconds", "1.5 s"), (3e-9, "seconds", "3 ns"),
    (4.2e8, "bytes", "420 MB"), (512, "bytes", "512 B"), (7.47, "ratio", "7.47×"),
    (260134, "count", "260k"), (95, "count", "95"), (4096, "number", "4096"), (0, "number", "0"),
])
def test_format_value(value, kind, text):
    assert format_value(value, kind) == text

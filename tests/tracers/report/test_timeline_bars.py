"""The timeline's bars built in Python (timeline._bars_svg) are byte for byte what its template's loop drew."""

from __future__ import annotations

import pytest

from tracers.report import templating
from tracers.report.timeline import Bar, _bars_svg

pytestmark = pytest.mark.pure

# templates/timeline.html's loop over the bars, as it was (the oracle)
LOOP = '''{% for bar in view.bars %}
      {% if bar.chapter %}<a href="{{ bar.chapter }}">{% endif %}<rect class="{{ bar.classes }}" data-span="{{ bar.span }}" x="{{ bar.x }}" y="{{ bar.y }}" width="{{ bar.width }}" height="{{ view.row }}" fill="{{ bar.colour }}"><title>{{ bar.title }}</title></rect>{% if bar.chapter %}</a>{% endif %}
    {% endfor %}'''

HOSTILE = "<script>alert('x')</script> & \"quoted\""


class _View:
    def __init__(self, bars: list[Bar]) -> None:
        self.bars, self.row = bars, 12


def test_the_same_bytes_as_the_template_loop() -> None:
    bars = [Bar(1, "0.00", 0, "12.50", "wt-bar", "#4c78a8", "dynamo_timed:dynamo\nstage: frame", None),
            Bar(2, "1.25", 14, "0.60", "wt-bar wt-bar-error", "#f58518", HOSTILE, "../chapters/04-guards.html#a&b"),
            Bar(3, "2.00", 28, "3.00", HOSTILE, HOSTILE, HOSTILE, HOSTILE)]
    template = templating.environment().from_string(templating._LAYOUT.sub("", LOOP))
    for drawn in ([], bars[:1], bars):
        assert _bars_svg(drawn, 12) == template.render(view=_View(drawn))
    assert "<script>" not in _bars_svg(bars, 12)

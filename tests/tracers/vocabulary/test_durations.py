"""One way to write a duration: the unit that puts it in 1-999, three significant figures."""

from __future__ import annotations

import pytest

from tracers.vocabulary.durations import duration, duration_s

pytestmark = pytest.mark.pure


@pytest.mark.parametrize(("ns", "text"), [
    (1_750_000_000, "1.75 s"), (2_500_000_000, "2.5 s"), (1_234_000_000_000, "1234 s"),
    (245_700_000, "246 ms"), (12_300_000, "12.3 ms"), (450_000, "450 µs"), (38_000, "38 µs"), (5_100, "5.1 µs"),
    (850, "850 ns"), (0, "0 ns"), (-5_000_000, "-5 ms"),
    (999_700_000, "1 s"), (999_700, "1 ms"), (99_950, "100 µs"),  # rounding up moves to the next unit or figure
])
def test_a_duration_in_nanoseconds(ns, text):
    assert duration(ns) == text


def test_a_duration_in_seconds_reads_the_same():
    assert duration_s(0.35) == "350 ms" == duration(350_000_000)
    assert duration_s(1.5) == "1.5 s" and duration_s(2.5e-4) == "250 µs" and duration_s(3e-9) == "3 ns"

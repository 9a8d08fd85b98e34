"""The measurement file: derived numbers (speedup, one-time cost, break-even), JSON schema and round trip, table, charts."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from dataclasses import replace

import pytest

from tracers.measure.measurement import (
    FORMAT,
    MeasureFileError,
    Measurement,
    Run,
    Settings,
    Samples,
    break_even,
    first_result,
    load,
    one_time_cost,
    summarize,
    to_json,
    write_atomic,
)
from tracers.measure.plots import KINDS, charts, write_plots
from tracers.measure.runs import plan
from tracers.measure.table import HEADERS, render_text, rows

pytestmark = pytest.mark.pure

SETTINGS = Settings(backend="inductor", modes=("eager", "default"), batch_sizes=(1, 64), repeats=3, warmup=2,
                    warm=True)


def timing(median: float) -> Samples:
    return Samples(median, median * 0.9, median * 1.1, median * 0.8, 10, (median * 0.8, median, median * 1.1))


def runs() -> list[Run]:
    """Eager and default at two batch sizes; at 64 compiled is slower than eager, so it never pays off."""
    return [
        Run("eager", 1, "cold", first_call_s=0.002, warmup_s=(0.0002, 0.0002), steady=timing(0.0002),
            graphs=0, memory_kind="peak RSS", peak_memory_bytes=300_000_000, baseline_memory_bytes=250_000_000),
        Run("default", 1, "cold", first_call_s=10.0, warmup_s=(0.0001, 0.0001), steady=timing(0.0001), graphs=1,
            memory_kind="peak RSS", peak_memory_bytes=400_000_000),
        Run("default", 1, "fill", first_call_s=10.5, graphs=1),
        Run("default", 1, "warm", first_call_s=2.0, warmup_s=(0.0001, 0.0001), graphs=1),
        Run("eager", 64, "cold", first_call_s=0.01, warmup_s=(0.001, 0.001), steady=timing(0.001), graphs=0),
        Run("default", 64, "cold", first_call_s=12.0, warmup_s=(0.002, 0.002), steady=timing(0.002), graphs=1),
        Run("default", 64, "fill", error="RuntimeError: boom", phase="first call"),
    ]


def measurement(**changes) -> Measurement:
    found = runs()
    values = dict(example="mlp", script="docs/examples/mlp.py", device="cpu",
                  machine={"torch_version": "2.13.0+cpu", "cpu": "Some CPU", "cpu_count": 2, "python": "3.11.7"},
                  settings=SETTINGS, runs=tuple(found), results=summarize(found, SETTINGS.modes, SETTINGS.batch_sizes),
                  status="partial", command=("python", "-m", "tracers", "measure", "mlp.py"),
                  started="2026-01-01T00:00:00+00:00", seconds=42.0)
    values.update(changes)
    return Measurement(**values)


def test_one_time_cost_and_break_even():
    run = Run("default", 1, "cold", first_call_s=10.0, warmup_s=(0.5, 0.1))
    assert one_time_cost(run, 0.1) == pytest.approx(10.0 + 0.6 - 3 * 0.1)
    assert one_time_cost(Run("default", 1, "cold"), 0.1) is None
    wrapped = replace(run, wrap_s=2.0)  # torch.compile() itself is paid once too
    assert one_time_cost(wrapped, 0.1) == pytest.approx(one_time_cost(run, 0.1) + 2.0)
    assert first_result(wrapped) == 12.0 and first_result(run) == 10.0
    assert break_even(10.0, eager_s=2e-4, compiled_s=1e-4) == 100_000
    assert break_even(-1.0, eager_s=2e-4, compiled_s=1e-4) == 1  # cheaper from the start: pays off at once
    assert break_even(10.0, eager_s=1e-4, compiled_s=1e-4) is None  # no gain: never


def test_summarize_derives_speedup_and_break_even_against_eager():
    results = {(r.mode, r.batch_size): r for r in summarize(runs(), SETTINGS.modes, SETTINGS.batch_sizes)}
    assert list(results) == [("eager", 1), ("default", 1), ("eager", 64), ("default", 64)]
    eager, fast = results[("eager", 1)], results[("default", 1)]
    assert eager.speedup == pytest.approx(1.0) and eager.break_even_cold is None and eager.pays_off is None
    assert fast.speedup == pytest.approx(2.0) and fast.pays_off is True
    eager_extra = 0.002 + 0.0004 - 3 * 0.0002
    assert fast.one_time_cold_s == pytest.approx(10.0 + 0.0002 - 3 * 0.0001 - eager_extra)
    assert fast.break_even_cold == pytest.approx(fast.one_time_cold_s / 0.0001, rel=1e-3)
    assert fast.first_call_warm_s == 2.0 and fast.break_even_warm < fast.break_even_cold
    assert (fast.p25_s, fast.p75_s) == pytest.approx((0.00009, 0.00011))
    slow = results[("default", 64)]
    assert slow.speedup == pytest.approx(0.5) and slow.pays_off is False
    assert slow.break_even_cold is None and slow.first_call_warm_s is None  # its fill run failed: no warm run


def test_eager_timed_beside_the_compiled_mode_is_what_the_speedup_compares_with():
    found = runs()
    found[1] = replace(found[1], eager_steady=timing(0.0003))  # the machine was busier while default was timed
    fast = summarize(found, SETTINGS.modes, SETTINGS.batch_sizes)[1]
    assert fast.eager_paired_s == 0.0003 and fast.speedup == pytest.approx(3.0)
    assert fast.break_even_cold == pytest.approx(fast.one_time_cold_s / 0.0002, rel=1e-3)
    steady = {s.name: s for s in charts(measurement(runs=tuple(found), results=(fast,))).get("steady").series}
    assert steady["eager, timed beside default"].points == ((1, 0.0003),)
    assert steady["eager, timed beside default"].dashed


def test_a_failed_cold_run_leaves_a_row_with_what_it_measured():
    found = [Run("eager", 1, "cold", first_call_s=0.1, steady=timing(0.01)),
             Run("default", 1, "cold", first_call_s=3.0, error="Boom", phase="steady state")]
    eager, failed = summarize(found, ("eager", "default"), (1,))
    assert eager.steady_s == 0.01
    assert failed.first_call_cold_s == 3.0 and failed.steady_s is None and failed.speedup is None


def test_json_round_trip(tmp_path):
    original = measurement()
    path = tmp_path / "cpu" / "2.13.0" / "mlp.json"
    write_atomic(original, path)
    assert [p.name for p in path.parent.iterdir()] == ["mlp.json"]  # no temporary left behind
    assert path.stat().st_mode & 0o777 == 0o644  # readable by others, like the charts beside it
    data = json.loads(path.read_text())
    assert data["format"] == FORMAT and data["runs"][1]["steady"]["calls_per_sample"] == 10
    assert load(path) == original


@pytest.mark.parametrize(("damage", "message"), [
    (lambda d: d.update(format="other/1"), "format is 'other/1'"),
    (lambda d: d["runs"][0].update(surprise=1), "Run has no field"),
    (lambda d: d["runs"][0].update(batch_size="one"), "Run.batch_size is 'one'"),
    (lambda d: d["runs"][0].update(batch_size=True), "Run.batch_size is True"),
    (lambda d: d["results"][0].update(speedup="fast"), "Result.speedup is 'fast'"),
    (lambda d: d["runs"][1]["steady"].update(samples_s=["x"]), "Samples.samples_s"),
    (lambda d: d.update(status="done"), "status 'done'"),
    (lambda d: d.pop("settings"), "KeyError"),
])
def test_damaged_files_give_one_line(tmp_path, damage, message):
    data = json.loads(to_json(measurement()))
    damage(data)
    path = tmp_path / "m.json"
    path.write_text(json.dumps(data))
    with pytest.raises(MeasureFileError, match="not a measurement file|format is") as error:
        load(path)
    assert message in str(error.value) and "\n" not in str(error.value)


def test_unreadable_files(tmp_path):
    with pytest.raises(MeasureFileError, match="cannot read it"):
        load(tmp_path / "missing.json")
    (tmp_path / "bad.json").write_text("{not json")
    with pytest.raises(MeasureFileError, match="not a JSON file"):
        load(tmp_path / "bad.json")


def test_plan_runs_eager_once_and_compiled_modes_cold_fill_warm():
    planned = [(p.mode, p.batch_size, p.cache) for p in plan(SETTINGS)]
    assert planned == [("eager", 1, "cold"), ("default", 1, "cold"), ("default", 1, "fill"), ("default", 1, "warm"),
                       ("eager", 64, "cold"), ("default", 64, "cold"), ("default", 64, "fill"),
                       ("default", 64, "warm")]
    assert len(plan(replace(SETTINGS, warm=False))) == 4


def test_table_rows_say_never_and_leave_gaps_for_missing_numbers():
    table = rows(measurement())
    assert len(table) == 4 and all(len(row) == len(HEADERS) for row in table)
    eager, fast, _, slow = table
    assert eager[:5] == ("1", "eager", "200 µs (180 µs–220 µs)", "–", "1×")
    assert fast[4] == "2.00×" and fast[6] == "2 s" and fast[7].replace(",", "").isdigit()
    assert slow[7] == slow[8] == "never" and slow[6] == "–"
    text = render_text(measurement())
    assert text.splitlines()[0].startswith("batch  mode") and "never" in text


def test_charts_cover_every_kind_and_take_their_numbers_from_the_results(tmp_path):
    found = charts(measurement())
    assert tuple(found) == KINDS
    steady = {s.name: s.points for s in found["steady"].series}
    assert steady == {"eager": ((1, 0.0002), (64, 0.001)), "default": ((1, 0.0001), (64, 0.002))}
    first = {s.name: s for s in found["first-call"].series}
    assert first["default, warm cache"].dashed and first["default, warm cache"].points == ((1, 2.0),)
    assert found["break-even"].notes == ("default never catches up at batch size 64 (not faster than eager)",)
    assert found["speedup"].reference_y == 1.0
    path = tmp_path / "mlp.json"
    plots = write_plots(measurement(), path)
    assert [plot.kind for plot in plots] == list(KINDS)
    for plot in plots:
        ET.parse(tmp_path / plot.file)  # well-formed
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(plot.file for plot in plots)



def test_the_eager_time_the_speedup_uses_has_its_column_and_a_far_off_eager_process_is_said():
    found = runs()
    found[0] = replace(found[0], steady=timing(0.092))  # eager's own process: 92 ms a call
    found[1] = replace(found[1], eager_steady=timing(0.0047))  # eager beside default: 4.7 ms
    taken = measurement(runs=tuple(found), results=summarize(found, SETTINGS.modes, SETTINGS.batch_sizes))
    row = dict(zip(HEADERS, rows(taken)[1]))
    assert (row["mode"], row["eager beside it"], row["speedup"]) == ("default", "4.7 ms", "47.00×")
    text = render_text(taken)
    assert "note: batch 1: eager took 92 ms a call in its own process and 4.7 ms beside default, 20× apart" in text
    assert "note:" not in render_text(measurement())  # eager alike in both: nothing said

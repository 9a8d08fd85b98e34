"""--vs-eager and --profile on real small programs: calls counted as the script made them, matched with a fresh
compile-off run, the slower-than-eager finding when the numbers say so, kernel time tied to the user's line, and the
script's own output and exit status unchanged. No timing is asserted: only structure, counts, and that what is said
matches what was recorded."""

from __future__ import annotations

import runpy

import pytest
import torch

import tracers
from tracers.analysis.findings import findings
from tracers.analysis.speed import speed_of, steady_indices
from tracers.analysis.speed_findings import NOISE, SLOWER
from tracers.terminal.style import Style
from tracers.terminal.summary import render
from tracers.tracefile.events import Trace
from tracers.tracefile.speed import WARMUP_CALLS, SpeedRecord, TimedFunction, TimedRun
from tracers.vocabulary.durations import duration

from tests.conftest import ROOT, SCRIPTS, run_python, run_trace

pytestmark = pytest.mark.torch

TINY = SCRIPTS / "tiny_calls.py"
CALLS, MODULE_CALLS = 2000, 200  # tiny_calls.py's loop: the helper each step, the module every tenth


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    """The script plain, then traced with both options (aot_eager: no Inductor compile needed here)."""
    plain = run_python([str(TINY)])
    traced = run_trace(TINY, tmp_path_factory.mktemp("tiny"), "--vs-eager", "--profile", "--no-page")
    return plain, traced


def test_the_scripts_output_and_exit_status_are_unchanged(tiny):
    plain, traced = tiny
    assert plain.returncode == traced.returncode == 3
    assert traced.stdout == plain.stdout and plain.stdout.startswith("total ")


def test_calls_are_counted_as_the_script_made_them_in_both_runs(tiny):
    record = SpeedRecord.from_json(tiny[1].trace().info.runtime)
    assert record is not None and record.eager is not None and record.eager.status == "exit"
    for run in (record.compiled, record.eager):
        assert [(f.name, f.calls, f.order) for f in run.functions] == [("scale_shift", CALLS, 0),
                                                                       ("Affine", MODULE_CALLS, 0)]
        assert [f.site.rsplit(":", 1)[0].endswith("tiny_calls.py") for f in run.functions] == [True, True]
    compiled = record.compiled.functions
    # The helper's site is its torch.compile line; module.compile()'s is the user's line, not torch's.
    source = TINY.read_text().splitlines()
    assert source[int(compiled[0].site.rsplit(":", 1)[1]) - 1].startswith("fast = torch.compile(")
    assert source[int(compiled[1].site.rsplit(":", 1)[1]) - 1] == 'module.compile(backend="aot_eager")'
    assert [f.compiling for f in compiled] == [(0,), (0,)]  # only the first call compiled
    assert all(f.compile_ids for f in compiled)
    assert [f.compiling for f in record.eager.functions] == [(), ()]  # compile off: nothing compiled
    assert len(compiled[0].profiled) >= 10  # the profiler's window, left out of both runs' timings


def test_steady_state_leaves_out_the_compiling_warm_up_and_profiled_calls(tiny):
    record = SpeedRecord.from_json(tiny[1].trace().info.runtime)
    compiled, eager = record.compiled.functions[0], record.eager.functions[0]
    steady = steady_indices(compiled, eager)
    assert not set(steady) & set(range(1 + WARMUP_CALLS)) and not set(steady) & set(compiled.profiled)
    assert len(steady) == CALLS - 1 - WARMUP_CALLS - len(set(compiled.profiled) - set(range(1 + WARMUP_CALLS)))
    speed = speed_of(tiny[1].trace()).functions[0]
    assert speed.steady_calls == len(steady) and speed.compiling_calls == 1


def test_the_slower_than_eager_finding_says_what_was_measured(tiny):
    trace = tiny[1].trace()
    speed = speed_of(trace).functions[0]
    slower = [f for f in findings(trace) if f.kind == "slower-than-eager" and "`scale_shift`" in f.what]
    # 8-element tensors, aot_eager: the same aten ops plus guards and wrappers, so the numbers say slower by far.
    assert speed.compiled_ns > speed.eager_ns * SLOWER
    assert len(slower) == 1
    finding = slower[0]
    # The headline is the step (one call's start to the next's): what the finding says is what it measured.
    step = speed.headline
    assert step is speed.step and speed.per == "step" and speed.verdict == "slower"
    assert f"{duration(step.compiled_ns)} vs {duration(step.eager_ns)} per step" in finding.what
    assert f"{step.compiled_ns / step.eager_ns:.1f}× slower" in finding.what
    assert f"over {step.steady} steady steps" in finding.what and f"speedups {step.spread_text}" in finding.what
    assert f"forward {duration(speed.compiled_ns)} vs {duration(speed.eager_ns)}" in finding.what
    assert step.compared.high < 1  # every round slower: only then is the verdict said
    assert "per-call overhead on tiny inputs" in finding.fix
    assert finding.user_line is not None and finding.user_line.path.endswith("tiny_calls.py")
    assert speed.payback_calls is None and speed.pays_back is False  # slower: never repaid
    summary = render(trace, tiny[1].facts(), Style(False))
    assert "Speed by your code" in summary and "scale_shift (tiny_calls.py:" in summary


def test_findings_follow_the_numbers():
    """The rule, on recorded numbers: slower by more than SLOWER is a finding; faster but not repaid is the other."""
    def trace_with(compiled_ns: int, eager_ns: int, calls: int) -> Trace:
        timed = lambda per_call_ns, compiling: TimedFunction(  # noqa: E731
            "job.py:3", 0, "step", (10**9,) * bool(compiling) + (per_call_ns,) * (calls - bool(compiling)),
            compiling=(0,) if compiling else (), compile_ids=("0/0",) if compiling else ())
        record = SpeedRecord(TimedRun("compiled", (timed(compiled_ns, True),)),
                               TimedRun("eager", (timed(eager_ns, False),)))
        loaded = Trace.__new__(Trace)
        info = type("Info", (), {"runtime": record.as_json()})()
        loaded.info, loaded.artifacts, loaded.spans = info, [], []
        return loaded

    from tracers.analysis.speed_findings import speed_findings

    [clear] = speed_findings(trace_with(20_000, 5_000, 100))
    assert clear.kind == "slower-than-eager" and "trace again" not in clear.advice  # 4x: beyond any process's noise
    [small] = speed_findings(trace_with(6_000, 5_000, 100))  # 1.2x: two processes can differ by more
    assert small.kind == "slower-than-eager" and f"differed by up to {NOISE:g}×: trace again" in small.advice
    level = speed_findings(trace_with(5_100, 5_000, 100))  # within the margin: not slower, but nothing gained
    assert [f.kind for f in level] == ["never-pays-back"]
    assert "gains nothing measurable here: 5.1 µs vs 5 µs per call" in level[0].what
    slow_payback = speed_findings(trace_with(4_000, 5_000, 100))  # saves 1 µs a call; the compile took ~1 s
    assert [f.kind for f in slow_payback] == ["never-pays-back"]
    speed = speed_of(trace_with(4_000, 5_000, 100)).functions[0]
    assert speed.compile_ns == 10**9 - 4_000 and speed.payback_calls == 999_996
    assert f"repaid after {speed.payback_calls:,} calls" in slow_payback[0].what
    assert f"differed by up to {NOISE:g}×: the payback is this run's" in slow_payback[0].advice  # 1.25x: within it
    [far] = speed_findings(trace_with(2_000, 5_000, 100))  # 2.5x faster: beyond any process's noise
    assert far.kind == "never-pays-back" and "trace again" not in far.advice
    assert "trace again" not in level[0].advice  # nothing gained: no payback to doubt
    assert speed_findings(trace_with(4_000, 5_000, 2_000_000)) == []  # repaid within the run


def test_a_plain_trace_times_nothing(tmp_path):
    compile_before = torch.compile
    with tracers.trace(cache="warm") as plain:
        step = torch.compile(lambda x: x + 1, backend="eager")
        step(torch.ones(2))
    assert plain.trace.info.runtime is None and plain.runtime is None
    assert torch.compile is compile_before


def test_a_traced_block_times_the_compiled_calls_and_undoes_every_patch():
    compile_before = torch.compile
    module = torch.nn.Linear(4, 4)
    with tracers.trace(cache="warm", vs_eager=True) as timed:
        opt = torch.compile(module, backend="eager")
        for _ in range(12):
            opt(torch.ones(2, 4))
        assert torch.compile is not compile_before
    assert torch.compile is compile_before
    assert opt.__dict__["_compiled_call_impl"] is None  # the slot Module.compile() uses, put back
    assert opt(torch.ones(2, 4)).shape == (2, 4)  # still the compiled module, untimed
    speed = timed.runtime
    assert [(f.name, f.calls, f.compiling_calls, f.eager_calls) for f in speed.functions] == [("Linear", 12, 1, None)]
    assert speed.eager_status is None and "no eager run to compare with" in speed.notes


FUSED = '''
import torch


def block(x, w):
    y = x @ w
    return (y.sin() * 2 + 1).relu()  # one fused kernel
'''


PROFILED = """
import runpy, sys
import torch
import torch._inductor.config as inductor_config
import tracers

namespace = runpy.run_path(sys.argv[1])
x, w = torch.randn(64, 128), torch.randn(128, 128)
before = inductor_config.cpp.enable_kernel_profile
with tracers.trace(profile=True, name="fused") as result:
    compiled = torch.compile(namespace["block"])
    for _ in range(20):
        compiled(x, w)
assert inductor_config.cpp.enable_kernel_profile == before  # the switch --profile set is put back
result.save(sys.argv[2], page=False)
"""


@pytest.fixture(scope="module")
def profiled(tmp_path_factory):
    """An Inductor compile (cold) profiled over steady calls by ``tracers.trace(profile=True)``, in a process of its
    own: an earlier in-process trace of this session must not decide what this one sees."""
    folder = tmp_path_factory.mktemp("fused")
    path, runner = folder / "fused_block.py", folder / "profiled_run.py"
    path.write_text(FUSED)
    runner.write_text(PROFILED)
    done = run_python([str(runner), str(path), str(folder / "out")], cwd=folder)
    assert done.returncode == 0, done.stderr
    [saved] = (folder / "out").glob("fused-*.json")
    return tracers.load(saved), path, runner


def test_profile_ties_a_fused_kernels_time_to_the_user_line_it_came_from(profiled):
    result, path, runner = profiled
    profile = result.runtime.profiles[0]
    assert profile.name == "block" and profile.calls > 0
    fused_line = FUSED.splitlines().index("    return (y.sin() * 2 + 1).relu()  # one fused kernel") + 1
    by_line = {line.line.line: line for line in profile.lines if line.line is not None}
    assert fused_line in by_line, profile
    fused = by_line[fused_line]
    assert fused.ns_per_call > 0 and [k.name for k in fused.kernels if k.name.startswith("cpp_fused")]
    assert {k.name for k in fused.kernels} <= {k.name for k in result.kernels.kernels}  # the kernel map's names
    mm = by_line.get(fused_line - 1)  # the matmul: an extern call the wrapper makes, timed as its aten op
    assert mm is not None and any(k.name.endswith("mm") for k in mm.kernels)
    assert profile.graph_ns is not None and profile.outside_ns is not None
    summary = result.summary()
    assert f"Kernel time by your line: block ({runner.name}:" in summary  # where torch.compile was called
    assert f"{path.name}:{fused_line} `return (y.sin() * 2 + 1).relu() # one fused kernel`" in summary, summary


def test_the_first_compiles_one_time_setup_is_not_the_functions_compile_cost():
    """The recorded speed example: its first function's compiles hold the process's vector-ISA check; the compile
    column (and the calls to pay it back) leave it out, and a note says how much and where."""
    from tracers.analysis.one_time import one_time
    from tracers.tracefile.chrome import load

    trace = load(ROOT / "docs" / "_traces" / "cpu" / "2.13.0" / "speed-cpu-cold.json")
    speed = speed_of(trace)
    setup = one_time(trace)
    first, second = speed.functions
    assert first.setup_ns == sum(setup.within(compile_id) for compile_id in first.compile_ids) > 0
    assert second.setup_ns == 0
    assert first.compile_ns < setup.ns  # the 1-2 s of its own compile, not the ~9 s check beside it
    assert any(note.startswith(f"{first.label}: its compile leaves out ") for note in speed.notes)

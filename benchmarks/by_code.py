"""Compile time by your code: what it costs, how big it makes the trace, and how it compares with torch's own numbers.

- Cost: paired fresh processes compile docs/examples/by_code.py cold with Inductor, traced with and without the
  kernel-origins capture (the only part of it that runs in the traced process; the split of Dynamo's time reads
  spans the tracer records anyway), alternating which goes first; the compile time is the trace's own.
- Real program: a small GPT-2 from transformers (random weights) traced once cold with Inductor on CPU, with
  torch's own Dynamo profiler on (``torch._dynamo.config.dynamo_profiler``, 2.13+): its per-function call
  counts and its tracing time beside the trace's; the kernels tied to lines beside the kernels the output code
  defines; the trace file with and without the kernel records. Usage:

    python benchmarks/by_code.py [--pairs 3] [--layers 2]
"""

from __future__ import annotations

import argparse
import json
import os
import pstats
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.results import publish  # noqa: E402

EXAMPLE = ROOT / "docs" / "examples" / "by_code.py"


def _session(with_origins: bool):  # noqa: ANN202 - a TraceSession
    from tracers.capture import kernel_origins
    from tracers.capture.session import TraceSession
    from tracers.tracefile.stages import all_targets

    if with_origins:
        return TraceSession(cache_mode="cold")
    session = TraceSession([t for t in all_targets() if t.name != kernel_origins.TARGET], cache_mode="cold")
    for name in (kernel_origins.TARGET, *kernel_origins.CODEGEN_TARGETS):
        session.recorder.result_observers.pop(name, None)
    return session


def child_example(with_origins: bool) -> None:
    """Cold Inductor compile of the example in this fresh process; prints the trace's compile time."""
    import runpy

    from tracers.analysis.trace_facts import analyze
    from tracers.capture.cachemode import cache_mode

    sys.argv = [str(EXAMPLE)]  # the example reads its backend from its arguments: Inductor by default
    with cache_mode("cold"):
        session = _session(with_origins)
        with session:
            started = time.process_time()
            runpy.run_path(str(EXAMPLE), run_name="__main__")
            # CPU time of this process alone, where the capture's work happens: the g++ children, and the other
            # processes sharing the machine, make wall time swing by seconds between identical runs.
            cpu_s = time.process_time() - started
    facts = analyze(session.trace)
    kernels = sum(1 for artifact in session.trace.artifacts if artifact.name == "kernel_origins")
    print(json.dumps({"compile_ns": sum(c.time_ns for c in facts.compiles), "cpu_s": cpu_s, "kernel_records": kernels}))


def child_gpt2(layers: int, out: str) -> None:
    """GPT-2 traced cold with Inductor and torch's Dynamo profiler on; writes the trace and torch's pstats."""
    import torch
    from transformers import GPT2Config, GPT2LMHeadModel

    from tracers.capture.cachemode import cache_mode
    from tracers.tracefile.chrome import write_atomic

    torch._dynamo.config.dynamo_profiler = str(Path(out) / "dynamo.prof")
    config = GPT2Config(n_layer=layers, n_head=4, n_embd=64, vocab_size=1000, n_positions=64)
    torch.manual_seed(0)
    with cache_mode("cold"):
        model = GPT2LMHeadModel(config).eval()
        session = _session(True)
        with session, torch.no_grad():
            torch.compile(model)(torch.randint(0, 1000, (2, 16)))
    write_atomic(session.trace, Path(out) / "gpt2.json")


def _run(args: list[str]) -> dict:
    result = subprocess.run([sys.executable, __file__, *args], capture_output=True, text=True, cwd=ROOT,
                            env={**os.environ, "PYTHONPATH": str(ROOT)})
    if result.returncode != 0:
        raise SystemExit(result.stderr[-3000:])
    return json.loads(result.stdout.strip().splitlines()[-1])


def _torch_profile(path: Path) -> tuple[dict[tuple[str, int], int], int]:
    """Calls per (file name, first line) and the root's total (cumulative) tracing time, from torch's pstats."""
    stats = pstats.Stats(str(path)).stats  # type: ignore[attr-defined]
    calls = {(Path(file).name, line): total for (file, line, _), (_primitive, total, *_rest) in stats.items()}
    roots = [cumulative for (_f, _l, _n), (_cc, _nc, _tt, cumulative, callers) in stats.items() if not callers]
    return calls, int(max(roots, default=0) * 1e9)


def _by_file_line(code: str) -> tuple[str, int] | None:
    """``GPT2Block.forward (modeling_gpt2.py:264)`` -> ``("modeling_gpt2.py", 264)``; for ``Model.forward (…) via
    wrapper (…)`` the wrapper's, the code that translator really ran."""
    inner = code.split(" via ", 1)[-1]
    if "(" not in inner:
        return None
    where = inner.rsplit("(", 1)[1].rstrip(")")
    name, _, line = where.rpartition(":")
    return (name, int(line)) if line.isdigit() else None


def gpt2_check(layers: int) -> list[str]:
    from tracers.analysis.by_code import by_code
    from tracers.analysis.diff import kernels as defined_kernels
    from tracers.analysis.kernels import kernel_map
    from tracers.tracefile.chrome import load, write_atomic

    with tempfile.TemporaryDirectory() as out:
        result = subprocess.run([sys.executable, __file__, "--child-gpt2", str(layers), out], cwd=ROOT,
                                env={**os.environ, "PYTHONPATH": str(ROOT)}, capture_output=True, text=True)
        if result.returncode != 0:
            raise SystemExit(result.stderr[-3000:])
        trace = load(Path(out) / "gpt2.json")
        size = (Path(out) / "gpt2.json").stat().st_size
        profile = Path(out) / "dynamo.prof"
        torch_calls, torch_tracing = _torch_profile(profile) if profile.exists() else ({}, 0)
        trace.artifacts = [a for a in trace.artifacts if a.name != "kernel_origins"]
        trace.spans = [s for s in trace.spans if "provenance" not in s.target]
        write_atomic(trace, Path(out) / "without.json")
        size_without = (Path(out) / "without.json").stat().st_size
        trace = load(Path(out) / "gpt2.json")
    split = by_code(trace)
    ours: dict[tuple[str, int], int] = {}
    for row in split.rows():
        key = _by_file_line(row.code)
        if key:
            ours[key] = ours.get(key, 0) + row.calls
    # torch's profiler files a call only when its tracing finished; a run that raised (an inline attempt Dynamo
    # then handled another way) is a translator run all the same, so the trace has it.
    raised: dict[tuple[str, int], int] = {}
    for span in trace.spans:
        key = _by_file_line(span.frame or "") if span.stage == "bytecode" and span.error else None
        if key:
            raised[key] = raised.get(key, 0) + 1
    shared = set(ours) & set(torch_calls)
    same = sum(1 for key in shared if ours[key] == torch_calls[key])
    same_finished = sum(1 for key in shared if ours[key] - raised.get(key, 0) == torch_calls[key])
    differing = sorted(f"{name}:{line} {ours[(name, line)] - raised.get((name, line), 0)} vs "
                       f"{torch_calls[(name, line)]}" for name, line in shared
                       if ours[(name, line)] - raised.get((name, line), 0) != torch_calls[(name, line)])
    kernels = kernel_map(trace)
    generated = {kernel.name for kernel in kernels.generated}
    in_code = set(defined_kernels(trace))
    with_lines = sum(1 for kernel in kernels.generated if kernel.lines)
    tracing = split.tracing_ns
    lines = [
        f"### GPT-2 ({layers} layers, n_embd 64, random weights), Inductor, CPU, cold: one traced run",
        "",
        "| check | the trace | torch's own | |",
        "|---|---|---|---|",
        f"| Dynamo tracing time (compile 0/0) | {tracing / 1e9:.3f} s | {torch_tracing / 1e9:.3f} s "
        f"(Dynamo profiler, root's cumulative time) | {tracing / torch_tracing:.3f}× (target 0.95–1.05×) |"
        if torch_tracing else "| Dynamo tracing time | | torch's Dynamo profiler wrote nothing (before 2.13?) | |",
        f"| time attributed to functions | {split.compiles[0].attributed_ns / 1e9:.3f} s of {tracing / 1e9:.3f} s "
        "| | by construction: own times add up |" if split.compiles else "| | | | |",
        f"| functions traced | {len(ours)} | {len(torch_calls)} | same call count for {same} of {len(shared)} "
        f"shared; {same_finished} when runs that raised are left out |",
        f"| kernels generated | {len(generated)}, {with_lines} tied to user lines | {len(in_code)} defined in "
        f"the output code | {'same names' if generated == in_code else 'names differ'} |",
        f"| trace file | {size / 1e3:.1f} KB | {size_without / 1e3:.1f} KB without the kernel records "
        f"| +{(size / size_without - 1) * 100:.1f} % (target ≤ +15 %) |",
        "",
    ]
    if differing:
        lines.append("Call counts that still differ, runs that raised left out (trace vs torch's profiler): "
                     + "; ".join(differing[:8]) + ". These are generators and what iterates them: Dynamo runs a "
                     "generator's translator again for each value it is asked for (`gen_send_ex2` calls "
                     "`inline_call_`), and the trace counts each run, where torch's profiler counts the call.")
        lines.append("")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=3)
    parser.add_argument("--layers", type=int, default=2)
    parser.add_argument("--child", choices=("with", "without"))
    parser.add_argument("--child-gpt2", nargs=2, metavar=("LAYERS", "OUT"))
    args = parser.parse_args()
    if args.child:
        child_example(args.child == "with")
        return
    if args.child_gpt2:
        child_gpt2(int(args.child_gpt2[0]), args.child_gpt2[1])
        return
    ratios, with_s, without_s, cpu_ratios, with_cpu, without_cpu = [], [], [], [], [], []
    for pair in range(args.pairs):
        order = ("with", "without") if pair % 2 == 0 else ("without", "with")
        runs = {mode: _run(["--child", mode]) for mode in order}
        with_s.append(runs["with"]["compile_ns"] / 1e9)
        without_s.append(runs["without"]["compile_ns"] / 1e9)
        ratios.append(runs["with"]["compile_ns"] / runs["without"]["compile_ns"])
        with_cpu.append(runs["with"]["cpu_s"])
        without_cpu.append(runs["without"]["cpu_s"])
        cpu_ratios.append(runs["with"]["cpu_s"] / runs["without"]["cpu_s"])
    lines = [
        "## Compile time by your code",
        "",
        f"Cost: {args.pairs} pairs of fresh processes compiling `docs/examples/by_code.py` cold with Inductor, "
        "traced with and without the kernel-origins capture, alternating which goes first; compile time as the "
        "trace measured it.",
        "",
        "| measure | without | with | ratio (median of pairs) | target |",
        "|---|---|---|---|---|",
        f"| cold compile, CPU time of the compiling process | {statistics.median(without_cpu):.2f} s | "
        f"{statistics.median(with_cpu):.2f} s | {statistics.median(cpu_ratios):.3f}× | ≤ 1.02× |",
        f"| cold compile, wall time (the trace's) | {statistics.median(without_s):.2f} s | "
        f"{statistics.median(with_s):.2f} s | {statistics.median(ratios):.3f}× | |",
        "",
        "The CPU time leaves out the g++ children, and the machine's other load, which make the wall time swing by "
        f"seconds between identical runs here (wall-time ratios of the pairs: "
        f"{', '.join(f'{ratio:.2f}×' for ratio in ratios)}).",
        "",
        *gpt2_check(args.layers),
    ]
    publish("by-code", lines, f"python benchmarks/by_code.py --pairs {args.pairs} --layers {args.layers}")


if __name__ == "__main__":
    main()

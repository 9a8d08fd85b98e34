"""A compiled training step as torch.profiler sees it: a module whose forward breaks once (an .item()), compiled with
Inductor, and an eager SGD step; when its graphs compile (the backward's only at the first backward()), the
profiler's events of one steady step, and the same step under set_stance("force_eager") in the same process."""

import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

import torch
from torch.profiler import ProfilerActivity, profile


class Block(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.up, self.down = torch.nn.Linear(64, 256), torch.nn.Linear(256, 64)

    def forward(self, x):
        h = torch.relu(self.up(x))
        # A Python float: a graph break, and the .item() runs eagerly between the graphs. Taken of the input, which
        # is the same in every step, so the code after the break is not recompiled for a new value (chapter 6).
        scale = x.abs().mean().item()
        return (self.down(h) * scale).pow(2).mean()


def step(model, x, optimizer) -> None:
    model(x).backward()  # the compiled forward; the backward runs its compiled graphs through autograd
    optimizer.step()  # eager, outside any compiled region
    optimizer.zero_grad(set_to_none=True)


def compiled_graphs() -> str:
    counters = torch._dynamo.utils.counters  # a fresh cache directory: every graph Inductor compiles is a miss
    return f"{counters['stats']['unique_graphs']} Dynamo, {counters['inductor']['fxgraph_cache_miss']} Inductor"


def events(prof) -> list[list[str]]:
    """The profiler's events in time order, indented by nesting; operators only where they run outside a compiled
    graph (inside one they are the kernels' business), autograd's bookkeeping for parameters left out."""
    rows = []
    for event in sorted(prof.events(), key=lambda e: e.time_range.start):
        depth, parent = 0, event.cpu_parent
        while parent is not None:
            depth, parent = depth + 1, parent.cpu_parent
        name = re.sub(r"CompiledFxGraph \w+", "CompiledFxGraph <key>", event.name)
        inside_graph = any(n.startswith(("CompiledFunction", "## Call")) for n in _ancestors(event))
        under_operator = event.cpu_parent is not None and event.cpu_parent.name.startswith("aten::")
        bookkeeping = any("AccumulateGrad" in n for n in [event.name, *_ancestors(event)])
        if (name.startswith("aten::") and (inside_graph or under_operator)) or bookkeeping:
            continue
        rows.append(["  " * depth + name, f"{event.time_range.elapsed_us():.0f}"])
    return rows


def _ancestors(event) -> list[str]:
    names, parent = [], event.cpu_parent
    while parent is not None:
        names, parent = names + [parent.name], parent.cpu_parent
    return names


def per_step(model, x, optimizer, rounds: int = 7, calls: int = 20) -> tuple[float, float]:
    """Median µs per step, compiled and under force_eager, timed in alternating blocks (a burst of load slows both)."""
    times: dict[bool, list[float]] = {False: [], True: []}
    for _ in range(rounds):
        for eager in (False, True):
            with torch.compiler.set_stance("force_eager" if eager else "default"):
                started = time.perf_counter()
                for _ in range(calls):
                    step(model, x, optimizer)
                times[eager].append((time.perf_counter() - started) / calls)
    return statistics.median(times[False]) * 1e6, statistics.median(times[True]) * 1e6


def child() -> None:
    torch.manual_seed(0)
    model, x = torch.compile(Block()), torch.randn(32, 64)
    optimizer = torch.optim.SGD(model.parameters(), lr=1e-3)
    compiles = []
    loss = model(x)
    compiles.append(["the first forward call", compiled_graphs()])
    loss.backward()
    optimizer.step()
    optimizer.zero_grad(set_to_none=True)
    compiles.append(["its backward()", compiled_graphs()])
    for _ in range(5):
        step(model, x, optimizer)
    compiles.append(["five more steps", compiled_graphs()])
    profiles = []  # five profiled steps, the one of median length kept: a busy machine can stall any one step
    for _ in range(5):
        with profile(activities=[ProfilerActivity.CPU]) as one:
            step(model, x, optimizer)
        profiles.append((sum(e.time_range.elapsed_us() for e in one.events() if e.cpu_parent is None), one))
    compiled_prof = sorted(profiles, key=lambda found: found[0])[2][1]
    with torch.compiler.set_stance("force_eager"), profile(activities=[ProfilerActivity.CPU]) as eager_prof:
        step(model, x, optimizer)
    compiled_names = {e.name for e in compiled_prof.events()}
    eager_names = {e.name for e in eager_prof.events()}
    compiled_us, eager_us = per_step(model, x, optimizer)
    stance = [["compiled (the default stance)", str(sum(n.startswith("Torch-Compiled Region") for n in compiled_names)),
               str(sum(n.startswith("CompiledFunction") for n in compiled_names)), f"{compiled_us:.0f}"],
              ['set_stance("force_eager")', str(sum(n.startswith("Torch-Compiled Region") for n in eager_names)),
               str(sum(n.startswith("CompiledFunction") for n in eager_names)), f"{eager_us:.0f}"]]
    compiles.append(['the timed steps, both stances', compiled_graphs()])
    print(json.dumps({"compiles": compiles, "events": events(compiled_prof), "stance": stance}))


def main() -> None:
    with tempfile.TemporaryDirectory() as cache_dir:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("TORCHINDUCTOR_", "TORCH_COMPILE_"))}
        env.update(TORCHINDUCTOR_CACHE_DIR=cache_dir, OMP_NUM_THREADS="1")
        done = subprocess.run([sys.executable, __file__, "child"], env=env, check=True, capture_output=True,
                              text=True)
    found = json.loads(done.stdout.strip().splitlines()[-1])
    for after, graphs in found["compiles"]:
        print(f"after {after}: graphs compiled {graphs}")
    print("one compiled training step under torch.profiler:")
    for name, us in found["events"]:
        print(f"  {us:>6} us  {name}")
    for row in found["stance"]:
        print(f"{row[0]}: {row[1]} Torch-Compiled Region events, {row[2]} CompiledFunction events, {row[3]} us per step")
    tables = {
        "compiles": {"columns": ["after", "graphs compiled so far"], "rows": found["compiles"], "marked": [1]},
        "events": {"columns": ["profiler event (nesting by indentation)", "µs"], "rows": found["events"]},
        "stance": {"columns": ["stance", "Torch-Compiled Region events", "CompiledFunction events",
                               "µs per step (median of 7 blocks of 20, alternating)"], "rows": found["stance"]},
    }
    if "--json" in sys.argv:  # the same as data, for a recording (python -m walkthrough.outputs)
        with open(sys.argv[sys.argv.index("--json") + 1], "w", encoding="utf-8") as out:
            json.dump({"tables": tables}, out)


if __name__ == "__main__":
    if sys.argv[1:] == ["child"]:
        child()
    else:
        main()

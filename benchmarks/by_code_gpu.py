"""Compile time by your code on a GPU: timm ResNet-50 and a 12-layer GPT-2, cold, Inductor, one traced run each.

Needs torch with CUDA, and timm and transformers where available (a model whose package is missing is skipped).
For each model: the tracing time split by function (top rows), whether the own times add up to it, the kernels
tied to user lines against the kernels the output code defines, the trace file with and without the kernel
records, and (with --pairs N) the compile time with the kernel-origins capture against without it. Writes
``by_code_gpu.md`` into OUT (default: $OUT, else the current directory). Usage:

    python benchmarks/by_code_gpu.py [--models resnet50,gpt2] [--pairs 0] [--out DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def _model(name: str):  # noqa: ANN202 - (module, example input)
    import torch

    torch.manual_seed(0)
    if name == "resnet50":
        import timm

        return timm.create_model("resnet50", pretrained=False).cuda().eval(), torch.randn(8, 3, 224, 224, device="cuda")
    from transformers import GPT2Config, GPT2LMHeadModel

    model = GPT2LMHeadModel(GPT2Config(n_layer=12)).cuda().eval()
    return model, torch.randint(0, 50257, (4, 128), device="cuda")


def child(name: str, with_origins: bool, out: str) -> None:
    import torch

    from benchmarks.by_code import _session
    from tracers.analysis.trace_facts import analyze
    from tracers.capture.cachemode import cache_mode
    from tracers.tracefile.chrome import write_atomic

    with cache_mode("cold"):
        model, x = _model(name)
        session = _session(with_origins)
        with session, torch.no_grad():
            torch.compile(model)(x)
            torch.cuda.synchronize()
    session.info.device = "cuda"
    write_atomic(session.trace, Path(out) / f"{name}-{'with' if with_origins else 'without'}.json")
    print(json.dumps({"compile_ns": sum(c.time_ns for c in analyze(session.trace).compiles)}))


def _run(name: str, with_origins: bool, out: str) -> dict:
    result = subprocess.run([sys.executable, __file__, "--child", name, "with" if with_origins else "without", out],
                            capture_output=True, text=True, cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)})
    if result.returncode != 0:
        raise RuntimeError(result.stderr[-3000:])
    return json.loads(result.stdout.strip().splitlines()[-1])


def check(name: str, pairs: int) -> list[str]:
    from tracers.analysis.by_code import by_code
    from tracers.analysis.diff import kernels as defined_kernels
    from tracers.analysis.kernels import kernel_map
    from tracers.tracefile.chrome import load, write_atomic

    with tempfile.TemporaryDirectory() as out:
        try:
            first = _run(name, True, out)
        except RuntimeError as error:
            return [f"## {name}: not run", "", "```", str(error)[-1500:], "```", ""]
        path = Path(out) / f"{name}-with.json"
        trace = load(path)
        size = path.stat().st_size
        stripped = load(path)
        stripped.artifacts = [a for a in stripped.artifacts if a.name != "kernel_origins"]
        stripped.spans = [s for s in stripped.spans if "provenance" not in s.target]
        write_atomic(stripped, Path(out) / "stripped.json")
        size_without = (Path(out) / "stripped.json").stat().st_size
        ratios = []
        for pair in range(pairs):
            order = (True, False) if pair % 2 == 0 else (False, True)
            times = {mode: _run(name, mode, out)["compile_ns"] for mode in order}
            ratios.append(times[True] / times[False])
    split, kernels = by_code(trace), kernel_map(trace)
    generated = {kernel.name for kernel in kernels.generated}
    in_code = set(defined_kernels(trace))
    lines = [f"## {name} (torch {trace.info.torch_version}, {trace.info.device_name})", "",
             f"- compile time (the trace's): {first['compile_ns'] / 1e9:.2f} s; Dynamo tracing: "
             f"{split.tracing_ns / 1e9:.3f} s, attributed to functions: "
             f"{sum(c.attributed_ns for c in split.compiles) / 1e9:.3f} s",
             f"- kernels generated: {len(generated)} ({sum(1 for k in kernels.generated if k.lines)} with user lines); "
             f"defined in the output code: {len(in_code)}; same names: {generated == in_code}; extern calls: "
             f"{sum(1 for k in kernels.kernels if k.extern)}",
             f"- trace file {size / 1e6:.2f} MB, {size_without / 1e6:.2f} MB without the kernel records "
             f"(+{(size / size_without - 1) * 100:.1f} %, target ≤ +15 %)"]
    if ratios:
        lines.append(f"- compile time with / without the kernel-origins capture, {pairs} pairs: "
                     + ", ".join(f"{ratio:.3f}×" for ratio in ratios) + " (target ≤ 1.02×)")
    lines += ["", "| function | calls | with callees | own |", "|---|---|---|---|"]
    lines += [f"| `{row.code}` | {row.calls} | {row.inclusive_ns / 1e6:.1f} ms | {row.exclusive_ns / 1e6:.1f} ms |"
              for row in split.rows()[:12]]
    lines += ["", "| kernel | codegen | user line |", "|---|---|---|"]
    for kernel in sorted(kernels.generated, key=lambda k: -(k.codegen_ns or 0))[:12]:
        where = kernel.lines[-1] if kernel.lines else None
        lines.append(f"| `{kernel.name}` | {(kernel.codegen_ns or 0) / 1e6:.1f} ms | "
                     + (f"`{where.label}` `{where.code}`" if where else "—") + " |")
    return [*lines, ""]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", default="resnet50,gpt2")
    parser.add_argument("--pairs", type=int, default=0)
    parser.add_argument("--out", default=os.environ.get("OUT", "."))
    parser.add_argument("--child", nargs=3, metavar=("MODEL", "WITH", "OUT"))
    args = parser.parse_args()
    if args.child:
        child(args.child[0], args.child[1] == "with", args.child[2])
        return
    report = ["# Compile time by your code on the GPU", ""]
    for name in args.models.split(","):
        report += check(name, args.pairs)
        print("\n".join(report), flush=True)
    Path(args.out).mkdir(parents=True, exist_ok=True)
    (Path(args.out) / "by_code_gpu.md").write_text("\n".join(report))


if __name__ == "__main__":
    main()

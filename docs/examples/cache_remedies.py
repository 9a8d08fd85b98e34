"""What each cache remedy does to the next process: one function compiled in fresh processes that share (or do not
share) a cache directory — the same again, a cache_key_tag, caches force-disabled, an empty directory, and an empty
directory filled from the first process's Mega-Cache bytes."""

import json
import os
import subprocess
import sys
import tempfile
import time

import torch


def scale(x):
    return (torch.sin(x) * 2).sum()


def built(cache_dir: str, since: float) -> str:
    """C++ libraries written into the cache directory by this process (found ones are not rewritten): the
    generated kernels', then the vector-ISA check's test libraries (their source defines a *_chk_kernel)."""
    kernels = tests = 0
    for root, _, names in os.walk(cache_dir):
        for name in names:
            if name.endswith(".so") and os.path.getmtime(os.path.join(root, name)) >= since:
                source = os.path.join(root, name[:-3] + ".cpp")
                is_kernel = not (os.path.exists(source) and "_chk_kernel" in open(source, encoding="utf-8").read())
                kernels, tests = kernels + is_kernel, tests + (not is_kernel)
    return f"{kernels} + {tests}"


def child(save: str, load: str) -> None:
    began = time.time()
    if load:  # another machine's caches, shipped as bytes: written into this process's cache directories first
        with open(load, "rb") as f:
            torch.compiler.load_cache_artifacts(f.read())
    started = time.perf_counter()
    torch.compile(scale)(torch.randn(8))
    seconds = time.perf_counter() - started
    counters = torch._dynamo.utils.counters

    def outcome(group: str, prefix: str) -> str:
        found = [name for name in ("hit", "miss", "bypass") if counters[group][f"{prefix}_{name}"]]
        return ", ".join(found) or "not looked up"

    kinds = ""
    if save:
        artifacts = torch.compiler.save_cache_artifacts()
        assert artifacts is not None
        with open(save, "wb") as f:
            f.write(artifacts[0])
        kinds = ", ".join(f"{len(keys)} {kind}" for kind, keys in sorted(artifacts[1].artifacts.items()) if keys)
    print(json.dumps({"aotautograd": outcome("aot_autograd", "autograd_cache"),
                      "fx_graph": outcome("inductor", "fxgraph_cache"), "seconds": round(seconds, 1),
                      "kernels": built(os.environ["TORCHINDUCTOR_CACHE_DIR"], began), "saved": kinds}))


def run(cache_dir: str, extra_env: dict[str, str], save: str = "", load: str = "") -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TORCHINDUCTOR_", "TORCH_COMPILE_", "TRITON_"))}
    env.pop("TORCH_LOGS", None)  # every cache at its default, whatever the caller's environment says
    env.update(TORCHINDUCTOR_CACHE_DIR=cache_dir, **extra_env)
    done = subprocess.run([sys.executable, __file__, "child", save, load], env=env, check=True,
                          capture_output=True, text=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    with tempfile.TemporaryDirectory() as scratch:
        shared, artifacts = os.path.join(scratch, "shared"), os.path.join(scratch, "mega-cache.bin")
        steps = [
            ("1", "an empty cache directory (Mega-Cache bytes saved at the end)", shared, {}, artifacts, ""),
            ("2", "the same directory again", shared, {}, "", ""),
            ("3", "the same directory, TORCH_COMPILE_CACHE_KEY_TAG=v2", shared, {"TORCH_COMPILE_CACHE_KEY_TAG": "v2"}, "", ""),
            ("4", "the same directory, TORCHINDUCTOR_FORCE_DISABLE_CACHES=1", shared,
             {"TORCHINDUCTOR_FORCE_DISABLE_CACHES": "1"}, "", ""),
            ("5", "a new, empty directory (the cache cleared, or another machine)", os.path.join(scratch, "empty"),
             {}, "", ""),
            ("6", "a new, empty directory, after load_cache_artifacts(process 1's bytes)",
             os.path.join(scratch, "loaded"), {}, "", artifacts),
        ]
        rows = []
        for label, what, cache_dir, env, save, load in steps:
            result = run(cache_dir, env, save, load)
            rows.append([label, what, result["aotautograd"], result["fx_graph"], result["kernels"],
                         f"{result['seconds']:.1f}"])
            print(f"process {label}, {what}: AOTAutograd cache {result['aotautograd']}, FX graph cache "
                  f"{result['fx_graph']}, C++ built (kernels + ISA test libraries) {result['kernels']}, first call {result['seconds']:.1f} s"
                  + (f"; Mega-Cache saved {result['saved']}" if result["saved"] else ""))
    table = {"columns": ["process", "cache directory and setting", "AOTAutograd cache", "FX graph cache",
                         "C++ built: kernels + ISA tests", "first call, s"], "rows": rows}
    if "--json" in sys.argv:  # the same as data, for a recording (python -m walkthrough.outputs)
        with open(sys.argv[sys.argv.index("--json") + 1], "w", encoding="utf-8") as out:
            json.dump({"tables": {"remedies": table}}, out)


if __name__ == "__main__":
    if sys.argv[1:2] == ["child"]:
        child(*sys.argv[2:4])
    else:
        main()

"""The trace page at real scale: a 12-layer GPT-2 (random weights, aot_eager, CPU) traced, its page's size per
part, and how fast headless Chromium draws its first screen (median of several loads from disk).

    python benchmarks/page_scale.py [--layers 12] [--loads 7]

Needs transformers (random weights: nothing is downloaded) and playwright with a system Chromium.
"""

from __future__ import annotations

import argparse
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.results import publish  # noqa: E402

PROGRAM = """
import torch
from transformers import GPT2Config, GPT2LMHeadModel
torch.manual_seed(0)
config = GPT2Config(n_layer={layers}, n_head=4, n_embd=128, vocab_size=1000, n_positions=64)
model = GPT2LMHeadModel(config).eval()
compiled = torch.compile(model, backend="aot_eager")
ids = torch.randint(0, 1000, (2, 16))
for _ in range(3):
    out = compiled(input_ids=ids, labels=ids)
print(float(out.loss))
"""
BUDGET_BYTES = 1_000_000
BUDGET_FIRST_SCREEN_MS = 1000


def part_sizes(html: str) -> dict[str, int]:
    marks = [(match.group(1), match.start()) for match in re.finditer(r'data-part="(\w+)"', html)]
    return {name: (marks[index + 1][1] if index + 1 < len(marks) else len(html)) - start
            for index, (name, start) in enumerate(marks)}


def first_screen_ms(page_path: Path, loads: int) -> tuple[float, float]:
    """Median first contentful paint and load event, in ms, over ``loads`` fresh loads."""
    from playwright.sync_api import sync_playwright

    executable = shutil.which("chromium") or shutil.which("chromium-browser")
    if executable is None:
        sys.exit("no chromium on PATH (apt-get install chromium)")
    paints, loaded = [], []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=executable, headless=True, args=["--no-sandbox"])
        for _ in range(loads):
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            page.goto(page_path.resolve().as_uri(), wait_until="load")
            # The paint entry may land after the load event: wait for it (buffered, so an earlier one counts).
            timing = page.evaluate("""() => new Promise(resolve => {
                const nav = performance.getEntriesByType('navigation')[0];
                new PerformanceObserver(list => {
                    const paint = list.getEntries().find(e => e.name === 'first-contentful-paint');
                    if (paint) resolve({paint: paint.startTime, load: nav.loadEventEnd});
                }).observe({type: 'paint', buffered: true});
            })""")
            paints.append(timing["paint"])
            loaded.append(timing["load"])
            page.close()
        browser.close()
    return statistics.median(paints), statistics.median(loaded)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--layers", type=int, default=12)
    parser.add_argument("--loads", type=int, default=7)
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        script = Path(scratch, f"gpt2_{options.layers}.py")
        script.write_text(PROGRAM.format(layers=options.layers))
        result = subprocess.run([sys.executable, "-m", "tracers", "trace", "--quiet", "--out", scratch, str(script)],
                                capture_output=True, text=True, cwd=scratch)
        if result.returncode != 0:
            sys.exit(f"tracing failed:\n{result.stderr[-3000:]}")
        trace_file = Path(scratch, f"{script.stem}-cpu-cold.json")
        page = trace_file.with_suffix(".html")
        html = page.read_text(encoding="utf-8")
        sizes = part_sizes(html)
        paint_ms, load_ms = first_screen_ms(page, options.loads)
        trace_bytes = trace_file.stat().st_size
    size = len(html.encode("utf-8"))
    rows = "\n".join(f"| {name} | {bytes_ / 1000:.0f} kB |" for name, bytes_ in sizes.items())
    lines = [
        f"## The page at real scale (GPT-2, {options.layers} layers, random weights, aot_eager, CPU)",
        "",
        "| measure | value | budget |",
        "|---|---|---|",
        f"| page size | {size / 1000:.0f} kB | ≤ {BUDGET_BYTES / 1000:.0f} kB |",
        f"| first contentful paint, headless Chromium (median of {options.loads} loads) | {paint_ms:.0f} ms | "
        f"< {BUDGET_FIRST_SCREEN_MS} ms |",
        f"| load event | {load_ms:.0f} ms | |",
        f"| trace file | {trace_bytes / 1000:.0f} kB | |",
        "",
        "| page part | size |",
        "|---|---|",
        rows,
        "",
    ]
    publish("page-scale", lines, f"python benchmarks/page_scale.py --layers {options.layers} --loads {options.loads}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Record the toolbox: a plain run, then each tool on the same example, into one recording file."""

from __future__ import annotations

import shutil
import sys
import tempfile
from datetime import datetime, timezone
from pathlib import Path
from typing import TextIO

from tracers.vocabulary.progress import ProgressLine

from .detect import detect_all, features
from .outputs import documents, stats
from .recording import FORMAT_VERSION, LISTED_FILES, Recording, StepCost, ToolRecord, file_name, save
from .runner import Setting, StepRun, ToolRun, run_tool, warm_up
from .tools import PLAIN, Tool


def _cost(step: StepRun) -> StepCost:
    return StepCost(step.label, step.command, step.runs_example, step.exit_code, round(step.wall_s, 2),
                    round(step.cpu_s, 2))


def _record_of(tool: Tool, run: ToolRun | None, baseline: ToolRun | None, example: str,
               missing: str | None = None) -> ToolRecord:
    if run is None:
        return ToolRecord(tool.id, tool.name, tool.kind, tool.usage, tool.note, "missing", missing, (),
                          0, 0, 0, (), ())
    steps = tuple(_cost(step) for step in run.steps)
    sizes = stats(run)
    evidence = tuple(detect_all(documents(run, baseline), example))
    return ToolRecord(tool.id, tool.name, tool.kind, tool.usage, tool.note, "failed" if run.error else "ok",
                      run.error, steps, sizes.stream_bytes, sizes.file_bytes, len(sizes.files),
                      sizes.files[:LISTED_FILES], evidence, tool.versions())


def _outcome(record: ToolRecord, baseline: ToolRecord | None) -> str:
    if record.status != "ok":
        return f"{record.status}: {record.error}"
    wall = sum(step.wall_s for step in record.steps)
    text = f"ok ({wall:.1f} s"
    mine, plain = record.example_step(), baseline.example_step() if baseline else None
    if record.id != "plain" and mine and plain and plain.wall_s > 0:
        text += f", {mine.wall_s / plain.wall_s:.2f}× the plain run"
    return f"{text}; shows {len(record.evidence)} of {len(features(''))} facts)"


def record(setting: Setting, tools: list[Tool], out_root: Path, keep: Path | None = None,
           stream: TextIO = sys.stderr, command: str = "") -> int:
    """Run the plain baseline and each tool; write ``out_root/<torch>/<example>-<device>.json``.
    Returns 0 when every tool ran, 1 when one failed or is missing, 2 when the example itself fails."""
    from tracers.vocabulary.machine import device_description, torch_facts
    from tracers.vocabulary.releases import public_version

    facts = torch_facts()
    path = out_root / public_version(facts["torch_version"]) / file_name(setting.example, setting.device)
    root = Path(tempfile.mkdtemp(prefix="toolbox-")) if keep is None else keep.resolve()
    root.mkdir(parents=True, exist_ok=True)
    everything = [PLAIN, *tools]
    total = len(everything) + 1  # and the plain run again at the end
    print(f"Recording {len(tools)} tool(s) on {setting.example} ({setting.device}, torch "
          f"{facts['torch_version']}): each in a fresh process with an empty cache directory", file=stream)
    records: list[ToolRecord] = []
    line = ProgressLine(stream)  # ``[2/7] TORCH_LOGS … 12 s`` counted on a terminal while the tool runs
    warm_up(setting)
    try:
        baseline_run: ToolRun | None = None
        for index, tool in enumerate(everything, 1):
            with line.counting(f"[{index}/{total}] {tool.name}"):
                missing = tool.missing()
                run = None if missing else run_tool(tool, setting, root)
            if tool is PLAIN:
                baseline_run = run
            current = _record_of(tool, run, baseline_run, setting.example, missing)
            records.append(current)
            line.finish(_outcome(current, records[0]))
            if tool is PLAIN and current.status != "ok":
                print(f"record: the example fails on its own ({current.error}); nothing recorded", file=stream)
                return 2
        # The plain run once more, last, from its own empty cache: how much the machine's timings wandered.
        with line.counting(f"[{total}/{total}] {PLAIN.name}, again"):
            again = run_tool(PLAIN, setting, root, name="plain-again").steps[0]
        line.finish(f"{'ok' if again.error is None else again.error} ({again.wall_s:.1f} s)")
        recording = Recording(
            FORMAT_VERSION, setting.example, setting.args, setting.device, device_description(setting.device),
            facts["torch_version"], facts["torch_git_sha"], facts["python"], facts["platform"],
            datetime.now(timezone.utc).isoformat(timespec="seconds"),
            command,
            tuple((feature.id, feature.title) for feature in features(setting.example)), tuple(records),
            _cost(again) if again.error is None else None)
        save(recording, path, root)
    finally:
        if keep is None:
            shutil.rmtree(root, ignore_errors=True)
    print(f"Written {path}" + (f"; raw outputs kept in {root}" if keep is not None else ""), file=stream)
    return 0 if all(record_.status == "ok" for record_ in records) else 1

"""The corpus runner: trace each program with this project's CLI, read torch's own counters for the same run, and
compare both with the program's declared truth (tests/corpus/truth/<name>.json; see README.md).

    python -m tests.corpus.run [--only NAME[,NAME]] [--fast] [--json FILE] [--keep DIR]
    python tests/corpus/run.py ...

Prints versions, then one row per program: torch's counts, how many findings we printed, and a verdict
(right / partly / wrong) with the reason. The per-finding matching rule is ``match_cause`` below."""

from __future__ import annotations

import argparse
import json
import platform
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
PROGRAMS = HERE / "programs"
TRUTH = HERE / "truth"

if __package__ in (None, ""):  # python tests/corpus/run.py
    sys.path.insert(0, str(ROOT))
    from tests.corpus import counters as torch_counters  # noqa: E402
else:
    from . import counters as torch_counters

# Which of our finding kinds can stand for a declared cause's kind.
KINDS = {
    "graph-break": {"graph-break", "frame-skipped"},
    "recompile-size": {"recompile"},
    "recompile-value": {"recompile"},
    "recompile-other": {"recompile"},
    "recompile-limit": {"recompile-limit"},
    "nothing-compiled": {"nothing-compiled"},
}
# Torch's internal spellings that must never reach a finding's own words (what, parts, advice).
RAW_NAMES = re.compile(r"\bL\[|\bG\[|kwargs\[|\bargs\[\d|___|\bself\._modules\[")
# A finding that says the next version was compiled dynamic.
SAYS_DYNAMIC = re.compile(r"as dynamic|dynamic \(automatic|automatic dynamic|compiled it dynamic|became dynamic", re.I)


@dataclass
class Truth:
    name: str
    program: Path
    args: list[str]
    nproc: int | None
    slow: bool
    torch: dict[str, dict[str, int]]
    causes: list[dict]
    xfail: str | None
    raw: dict

    @classmethod
    def read(cls, path: Path) -> Truth:
        raw = json.loads(path.read_text())
        return cls(path.stem, PROGRAMS / raw["program"], raw.get("args", []), raw.get("nproc"), raw.get("slow", False),
                   raw["torch"], raw.get("causes", []), raw.get("xfail"), raw)


def truths(only: list[str] | None = None) -> list[Truth]:
    found = [Truth.read(path) for path in sorted(TRUTH.glob("*.json"))]
    return [truth for truth in found if not only or truth.name in only]


@dataclass
class Run:
    """One traced run of a program: torch's counters from every process, and our findings (rank 0's for ranks)."""

    truth: Truth
    returncode: int
    seconds: float
    torch: dict[str, dict[str, int]]
    findings: list = field(default_factory=list)
    trace_path: Path | None = None
    error: str | None = None
    output: str = ""


def trace(truth: Truth, keep: Path | None = None, timeout: float = 600, device: str = "cpu") -> Run:
    """Trace the program with ``python -m tracers trace --out DIR --quiet`` in a fresh process (``--nproc`` for a
    torchrun program), with torch's counters dumped by every process of the run, then load rank 0's (or the
    only) trace and compute our findings through the public API (``tracers.load(path).findings``)."""
    work = Path(tempfile.mkdtemp(prefix=f"corpus-{truth.name}-"))
    out, dumps = work / "trace", work / "counters"
    command = [sys.executable, "-m", "tracers", "trace", "--out", str(out), "--quiet", "--no-page", "--device", device]
    if truth.nproc:
        command += ["--nproc", str(truth.nproc)]
    command += [str(truth.program), *truth.args]
    env = torch_counters.hook_env(dumps)
    env["PYTHONPATH"] = env["PYTHONPATH"] + ":" + str(ROOT)
    started = time.perf_counter()
    try:
        done = subprocess.run(command, env=env, cwd=ROOT, capture_output=True, text=True, timeout=timeout)
        returncode, output = done.returncode, done.stdout + done.stderr
    except subprocess.TimeoutExpired as expired:
        returncode, output = -9, f"timed out after {timeout:.0f} s: {expired}"
    run = Run(truth, returncode, time.perf_counter() - started,
              torch_counters.counts(torch_counters.collect(dumps)), output=output[-4000:])
    try:
        path = pick_trace(out)
        run.trace_path = path
        run.findings = load_findings(path)
    except Exception as error:  # noqa: BLE001 - a runner reports, it does not stop
        run.error = f"{type(error).__name__}: {error}"
    if keep:
        shutil.copytree(work, keep / truth.name, dirs_exist_ok=True)
    shutil.rmtree(work, ignore_errors=True)
    if run.trace_path and keep:
        run.trace_path = keep / truth.name / run.trace_path.relative_to(work)
    return run


def rejudge(truth: Truth, kept: Path) -> Run:
    """A run kept by ``--keep``: its counters and trace, read again (findings computed by today's code)."""
    folder = kept / truth.name
    run = Run(truth, 0, 0.0, torch_counters.counts(torch_counters.collect(folder / "counters")))
    try:
        run.trace_path = pick_trace(folder / "trace")
        run.findings = load_findings(run.trace_path)
    except Exception as error:  # noqa: BLE001
        run.error = f"{type(error).__name__}: {error}"
    return run


def pick_trace(directory: Path) -> Path:
    """The trace to judge: the only one, else rank 0's (``*-rank0.json``), never the merged ``-ranks.json``."""
    files = sorted(path for path in directory.glob("*.json") if not path.name.endswith("-ranks.json"))
    ranked = [path for path in files if re.search(r"-rank0\.json$", path.name)]
    if ranked:
        return ranked[0]
    if not files:
        raise FileNotFoundError(f"no trace written in {directory}")
    return max(files, key=lambda path: path.stat().st_size)


def load_findings(path: Path) -> list:
    """Our findings for one trace file, through the smallest public surface."""
    import tracers

    return list(tracers.load(path).findings)


# -- the matching rule ------------------------------------------------------------------------------------------------

def text_of(finding) -> str:
    """A finding's own words: its headline, its parts and our advice (torch's quoted text, ``detail``, left out)."""
    parts = [getattr(finding, "what", "") or "", *(getattr(finding, "parts", ()) or ()),
             getattr(finding, "advice", "") or ""]
    return "\n".join(parts)


def line_of(finding) -> str | None:
    line = getattr(finding, "user_line", None)
    if line is None:
        return None
    path = getattr(line, "path", None) or getattr(line, "filename", "")
    return f"{Path(path).name}:{line.line}"


def problems(findings: list) -> list:
    return [finding for finding in findings if not getattr(finding, "informational", False)]


@dataclass
class CauseMatch:
    cause: dict
    finding: object | None
    wrong: list[str]  # what the matched finding gets wrong (empty: right)

    @property
    def found(self) -> bool:
        return self.finding is not None


def match_cause(cause: dict, findings: list, used: set[int] = frozenset()) -> CauseMatch:
    """The rule, per declared cause:

    1. candidates: the problem findings whose kind can stand for the cause's kind (``KINDS``);
       none -> the cause is missed;
    2. of those, the first by: not taken by an earlier cause, says the cause's name, at a declared user line
       (``lines``: ``file:line``, the first the expert's choice, the others also right);
    3. on it: the name the user wrote appears, as a whole word, inside a backticked span of its own words
       (`` `input_ids` ``, `` `self.param_groups[0]['lr']` `` for ``lr``); its own words hold no torch
       spelling (``L['x']``, ``kwargs['input_ids']``, ``args[0]``, ``___``); for a recompile whose next version torch
       made dynamic it says so (``as dynamic``/``automatic dynamic``), and for one torch specialised per value it does
       not claim dynamic."""
    kinds = KINDS[cause["kind"]]
    candidates = [finding for finding in problems(findings) if finding.kind in kinds]
    if not candidates:
        return CauseMatch(cause, None, [f"no {'/'.join(sorted(kinds))} finding"])
    candidates.sort(key=lambda finding: id(finding) in used)  # stable: unused ones first, in the findings' order
    lines = cause.get("lines") or ([cause["line"]] if cause.get("line") else [])
    name = cause.get("name")
    unnamed = (lambda finding: re.search(rf"(?<!\w){re.escape(name)}(?!\w)", text_of(finding)) is None) \
        if name else (lambda finding: False)
    # unused first, then the one that says the cause's name, then the one at a declared line
    candidates.sort(key=lambda finding: (id(finding) in used, unnamed(finding), line_of(finding) not in lines))
    finding = candidates[0]
    at_line = line_of(finding) in lines
    wrong = []
    if id(finding) in used:
        wrong.append("shares its finding with an earlier cause")
    if lines and not at_line:
        wrong.append(f"line {line_of(finding)} vs {lines[0]}")
    text = text_of(finding)
    spans = re.findall(r"`([^`]+)`", text)
    if name and not any(re.search(rf"(?<!\w){re.escape(name)}(?!\w)", span) for span in spans):
        said = re.findall(r"`([^`]+)`", getattr(finding, "what", ""))
        wrong.append(f"name: says {', '.join(f'`{s}`' for s in said[:3]) or 'no name'} not `{name}`")
    raw = RAW_NAMES.search(text)
    if raw:
        snippet = text[max(0, raw.start() - 10):raw.end() + 20].replace("\n", " ")
        wrong.append(f"torch spelling in text: '…{snippet}…'")
    nxt = cause.get("next")
    if nxt == "dynamic" and not SAYS_DYNAMIC.search(text):
        wrong.append("does not say the next version was compiled dynamic")
    if nxt == "specialised" and SAYS_DYNAMIC.search(text):
        wrong.append("says dynamic, but torch specialised each value")
    return CauseMatch(cause, finding, wrong)


@dataclass
class Verdict:
    verdict: str  # right / partly / wrong
    reasons: list[str]
    matches: list[CauseMatch]
    extra: list  # problem findings no declared cause matched


def judge(truth: Truth, findings: list) -> Verdict:
    """right: every cause matched with nothing wrong, and no other problem findings; wrong: a cause has no finding
    of its kind, or a clean program got problem findings; partly: everything else."""
    matches, used = [], set()
    for cause in truth.causes:
        matches.append(match_cause(cause, findings, used))
        if matches[-1].finding is not None:
            used.add(id(matches[-1].finding))
    extra = [finding for finding in problems(findings) if id(finding) not in used]
    reasons = []
    for index, match in enumerate(matches, 1):
        for wrong in match.wrong:
            reasons.append(f"cause {index} ({match.cause['kind']}): {wrong}")
    if extra:
        reasons.append(f"{len(problems(findings))} findings for {len(truth.causes)} cause(s); extra: " +
                       "; ".join(f"[{finding.kind}] {finding.what[:90]}" for finding in extra[:4]))
    if any(not match.found for match in matches) or (not truth.causes and extra):
        verdict = "wrong"
    elif reasons:
        verdict = "partly"
    else:
        verdict = "right"
    return Verdict(verdict, reasons, matches, extra)


def counts_differ(truth: Truth, run: Run) -> list[str]:
    """Where torch's counters for this run differ from the declared ones."""
    differences = []
    for key in sorted(set(truth.torch) | set(run.torch)):
        want, got = truth.torch.get(key), run.torch.get(key)
        if want != got:
            differences.append(f"{key}: declared {want}, torch counted {got}")
    return differences


# -- the table --------------------------------------------------------------------------------------------------------

def versions() -> str:
    import torch
    import transformers

    return (f"torch {torch.__version__} (git {torch.version.git_version[:12]}), transformers {transformers.__version__}, "
            f"Python {platform.python_version()}, {platform.machine()}")


def short_counts(counts: dict[str, dict[str, int]]) -> str:
    def one(c: dict[str, int]) -> str:
        text = f"g{c['graphs']} b{c['graph_breaks']} c{c['frame_compiles']} r{c['recompiles']}"
        return text + (f" L{c['recompile_limit_hits']}" if c.get("recompile_limit_hits") else "")

    if list(counts) == ["main"]:
        return one(counts["main"])
    return " | ".join(f"{key}: {one(value)}" for key, value in counts.items())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", help="comma-separated program names")
    parser.add_argument("--fast", action="store_true", help="leave out the programs marked slow")
    parser.add_argument("--json", help="write every row (and each finding's text) to this file")
    parser.add_argument("--keep", help="keep each run's traces and counters under this folder")
    parser.add_argument("--from", dest="source", help="judge the runs kept by an earlier --keep, tracing nothing")
    parser.add_argument("--device", default="cpu", choices=("cpu", "cuda"),
                        help="trace with --device cuda: the programs' tensors on the GPU (torch's default device)")
    parser.add_argument("--results", help="write the table into this markdown file's corpus section "
                                          "(benchmarks/RESULTS.md), replacing the section if it is there")
    options = parser.parse_args(argv)
    chosen = truths(options.only.split(",") if options.only else None)
    if options.fast:
        chosen = [truth for truth in chosen if not truth.slow]
    keep = Path(options.keep).resolve() if options.keep else None
    print(versions())
    print("counts: g graphs, b graph breaks, c frame compiles, r recompiles, L recompile-limit hits (torch's own)")
    rows, failed_counts = [], 0
    for truth in chosen:
        run = rejudge(truth, Path(options.source)) if options.source else trace(truth, keep, device=options.device)
        differ = counts_differ(truth, run)
        failed_counts += bool(differ)
        if run.error:
            verdict = Verdict("wrong", [f"no findings: {run.error}"], [], [])
        else:
            verdict = judge(truth, run.findings)
        counted = short_counts(run.torch) + ("  (!= truth: " + "; ".join(differ) + ")" if differ else "")
        print(f"\n{truth.name:<24} {run.seconds:5.1f}s  torch: {counted}")
        print(f"  {'':<22} findings: {len(problems(run.findings))} problem(s), {len(run.findings)} in all;"
              f" causes declared: {len(truth.causes)}  ->  {verdict.verdict.upper()}"
              + ("  (xfail declared)" if truth.xfail else ""))
        for reason in verdict.reasons:
            print(f"  {'':<22} - {reason}")
        rows.append({"name": truth.name, "seconds": round(run.seconds, 1), "returncode": run.returncode,
                     "torch": run.torch, "counts_differ": differ, "verdict": verdict.verdict,
                     "reasons": verdict.reasons, "error": run.error,
                     "findings": [{"kind": f.kind, "line": line_of(f), "text": text_of(f),
                                   "informational": getattr(f, "informational", False)} for f in run.findings]})
    tally = {name: sum(row["verdict"] == name for row in rows) for name in ("right", "partly", "wrong")}
    print(f"\n{len(rows)} programs: {tally['right']} right, {tally['partly']} partly, {tally['wrong']} wrong; "
          f"torch's counts differ from the truth in {failed_counts}")
    if options.json:
        Path(options.json).write_text(json.dumps({"versions": versions(), "rows": rows}, indent=1))
    if options.results:
        write_results(Path(options.results), rows, tally, failed_counts)
    return 1 if failed_counts else 0


RESULTS_START, RESULTS_END = "<!-- corpus:start -->", "<!-- corpus:end -->"


def write_results(path: Path, rows: list[dict], tally: dict[str, int], failed_counts: int) -> None:
    """The table as a section of a markdown file, between its markers (replaced in place, else appended)."""
    lines = [RESULTS_START, "## The corpus: real library programs against their declared truth", "",
             f"{versions()}. `nox -s corpus` (tests/corpus/run.py) traced each program once; torch's counts come from "
             "torch's own structures in the same run (g graphs, b graph breaks, c frame compiles, r recompiles, "
             "L recompile-limit hits).", "",
             "| program | torch's counts | findings (problems / all) | verdict |", "|---|---|---|---|"]
    for row in rows:
        shown = [finding for finding in row["findings"] if not finding["informational"]]
        verdict = row["verdict"] + (f": {'; '.join(row['reasons'])}" if row["reasons"] else "")
        counts = short_counts(row["torch"]).replace(" | ", "; ")
        lines.append(f"| {row['name']} | {counts} | {len(shown)} / {len(row['findings'])} | {verdict.replace('|', '/')} |")
    lines += ["", f"{len(rows)} programs: {tally['right']} right, {tally['partly']} partly, {tally['wrong']} wrong; "
              f"torch's counts differ from the declared truth in {failed_counts}.", RESULTS_END]
    section = "\n".join(lines)
    text = path.read_text(encoding="utf-8") if path.exists() else ""
    if RESULTS_START in text and RESULTS_END in text:
        before, rest = text.split(RESULTS_START, 1)
        text = before + section + rest.split(RESULTS_END, 1)[1]
    else:
        text = text.rstrip("\n") + "\n\n" + section + "\n"
    path.write_text(text, encoding="utf-8")


if __name__ == "__main__":
    sys.exit(main())

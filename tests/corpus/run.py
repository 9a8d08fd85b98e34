"""The corpus runner: trace each program with this project's CLI, read torch's own counters for the same run, and
compare both with the program's declared truth (tests/corpus/truth/<name>.json; see README.md).

    python -m tests.corpus.run [--only NAME[,NAME]] [--fast] [--json FILE] [--keep DIR]
    python -m tests.corpus.run --fixes [--only ...] [--keep DIR] [--from DIR] [--results benchmarks/RESULTS.md]
    python tests/corpus/run.py ...

Prints versions, then one row per program: torch's counts, how many findings we printed, and a verdict
(right / partly / wrong) with the reason. The per-finding matching rule is ``match_cause`` below."""

from __future__ import annotations

import argparse
import importlib.util
import json
import platform
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from importlib.metadata import version
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
    "hook-ignored": {"hook-ignored"},
    "uncompiled-method": {"uncompiled-method"},
    "compile-failed": {"compile-failed"},
    "ignored-argument": {"ignored-argument"},
}
# Torch's internal spellings that must never reach a finding's own words (what, parts, advice).
RAW_NAMES = re.compile(r"\bL\[|\bG\[|kwargs\[|\bargs\[\d|___|\bself\._modules\[")
# A finding that says the next version was compiled dynamic.
SAYS_DYNAMIC = re.compile(r"as dynamic|dynamic \(automatic|automatic dynamic|compiled it dynamic|became dynamic|becomes dynamic", re.I)


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
       (``lines``: ``file:line``, the first the expert's choice, the others also right), says of the next version
       what ``next`` declares;
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
    nxt = cause.get("next")
    # a recompile torch made dynamic and one it specialised, of one name at one line (a prompt's length, then its
    # decode step of 1): told apart by what each finding says of the next version
    disagrees = (lambda finding: bool(SAYS_DYNAMIC.search(text_of(finding))) != (nxt == "dynamic")) \
        if nxt in ("dynamic", "specialised") else (lambda finding: False)
    # unused first, then the one that says the cause's name, then the one at a declared line, then the one that says
    # of the next version what torch did
    candidates.sort(key=lambda finding: (id(finding) in used, unnamed(finding), line_of(finding) not in lines,
                                         disagrees(finding)))
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

    # the programs that declare "requires" (accelerate, lightning) run only where it is installed
    extra = "".join(f", {name} {version(name)}" for name in ("accelerate", "lightning")
                    if importlib.util.find_spec(name) is not None)
    return (f"torch {torch.__version__} (git {torch.version.git_version[:12]}), transformers {transformers.__version__}"
            f"{extra}, Python {platform.python_version()}, {platform.machine()}")


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
    parser.add_argument("--fixes", action="store_true",
                        help="trace each program whose truth has a \"fix\" and its fixed/ program: torch's counts, "
                             "the finding gone or not, compile time before/after, the claimed cost against the saving")
    options = parser.parse_args(argv)
    if options.fixes:
        return main_fixes(options)
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
FIXES_START, FIXES_END = "<!-- corpus-fixes:start -->", "<!-- corpus-fixes:end -->"


def replace_section(path: Path, section: str, start: str, end: str) -> None:
    """``section`` (holding its own markers) in place of the one between ``start`` and ``end``, else appended."""
    text = path.read_text(encoding="utf-8") if path.exists() else ""
    if start in text and end in text:
        before, rest = text.split(start, 1)
        text = before + section + rest.split(end, 1)[1]
    else:
        text = text.rstrip("\n") + "\n\n" + section + "\n"
    path.write_text(text, encoding="utf-8")


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


# -- the fixes: each finding's fix applied (fixed/<name>.py) and traced again -----------------------------------------

FIXED = HERE / "fixed"
# The finding kinds that stand for one cause: a fix must leave no finding of the family that names the cause.
FAMILIES = ({"recompile", "recompile-limit"}, {"graph-break", "frame-skipped"}, {"nothing-compiled"}, {"hook-ignored"},
            {"uncompiled-method"}, {"compile-failed"})


@dataclass
class Fix:
    """A truth file's ``"fix"`` (one, or one of a list): the program with the finding's fix applied, and what torch
    counted when it ran."""

    truth: Truth
    program: Path
    finding_kind: str  # our finding's kind, as the original run reported it
    name: str | None  # the name the finding says (the cause's); None: any finding of the family
    applied: str  # the words of the finding's fix that the fixed program follows
    expect: dict[str, dict[str, int]]  # torch's counts for the fixed program
    finding: str  # "gone": no finding of the family names it after the fix; "limit-gone"; "fewer": fewer events
    note: str | None
    xfail: str | None

    @property
    def name_id(self) -> str:
        return f"{self.truth.name}/{self.program.stem}" if self.program.stem != self.truth.name else self.truth.name

    def as_truth(self) -> Truth:
        """The fixed program as a Truth ``trace`` can run: kept under ``fixed-<stem>``."""
        return Truth(f"fixed-{self.program.stem}", self.program, self.truth.args, self.truth.nproc, self.truth.slow,
                     self.expect, [], None, {})


def fixes(only: list[str] | None = None) -> list[Fix]:
    found = []
    for truth in truths(only):
        entries = truth.raw.get("fix") or []
        for entry in entries if isinstance(entries, list) else [entries]:
            found.append(Fix(truth, HERE / entry["program"], entry["finding_kind"], entry.get("name"),
                             entry.get("applied", ""), entry["expect"], entry.get("finding", "gone"),
                             entry.get("note"), entry.get("xfail")))
    return found


def family(kind: str) -> set[str]:
    return next((kinds for kinds in FAMILIES if kind in kinds), {kind})


def fix_findings(fix: Fix, findings: list) -> list:
    """The problem findings of the fix's family that name the cause (all of the family when it has no name)."""
    kinds = family(fix.finding_kind)
    named = [finding for finding in problems(findings) if finding.kind in kinds]
    if fix.name:
        word = re.compile(rf"(?<![\w.]){re.escape(fix.name)}(?![\w])")
        named = [finding for finding in named if word.search(text_of(finding))]
    return named


def finding_gone(fix: Fix, left: list, before: list) -> bool:
    """``gone``: no finding of the family names it after the fix; ``limit-gone``: no recompile-limit finding does (a
    fix that raises or splits the limit: the value's recompiles stay, no call runs eager); ``fewer``: fewer events."""
    if fix.finding == "gone":
        return not left
    if fix.finding == "limit-gone":
        return not [finding for finding in left if finding.kind == "recompile-limit"]
    return sum(f.events for f in left) < sum(f.events for f in before)


def worse(fix: Fix, before: dict[str, int], after: dict[str, int]) -> list[str]:
    """Where the fixed program's counts are worse than the original's (one process, ``main`` or rank 0): more graph
    breaks, recompiles or recompile-limit hits; for nothing-compiled, still nothing compiled, and for a compile that
    failed, still no graph."""
    said = []
    if fix.finding_kind in ("nothing-compiled", "compile-failed"):  # before, nothing ran compiled: no counts to beat
        if not after.get("graphs" if fix.finding_kind == "compile-failed" else "frame_compiles"):
            said.append("still nothing compiled")
        return said
    # A fix for calls that ran eager (a model method called through the wrapper, or calls past the recompile limit,
    # the limit no longer hit) makes those calls compile: the versions they take are its cost, not a worse run.
    compiles_eager_calls = fix.finding_kind == "uncompiled-method" or (
        fix.finding_kind == "recompile-limit" and before.get("recompile_limit_hits", 0) > 0
        and not after.get("recompile_limit_hits", 0))
    # A fix that makes an ignored hook run compiles the module again with it, and a hook kept eager (wrapped in
    # torch.compiler.disable) is a break by design: those are what the hook running costs.
    hook_runs = fix.finding_kind == "hook-ignored"
    for key in ("graph_breaks", "recompiles", "recompile_limit_hits"):
        if (key == "recompiles" and (compiles_eager_calls or hook_runs)) or (key == "graph_breaks" and hook_runs):
            continue
        if after.get(key, 0) > before.get(key, 0):
            said.append(f"{key} {before.get(key, 0)} -> {after.get(key, 0)}")
    return said


def first_counts(counts: dict[str, dict[str, int]]) -> dict[str, int]:
    return counts.get("main") or counts.get("rank0") or next(iter(counts.values()), {})


def compile_time(run: Run) -> float | None:
    """The trace's total compile seconds (``compile_seconds``: every compile, its backward included)."""
    if run.trace_path is None:
        return None
    import tracers
    from tracers.analysis.findings import compile_seconds

    return compile_seconds(tracers.load(run.trace_path).facts)


def fix_row(fix: Fix, before: Run, after: Run) -> dict:
    """One program's fix, checked: torch's counts before/after, the finding gone, compile time, claimed vs saved."""
    claimed = fix_findings(fix, before.findings)
    left = fix_findings(fix, after.findings)
    # the finding whose fix the fixed program follows, where several name the cause (a prompt's length, its batch)
    finding_text = next((f.fix for f in claimed if fix.applied and fix.applied in (f.fix or "")),
                        claimed[0].fix if claimed else None)
    counts_before, counts_after = first_counts(before.torch), first_counts(after.torch)
    seconds_before, seconds_after = compile_time(before), compile_time(after)
    gone = finding_gone(fix, left, claimed)
    problems_found = []
    if after.returncode != 0:
        problems_found.append(f"the fixed program exited {after.returncode}")
    if counts_after != first_counts(fix.expect):
        problems_found.append(f"torch counted {short_counts({'main': counts_after})}, declared "
                              f"{short_counts({'main': first_counts(fix.expect)})}")
    problems_found += [f"worse: {said}" for said in worse(fix, counts_before, counts_after)]
    if not gone:
        problems_found.append("finding not gone: " + "; ".join(f.what[:90] for f in left[:2]))
    if fix.applied and finding_text is not None and fix.applied not in (finding_text or ""):
        problems_found.append(f"stale: the finding's fix no longer says '{fix.applied}'")
    if not claimed:
        problems_found.append(f"the original run has no {fix.finding_kind} finding naming {fix.name}")
    return {"program": fix.name_id, "fixed": str(fix.program.relative_to(HERE)), "kind": fix.finding_kind,
            "checked_by": checked_by(fix, claimed),
            "applied": fix.applied, "fix_text": finding_text, "note": fix.note, "xfail": fix.xfail,
            "before": counts_before, "after": counts_after, "gone": gone,
            "left": [f.what for f in left],
            "compile_before_s": seconds_before, "compile_after_s": seconds_after,
            "claimed_s": sum(f.cost_s for f in claimed) if claimed else None,
            "saved_s": (seconds_before - seconds_after) if seconds_before is not None and seconds_after is not None
            else None, "problems": problems_found}


# Which of the tracer's own fixes (Remedy kinds) a fix's words are: the ones `trace --check-fixes` applies itself.
_REMEDY_WORDS = (("ignore-logging", "ignore_logging_functions"), ("reorder-logging", "reorderable_logging_functions"),
                 ("setting", "torch._dynamo.config."), ("setting", "torch._inductor.config."), ("compile-argument", "dynamic=True"),
                 ("compile-argument", "`dynamic=False` out"))


def checked_by(fix: Fix, claimed: list) -> str:
    """How the fix is checked: by the fixed program, the table's run; and whether ``trace --check-fixes`` can apply it
    by itself too (the finding carries it: a setting, a compile argument, a logging function), or it is a change to
    the code, which only a fixed program checks."""
    remedies = [remedy for finding in claimed for remedy in getattr(finding, "remedies", ())]
    kinds = {remedy.kind for remedy in remedies}
    applies = any(kind in kinds and words in (fix.applied or "") for kind, words in _REMEDY_WORDS) or any(
        remedy.kind == "compile-argument" and f"{remedy.name}=" in (fix.applied or "") for remedy in remedies)
    return "fixed program (--check-fixes applies it too)" if applies else "fixed program (a change to the code)"


def _seconds(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


def fix_line(row: dict) -> str:
    return (f"{row['program']:<34} {short_counts({'main': row['before']}):<16} -> "
            f"{short_counts({'main': row['after']}):<16} {'gone' if row['gone'] else 'STAYS':<6} "
            f"compile {_seconds(row['compile_before_s'])} -> {_seconds(row['compile_after_s'])} s  "
            f"claimed {_seconds(row['claimed_s'])} s, saved {_seconds(row['saved_s'])} s")


def main_fixes(options: argparse.Namespace) -> int:
    """``--fixes``: trace (or read from ``--from``) each original and its fixed program, and print the table."""
    chosen = fixes(options.only.split(",") if options.only else None)
    if options.fast:
        chosen = [fix for fix in chosen if not fix.truth.slow]
    # The compile seconds are read from the traces after both runs: without --keep they stay in a folder of the run's.
    scratch = None if options.keep else tempfile.TemporaryDirectory(prefix="corpus-fixes-")
    keep = Path(options.keep).resolve() if options.keep else Path(scratch.name)
    source = Path(options.source).resolve() if options.source else None
    try:
        return _fix_table(options, chosen, keep, source)
    finally:
        if scratch is not None:
            scratch.cleanup()


def _fix_table(options: argparse.Namespace, chosen: list, keep: Path, source: Path | None) -> int:
    """The fixes' table, each run kept under ``keep`` while it is read."""
    print(versions())
    print("counts: g graphs, b graph breaks, c frame compiles, r recompiles, L recompile-limit hits (torch's own); "
          "compile: the trace's total compile seconds; claimed: the finding's cost; saved: compile before - after")
    originals: dict[str, Run] = {}

    def get(truth: Truth) -> Run:
        if truth.name not in originals:
            for folder in filter(None, (source, keep)):
                if (folder / truth.name / "trace").is_dir():
                    originals[truth.name] = rejudge(truth, folder)
                    break
            else:
                originals[truth.name] = trace(truth, keep, device=options.device)
        return originals[truth.name]

    rows, failed = [], 0
    for fix in chosen:
        before, after = get(fix.truth), get(fix.as_truth())
        row = fix_row(fix, before, after)
        rows.append(row)
        failed += bool(row["problems"]) and not fix.xfail
        print("\n" + fix_line(row))
        print(f"  {'':<32} applied: {row['applied']}" + (f"  ({row['note']})" if row["note"] else ""))
        for said in row["problems"]:
            print(f"  {'':<32} - {said}" + ("  (xfail declared)" if fix.xfail else ""))
    print(f"\n{len(rows)} fixes: {sum(not row['problems'] for row in rows)} checked, "
          f"{sum(bool(row['problems']) for row in rows)} with a problem ({failed} undeclared)")
    if options.json:
        Path(options.json).write_text(json.dumps({"versions": versions(), "fixes": rows}, indent=1))
    if options.results:
        write_fix_results(Path(options.results), rows)
    return 1 if failed else 0


def write_fix_results(path: Path, rows: list[dict]) -> None:
    lines = [FIXES_START, "## The corpus's fixes: each finding's fix applied and traced again", "",
             f"{versions()}. `python -m tests.corpus.run --fixes` traced each program and `tests/corpus/fixed/<name>.py`, "
             "the same program with the fix the finding's text gives applied (the words quoted). Counts are torch's own "
             "(g graphs, b graph breaks, c frame compiles, r recompiles, L recompile-limit hits); checked by: every fix "
             "by its fixed program in this run; where the finding carries the fix as one the tracer applies itself (a "
             "setting, an argument of torch.compile, a logging function), `trace --check-fixes` applies it too (not "
             "run for this table), else it is a change to the code; compile is the "
             "trace's total compile seconds (one run each, so a few tenths are noise); claimed is the finding's cost, "
             "saved is compile before − after.", "",
             "| program | fix applied | checked by | torch before → after | finding | compile before → after (s) | "
             "claimed / saved (s) | note |", "|---|---|---|---|---|---|---|---|"]
    for row in rows:
        note = "; ".join(filter(None, [row["note"], *row["problems"]])).replace("|", "/")
        lines.append(f"| {row['program']} | “{row['applied']}” | {row['checked_by']} | "
                     f"{short_counts({'main': row['before']})} → "
                     f"{short_counts({'main': row['after']})} | {'gone' if row['gone'] else 'stays'} | "
                     f"{_seconds(row['compile_before_s'])} → {_seconds(row['compile_after_s'])} | "
                     f"{_seconds(row['claimed_s'])} / {_seconds(row['saved_s'])} | {note} |")
    lines += ["", f"{len(rows)} fixes: {sum(not row['problems'] for row in rows)} checked (counts as declared, "
              "the finding gone, nothing worse).", FIXES_END]
    replace_section(path, "\n".join(lines), FIXES_START, FIXES_END)


if __name__ == "__main__":
    sys.exit(main())

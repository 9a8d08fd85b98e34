"""``pytest --compile-trace DIR --compile-trace-check-fixes``: each traced test whose findings have a fix the tracer
can apply is run again in a fresh pytest process, once per fix, with that fix; what each did is said in the summary
and written into the test's trace (``fix_checks``), as ``trace --check-fixes`` does for a script."""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from dataclasses import asdict
from pathlib import Path

from tracers.analysis.fix_checks import FixCheck, counts_of, dearer, finding_label, fixes_to_check, output_change, \
    verdict
from tracers.analysis.report_model import build_report
from tracers.tracefile.chrome import TraceFileError, load, write_atomic

APPLY_OPTION = "--compile-trace-apply-fix"  # the run again's own: the one fix (a Remedy's JSON)
TIMEOUT_S = 600.0


def check_test_fixes(nodeid: str, saved: Path, passed: bool, rootdir: Path) -> list[FixCheck]:
    """Run the test ``nodeid`` again once per fix of its trace's findings; the checks, also written into
    ``saved`` (its trace). ``passed``: how the test ended the first time (a fix that fails it is worse)."""
    try:
        trace = load(saved)
    except TraceFileError:
        return []
    before = counts_of(trace)
    checks = []
    for finding, remedy in fixes_to_check(build_report(trace).findings):
        with tempfile.TemporaryDirectory(prefix="tracers-test-fix-") as scratch:
            command = [sys.executable, "-m", "pytest", nodeid, "-q", "-p", "no:cacheprovider", "--compile-trace",
                       scratch, APPLY_OPTION, json.dumps(remedy.as_json())]
            try:
                done = subprocess.run(command, cwd=rootdir, capture_output=True, text=True, errors="replace",
                                      timeout=TIMEOUT_S)
                code: int | None = done.returncode
            except subprocess.TimeoutExpired:
                code = None
            traces = sorted(Path(scratch).glob("*.json"))
            fixed = load(traces[0]) if traces else None
        after = counts_of(fixed) if fixed is not None else None
        applied = bool(fixed is not None and (fixed.info.applied_fix or {}).get("applied"))
        label = finding_label(finding)
        gone = fixed is not None and all(finding_label(other) != label for other in build_report(fixed).findings)
        same = output_change([], [])  # a test's output is its outcome: pass or fail, compared by the exit code
        mended = not passed and code == 0  # the test failed without the fix and passes with it
        result = verdict(before, after, 0 if passed or mended else 1, code, same, gone, applied) \
            if code is not None else "timed out"
        note = "the test passes with it; it failed without" if mended and result != "worse" else \
            "the test fails with it" if result == "worse" else \
            "but compiling took markedly longer" if result == "helps" and gone and after \
            and dearer(before, after) else ""
        checks.append(FixCheck(remedy.as_json(), remedy.key, result, label, code, asdict(before),
                               asdict(after) if after else {}, {}, "", gone, note))
    if checks:
        trace.info.fix_checks = [check.as_json() for check in checks]
        try:
            write_atomic(trace, saved, keep_paths=True)
        except OSError:
            pass  # the summary still says them
    return checks

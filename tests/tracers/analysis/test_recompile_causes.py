"""A recompile is said by what its call changed, read from its failures against every version, on the terminal, the
page and the findings alike; torch's first reason may be another version's older change (chapter 4's 0/3: the dtype
went back to float32, while the factor is new). A size finding is not told "compiled again for it" by a later
dtype change or by the limit refusing a call for another value."""

from __future__ import annotations

import dataclasses

import pytest

from tracers.analysis.claim_check import check
from tracers.analysis.report_model import build_report
from tracers.report.counts import render_counts
from tracers.terminal.style import Style
from tracers.terminal.summary import render_report
from tracers.tracefile.chrome import load

from tests.conftest import ROOT

pytestmark = pytest.mark.pure

RECORDED = ROOT / "docs" / "_traces" / "cpu" / "2.13.0" / "guards_recompile-cpu-cold.json"


@pytest.fixture(scope="module")
def report():
    return build_report(load(RECORDED))


def test_torchs_first_reason_is_not_the_cause(report):
    refused = next(rec for rec in report.facts.recompiles if rec.compile_id == "0/3")
    assert "dtype" in report.guard_failure(refused.reasons[0]).sentence  # what torch lists first: against 0/2
    assert report.recompile_cause("0/3", refused.reasons).sentence.startswith("the value of `factor` changed")


def test_the_terminal_and_the_page_say_the_cause(report):
    text = render_report(report, Style(False), written=[])
    line = next(line for line in text.splitlines() if line.startswith("  recompile [0/3]"))
    assert "`factor`" in line and "dtype" not in line
    page = render_counts(report.facts, report.trace.info, report.recompile_cause)
    assert "Recompile 0/3: the value of `factor` changed" in page


def test_a_dtype_change_is_not_the_size_compiled_again(report):
    size = next(finding for finding in report.findings if "the size of `x` changed" in finding.what)
    assert "no later call compiled again for it" in size.advice
    assert "does not cover" not in size.advice


def test_the_checker_refuses_a_size_remedy_for_a_dtype(report):
    dtype = next(finding for finding in report.findings if "the dtype of `x` changed" in finding.what)
    assert check(report.trace, [dtype]) == []
    told = dataclasses.replace(dtype, advice="Pad it to the usual size, or torch._dynamo.mark_dynamic(x, 0).")
    assert check(report.trace, [told]) == [
        "finding 1 (recompile): offers “mark_dynamic” for recompiles no size change caused"]

"""pytest plugin, installed with the package: ``--compile-trace DIR`` and the ``compile_trace`` fixture for budgets."""

from __future__ import annotations

import argparse
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from .result import Count

_RESULT = pytest.StashKey["Any"]()  # the TraceResult of the test, whichever way it was traced
_SAVED = pytest.StashKey["list[Path]"]()
_BY_TEST = pytest.StashKey["dict[str, Path]"]()  # each traced test's trace file, for --compile-trace-check-fixes
_OUTCOME = pytest.StashKey["dict[str, bool]"]()  # each test's call: passed or not


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("compile-trace", "torch.compile traces (tracers)")
    group.addoption("--compile-trace", metavar="DIR", default=None,
                    help="write a trace (JSON for Perfetto, and its HTML page) of each test that compiled "
                         "anything into DIR")
    group.addoption("--compile-trace-cache", choices=("warm", "cold"), default="warm",
                    help="warm (default): leave torch's compile caches as they are; cold: caches off and a "
                         "fresh cache dir per test, so every stage really runs")
    group.addoption("--compile-trace-check-fixes", action="store_true",
                    help="with --compile-trace: run each traced test again once per fix the tracer can apply to its "
                         "findings (a torch setting, an argument of a torch.compile call), each in a fresh pytest "
                         "process, and say what each did (the test runs 1 + fixes times)")
    group.addoption("--compile-trace-apply-fix", metavar="JSON", default=None, help=argparse.SUPPRESS)


def pytest_configure(config: pytest.Config) -> None:
    config.stash[_SAVED] = []
    config.stash[_BY_TEST] = {}
    config.stash[_OUTCOME] = {}
    out = config.getoption("compile_trace", None)
    if out:
        from tracers.vocabulary.usage import UsageError, check_writable

        try:
            check_writable(Path(out), "--compile-trace")
        except UsageError as error:
            raise pytest.UsageError(str(error)) from None


def _name(nodeid: str) -> str:
    """A file name for a test: ``tests/test_a.py::test_b[x]`` -> ``tests_test_a.py__test_b_x``."""
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", nodeid.replace("::", "__")).strip("_")[:150] or "test"


def _block(config: pytest.Config, nodeid: str):
    from tracers.capture.options import SessionOptions

    from .context import trace

    options = SessionOptions.from_flags(cache=config.getoption("compile_trace_cache"),
                                        apply_fix=config.getoption("compile_trace_apply_fix", None))
    return trace.with_options(options, name=_name(nodeid))


def _save(config: pytest.Config, result: Any, nodeid: str) -> None:
    out = config.getoption("compile_trace", None)
    if not out or not (result.compiles or result.graphs):
        return
    written = result.save(out)
    config.stash[_SAVED].extend(written)
    config.stash[_BY_TEST][nodeid] = next(path for path in written if path.suffix == ".json")


@pytest.fixture
def compile_trace(request: pytest.FixtureRequest) -> Iterator[Any]:
    """The test's own trace, live (``tracers.api.TraceResult``): assert a compile budget with it, e.g.
    ``assert compile_trace.graph_breaks == 0`` and ``assert compile_trace.recompiles <= 1``."""
    block = _block(request.config, request.node.nodeid)
    with block as result:
        request.node.stash[_RESULT] = result
        yield result
    _save(request.config, result, request.node.nodeid)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Iterator[None]:
    """With --compile-trace, trace the test's body unless its compile_trace fixture already does."""
    if not item.config.getoption("compile_trace", None) or _RESULT in item.stash:
        return (yield)
    block = _block(item.config, item.nodeid)
    try:
        with block as result:
            item.stash[_RESULT] = result
            return (yield)
    finally:  # a failing test's trace is the one most worth keeping
        if block.result is not None:
            _save(item.config, block.result, item.nodeid)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: Any) -> Iterator[Any]:
    """Each test's call, passed or not: a fix that fails a passing test is worse."""
    report = yield
    if report.when == "call":
        item.config.stash[_OUTCOME][item.nodeid] = report.passed
    return report


def pytest_assertrepr_compare(config: pytest.Config, op: str, left: object, right: object) -> list[str] | None:
    """``assert compile_trace.graph_breaks == 0`` fails naming each break's reason and user line."""
    counted = [side for side in (left, right) if isinstance(side, Count)]
    if not counted:
        return None
    lines = [f"{left!r} {op} {right!r}"]
    for count in counted:
        lines.extend(count.explain() or [f"no {count.what}s"])
    return lines


def pytest_terminal_summary(terminalreporter: Any, config: pytest.Config) -> None:
    out = config.getoption("compile_trace", None)
    if not out:
        return
    saved = [path for path in config.stash.get(_SAVED, []) if path.suffix == ".json"]
    terminalreporter.write_sep("-", "torch.compile traces")
    if saved:
        terminalreporter.write_line(f"{len(saved)} test(s) compiled something: traces and pages in {out}/ "
                                    "(open the .html in a browser, the .json in https://ui.perfetto.dev)")
    else:
        terminalreporter.write_line(f"no test compiled anything: nothing written to {out}/")
    if config.getoption("compile_trace_check_fixes", False) and not config.getoption("compile_trace_apply_fix"):
        from tracers.vocabulary.printable import printable_value

        from .pytest_fixes import check_test_fixes

        outcomes = config.stash.get(_OUTCOME, {})
        for nodeid, path in config.stash.get(_BY_TEST, {}).items():
            for check in check_test_fixes(nodeid, path, outcomes.get(nodeid, True), Path(config.rootpath)):
                terminalreporter.write_line(printable_value(f"{nodeid}: {_said_fix(check.fix)}: {check.said}"))


def _said_fix(fix: dict) -> str:
    from tracers.analysis.finding_type import Remedy

    try:
        return Remedy(**fix).said
    except TypeError:
        return str(fix.get("name"))

"""The structured-trace filter: skipped records are never built, kept ones reach torch unchanged, and every
binding of torch's ``trace_structured`` is put back exactly, also in modules imported while it was installed."""

from __future__ import annotations

import logging
import sys
import types
from collections import Counter

import torch._inductor.compile_fx  # noqa: F401 - a module that binds trace_structured by name
from torch._logging import _internal

from tracers.capture.record_filter import RecordFilter
import pytest

pytestmark = pytest.mark.torch

ORIGINAL = _internal.trace_structured


def _holders(original: object = ORIGINAL) -> dict[tuple[str, str], object]:
    """Every torch module global that holds ``original`` (torch's trace_structured by default)."""
    return {(name, attr): value for name, module in list(sys.modules.items()) if name.startswith("torch")
            for attr, value in list(vars(module).items()) if value is original}


class _Catch(logging.Handler):
    def __init__(self):
        super().__init__(logging.DEBUG)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


def test_skipped_records_are_never_built_and_kept_ones_pass_unchanged() -> None:
    built: list[str] = []
    dropped: Counter[str] = Counter()
    catch = _Catch()
    _internal.trace_log.addHandler(catch)
    record_filter = RecordFilter(lambda name: name in {"kept", "kept_artifact"}, dropped)
    try:
        assert record_filter.install()
        trace_structured = torch._logging.trace_structured
        trace_structured("chromium_event", payload_fn=lambda: built.append("chromium_event") or "x")
        trace_structured("artifact", metadata_fn=lambda: {"name": "fx_graph_runnable", "encoding": "string"},
                         payload_fn=lambda: built.append("fx_graph_runnable") or "x")
        torch._inductor.compile_fx.trace_structured("kept", payload_fn=lambda: built.append("kept") or "payload")
        trace_structured("artifact", metadata_fn=lambda: {"name": "kept_artifact", "encoding": "string"},
                         payload_fn=lambda: built.append("kept_artifact") or "text")
    finally:
        record_filter.uninstall()
        _internal.trace_log.removeHandler(catch)
    assert built == ["kept", "kept_artifact"]
    assert (dropped["chromium_event"], dropped["fx_graph_runnable"]) == (1, 1)
    assert set(dropped) <= {"chromium_event", "fx_graph_runnable", "str"}  # str: torch interning stack files
    received = [(record.metadata, record.payload) for record in catch.records]
    assert received[0][0]["kept"] == {} and received[0][1] == "payload"
    assert received[1][0]["artifact"] == {"name": "kept_artifact", "encoding": "string"}


def test_every_binding_is_put_back_also_in_modules_imported_meanwhile() -> None:
    before = _holders()
    assert ("torch._inductor.compile_fx", "trace_structured") in before
    record_filter = RecordFilter(lambda name: True, Counter())
    record_filter.install()
    assert _holders() == {}  # nothing still reaches torch's function around the filter
    assert set(_holders(record_filter.wrapper)) == set(before)
    late = types.ModuleType("torch._tracers_test_late")  # imported during the run: binds the filter
    exec("from torch._logging import trace_structured", late.__dict__)
    sys.modules[late.__name__] = late
    try:
        assert late.trace_structured is record_filter.wrapper
        record_filter.uninstall()
        assert late.trace_structured is ORIGINAL
        assert {key: value for key, value in _holders().items() if key[0] != late.__name__} == before
    finally:
        del sys.modules[late.__name__]


def test_nested_filters_unwound_out_of_order_still_reach_torch() -> None:
    before = _holders()
    outer = RecordFilter(lambda name: True, Counter())
    inner = RecordFilter(lambda name: True, Counter())
    outer.install()
    inner.install()
    stale = torch._logging.trace_structured  # e.g. captured by a module during the run
    outer.uninstall()
    inner.uninstall()
    stale("kept")  # calls torch's own function, not a filter that is gone
    assert _holders() == before  # torch's own function everywhere again, no filter left in between


def test_nothing_is_skipped_while_another_handler_listens() -> None:
    """TORCH_TRACE's handler (or any a program attaches) still gets every record while the tracer runs."""
    built: list[str] = []
    dropped: Counter[str] = Counter()
    catch = _Catch()
    listening = [True]
    record_filter = RecordFilter(lambda name: False, dropped, alone=lambda: not listening[0])
    _internal.trace_log.addHandler(catch)
    try:
        record_filter.install()
        torch._logging.trace_structured("chromium_event", payload_fn=lambda: built.append("with") or "x")
        listening[0] = False
        torch._logging.trace_structured("chromium_event", payload_fn=lambda: built.append("alone") or "x")
    finally:
        record_filter.uninstall()
        _internal.trace_log.removeHandler(catch)
    assert built == ["with"] and dropped == Counter({"chromium_event": 1})
    assert [record.metadata.get("chromium_event") for record in catch.records] == [{}]


def test_the_collector_is_alone_unless_torch_trace_or_another_handler_listens() -> None:
    from tracers.capture.artifacts import ArtifactCollector
    from tracers.capture.recorder import Recorder

    collector = ArtifactCollector(Recorder())
    # pytest's own log capture listens on torch's trace logger too: step it aside for this check.
    others = [handler for handler in _internal.trace_log.handlers if type(handler).__name__ != "LazyTraceHandler"]
    for handler in others:
        _internal.trace_log.removeHandler(handler)
    collector.attach()
    try:
        idle = [handler for handler in _internal.trace_log.handlers if type(handler).__name__ == "LazyTraceHandler"]
        assert collector._alone()
        other = _Catch()
        _internal.trace_log.addHandler(other)
        assert not collector._alone()
        _internal.trace_log.removeHandler(other)
        assert collector._alone() and all(handler.root_dir is None for handler in idle)
    finally:
        collector.detach()
        for handler in others:
            _internal.trace_log.addHandler(handler)

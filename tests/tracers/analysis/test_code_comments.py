"""Inductor's comments in its output code read back: the source-node lists, whatever a log puts in a line."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.pure


def test_a_line_of_unclosed_source_node_lists_is_read_in_one_pass():
    """Inductor's ``# Topologically Sorted Source Nodes: [...]`` comment read by one find of the bracket: a line of
    20,000 unclosed openings (a hostile log) is no match, found without rescanning (a pattern took 41 s on it)."""
    from tracers.analysis.code_comments import _source_nodes

    assert _source_nodes("    # Topologically Sorted Source Nodes: [x, relu], Original ATen: [aten.relu]") == "x, relu"
    assert _source_nodes("# Unsorted Source Nodes: [" * 20_000) is None
    assert _source_nodes("# nothing here") is None

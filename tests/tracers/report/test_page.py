"""The trace renderer on the recorded traces in docs/_traces: bars, tree nesting, counts, artifacts, links, escaping."""

from __future__ import annotations

import dataclasses
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

pytest.importorskip("jinja2")

from tracers.analysis.trace_facts import analyze  # noqa: E402
from tracers.vocabulary.releases import REFERENCE_TORCH  # noqa: E402
from tracers.analysis.report_model import build_report  # noqa: E402
from tracers.report.fragment import report_body, report_fragment, report_header
from tracers.report.options import Links, RenderOptions
from tracers.report.page import report_page
from tracers.report.versions import check_version
from tracers.report.artifacts import selection_problems  # noqa: E402
from tracers.report.options import parse_parts, split_list  # noqa: E402
from tracers.tracefile.names import TraceName, find_recording  # noqa: E402
from tracers.vocabulary.releases import release_key  # noqa: E402
from tracers.report.folding import TRANSLATOR, Fold, fold_inlined, fold_skipped_frames
from tracers.report.tree import children_by_parent  # noqa: E402
from tracers.tracefile.chrome import load  # noqa: E402
from tracers.tracefile.events import Artifact, RunInfo, Span, Trace  # noqa: E402

pytestmark = pytest.mark.pure

ROOT = Path(__file__).resolve().parents[3]
# Every single-process or single-rank recording; a distributed run's merge (-ranks.json) holds several
# ranks and has its own renderer (tests/tracers/ranks/test_ranks.py).
RECORDED = sorted(path for path in (ROOT / "docs" / "_traces").glob("*/*/*.json")
                  if not path.stem.endswith("-ranks"))
MLP = ROOT / "docs" / "_traces" / "cpu" / REFERENCE_TORCH / "mlp-cpu-cold.json"
BREAKS = ROOT / "docs" / "_traces" / "cpu" / REFERENCE_TORCH / "graph_breaks-cpu-cold.json"


def _body(trace: Trace, facts=None, **options) -> str:  # noqa: ANN001 - TraceFacts
    """The page's parts of one trace's report (``links``, ``options`` as report_body takes them)."""
    return report_body(build_report(trace, facts), **options)

def ident(value: str | None) -> int | str:
    """A span or artifact id as written: recorded ids are ints, hand-edited ones may be anything."""
    return int(value) if value and value.isdigit() else value


class Elements(HTMLParser):
    """Every start tag with its attributes and the data-span of the tree node it sits in."""

    VOID = {"input", "br", "img", "meta", "link", "hr"}

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.stack: list[tuple[str, dict[str, str | None]]] = []
        self.node_parent: dict[int, int | None] = {}  # tree node span id -> enclosing node's span id
        self.open_nodes: dict[int, bool] = {}
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        attributes = dict(attrs)
        self.tags.append((tag, attributes))
        classes = (attributes.get("class") or "").split()
        if "wt-node" in classes:
            enclosing = next((ident(a["data-span"]) for t, a in reversed(self.stack)
                              if "wt-node" in (a.get("class") or "").split()), None)
            span = ident(attributes["data-span"])
            self.node_parent[span] = enclosing
            self.open_nodes[span] = "open" in attributes
        if tag not in self.VOID:
            self.stack.append((tag, attributes))

    def handle_endtag(self, tag: str) -> None:
        while self.stack:
            if self.stack.pop()[0] == tag:
                break

    def handle_data(self, data: str) -> None:
        self.text.append(data)

    def find(self, tag: str, cls: str | None = None) -> list[dict[str, str | None]]:
        return [a for t, a in self.tags if t == tag and (cls is None or cls in (a.get("class") or "").split())]


def parse(html: str) -> Elements:
    parser = Elements()
    parser.feed(html)
    parser.close()
    assert not parser.stack, f"unclosed elements: {[t for t, _ in parser.stack][:5]}"
    return parser


@pytest.fixture(scope="module", params=[path.relative_to(ROOT).as_posix() for path in RECORDED])
def recorded(request) -> Trace:
    return load(ROOT / request.param)


def test_there_are_recorded_traces_of_both_devices():
    assert {path.parts[-3] for path in RECORDED} >= {"cpu", "cuda"}


def test_every_span_is_drawn_coloured_by_stage_with_hover_text(recorded):
    page = parse(_body(recorded, options=RenderOptions(parts=("timeline",))))
    rects = page.find("rect")
    by_id = {span.id: span for span in recorded.spans}
    fills, bars = {}, {}
    for rect in rects:
        span = by_id[int(rect["data-span"])]
        x, width = float(rect["x"]), float(rect["width"])
        assert width > 0 and 0 <= x <= 1000
        fills.setdefault(span.stage, set()).add(rect["fill"])
        bars.setdefault((rect["y"], span.stage), []).append((x, x + width))
    assert all(len(colours) == 1 for colours in fills.values())  # one colour per stage
    assert len({next(iter(c)) for c in fills.values()}) == len(fills)  # and different stages differ
    # A span too short to draw apart from its neighbour shares its bar: same row, same stage, covered.
    origin = min(span.start_ns for span in recorded.spans)
    total = max(span.end_ns for span in recorded.spans) - origin
    row_of = {int(rect["data-span"]): rect["y"] for rect in rects}
    for span in recorded.spans:
        if span.id in row_of:
            continue
        x = (span.start_ns - origin) / total * 1000
        rows = [y for (y, stage) in bars if stage == span.stage]
        assert any(left - 0.01 <= x <= right + 0.01 for y in rows for left, right in bars[(y, span.stage)]), span
    html = _body(recorded, options=RenderOptions(parts=("timeline",)))
    assert html.count("</title></rect>") == len(rects)
    first = recorded.spans[-1]
    assert f"{first.target}" in html  # the hover names the target (escaped text is identical here)
    legend = [item["data-stage"] for item in page.find("li") if "data-stage" in item]
    assert legend == list(analyze(recorded).stage_calls)


def test_hundreds_of_tiny_identical_calls_become_a_few_bars_and_tree_nodes():
    trace = load(ROOT / "docs" / "_traces" / "cpu" / REFERENCE_TORCH / "compiled_autograd-cpu-cold.json")
    timeline = _body(trace, options=RenderOptions(parts=("timeline",)))
    merged = [int(count) for count in re.findall(r"<title>(\d+) calls too short to draw apart", timeline)]
    drawn = timeline.count("</title></rect>")
    by_id = {span.id: span for span in trace.spans}
    nested = sum(span.target == TRANSLATOR and span.parent in by_id and by_id[span.parent].target == TRANSLATOR
                 for span in trace.spans)  # inlined calls: drawn within their outermost translator's bar
    assert merged and drawn + sum(merged) - len(merged) == len(trace.spans) - nested
    assert drawn < len(trace.spans) / 2
    tree = _body(trace, options=RenderOptions(parts=("tree",)))
    groups = [int(count) for count in re.findall(r'title="consecutive calls">×(\d+)<', tree)]
    assert groups and min(groups) >= 4 and max(groups) >= 400
    convert = "torch._dynamo.convert_frame:ConvertFrame.__call__"
    shown = parse(tree).node_parent
    calls = sum(span.target == convert for span in trace.spans)
    assert calls > 400 and sum(span.target == convert for span in trace.spans if span.id in shown) < calls / 10


def test_bars_start_and_grow_with_time():
    trace = load(MLP)
    page = parse(_body(trace, options=RenderOptions(parts=("timeline",))))
    rect = {int(r["data-span"]): r for r in page.find("rect")}
    spans = sorted(trace.spans, key=lambda s: s.start_ns)
    assert float(rect[spans[0].id]["x"]) == 0
    later = [s for s in spans if s.start_ns > spans[0].start_ns]
    assert float(rect[later[-1].id]["x"]) > float(rect[later[0].id]["x"])
    longest = max(trace.spans, key=lambda s: s.duration_ns)
    assert float(rect[longest.id]["width"]) == max(float(r["width"]) for r in rect.values())
    deeper = next(s for s in trace.spans if s.depth == 3)
    assert float(rect[deeper.id]["y"]) > float(rect[next(s for s in trace.spans if s.depth == 0).id]["y"])


def test_graph_breaks_and_recompiles_are_marked_on_the_timeline():
    trace = load(BREAKS)
    page = parse(_body(trace, options=RenderOptions(parts=("timeline",))))
    marks = page.find("line", "wt-mark")
    breaks = [a for a in trace.artifacts if a.kind == "break"]
    recompiles = [a for a in trace.artifacts if a.kind == "recompile"]
    assert len(marks) == len(breaks) + len(recompiles) and breaks and recompiles
    html = _body(trace, options=RenderOptions(parts=("timeline",)))
    assert "<title>graph break (compile 0/0) at docs/examples/graph_breaks.py:10: Failed to trace builtin" in html
    assert [item["data-mark"] for item in page.find("li") if "data-mark" in item] == ["break", "recompile"]
    assert not parse(_body(load(MLP), options=RenderOptions(parts=("timeline",)))).find("line")


def _page_parents(spans):
    """Where each span sits in the folded tree: a translator Dynamo nested inside another is folded into a row (its
    other-stage steps lifted to the outermost translator); a frame Dynamo compiled nothing for folds at the roots."""
    by_id = {span.id: span for span in spans}
    roots, children = children_by_parent(spans)
    folded_roots = {root.id for root in roots} - {r.id for r in fold_skipped_frames(roots, children)
                                                  if not isinstance(r, Fold)}

    def nested(span):
        return span.target == TRANSLATOR and span.parent in by_id and by_id[span.parent].target == TRANSLATOR

    def under_folded_root(span):
        while span.parent in by_id:
            span = by_id[span.parent]
        return span.id in folded_roots

    parents = {}
    for span in spans:
        if nested(span) or under_folded_root(span):
            continue
        parent = by_id.get(span.parent)
        while parent is not None and nested(parent):
            parent = by_id.get(parent.parent)
        parents[span.id] = parent.id if parent is not None else None
    return parents, children, sum(map(nested, spans)) + len(folded_roots)


def test_tree_nesting_matches_span_nesting(recorded):
    html = _body(recorded, options=RenderOptions(parts=("tree",)))
    page = parse(html)
    expected, children, folded = _page_parents(recorded.spans)
    shown = page.node_parent
    assert set(shown) <= set(expected)
    assert all(expected[span] == parent for span, parent in shown.items())
    by_id = {span.id: span for span in recorded.spans}
    # Only calls with something to show inside can open.
    details = {int(a["data-span"]) for a in page.find("details", "wt-node")}
    assert details == {span for span in shown if fold_inlined(by_id[span], children)}
    # A span not shown was one of many calls grouped under a node of its target beside it, and the
    # counts on those nodes add up to every such call.
    hidden_tops = {span for span, parent in expected.items() if span not in shown and (parent is None or parent in shown)}
    for span_id in hidden_tops:
        siblings = [s for s, parent in expected.items() if parent == expected[span_id]]
        assert any(s in shown and by_id[s].target == by_id[span_id].target for s in siblings), by_id[span_id]
    repeats = sum(int(n) - 1 for n in re.findall(r'title="calls that did the same, shown once">×(\d+)<', html))
    assert repeats == len(hidden_tops)
    # Folded translators and skipped frames are counted in fold rows (calls grouped as repeats show one's folds).
    rows = re.findall(r'<details class="wt-fold">.*?<span class="wt-repeat">×(\d+)</span>', html)
    assert (0 < sum(map(int, rows)) <= folded) if folded else not rows


def test_tree_is_open_down_to_each_frame_compile_and_named_stages_on_request():
    trace = load(BREAKS)
    by_id = {span.id: span for span in trace.spans}

    def below_compile(span):
        while span.parent in by_id:
            span = by_id[span.parent]
            if span.target == "torch._dynamo.convert_frame:_compile":
                return True
        return False

    page = parse(_body(trace, options=RenderOptions(parts=("tree",))))
    nodes = {int(a["data-span"]) for a in page.find("details", "wt-node")}
    assert any(page.open_nodes[span] for span in nodes) and not all(page.open_nodes[span] for span in nodes)
    for span, is_open in page.open_nodes.items():
        if span in nodes:
            assert is_open == (not below_compile(by_id[span])), by_id[span].target
    page = parse(_body(trace, options=RenderOptions(parts=("tree",), open_stages=frozenset({"lowering"}))))
    by_id = {span.id: span for span in trace.spans}
    lowering = [span for span in trace.spans if span.stage == "lowering"]
    assert lowering
    for span in lowering:  # every node on the way to a lowering step is open (folded translators are no nodes)
        parent = span.parent
        while parent is not None:
            assert page.open_nodes.get(parent, True), by_id[parent].target  # not a node: folded, or a repeat
            parent = by_id[parent].parent
    guards = [s.id for s in trace.spans if s.stage == "guards" and s.id in page.open_nodes]
    assert not any(page.open_nodes[s] for s in guards)


def test_counts_match_the_analysis(recorded):
    facts = analyze(recorded)
    page = parse(_body(recorded, facts, options=RenderOptions(parts=("counts",))))
    html = _body(recorded, facts, options=RenderOptions(parts=("counts",)))
    shown = dict(re.findall(r'data-count="([^"]+)"[^>]*><strong>(\d+)</strong>', html))
    assert page.find("li")
    hits = sum(c["hit"] for c in facts.cache_counts.values())
    misses = sum(c["miss"] for c in facts.cache_counts.values())
    assert shown == {"compiles": str(len(facts.compiles)), "graphs": str(facts.graph_count),
                     "graph breaks": str(facts.totals().graph_breaks), "recompiles": str(len(facts.recompiles)),
                     "cache hits": str(hits), "cache misses": str(misses)}
    rows = [row["data-compile"] for row in page.find("tr") if "data-compile" in row]
    assert rows == [c.compile_id for c in facts.compiles]  # one row per compile, in order


def test_graph_break_and_recompile_reasons_are_listed():
    trace = load(BREAKS)
    facts = analyze(trace)
    assert facts.graph_breaks and facts.recompiles
    html = _body(trace, facts, options=RenderOptions(parts=("counts",)))
    assert "Failed to trace builtin operator" in html
    assert "size mismatch at index 0" in html


def test_artifacts_grouped_by_compile_highlighted_and_collapsed():
    trace = load(BREAKS)
    facts = analyze(trace)
    html = _body(trace, facts, options=RenderOptions(parts=("artifacts",)))
    page = parse(html)
    groups = [a["data-compile"] for a in page.find("details", "wt-compile")]
    assert groups == [c.compile_id for c in facts.compiles]  # in compile order
    items = page.find("details", "wt-artifact")
    kinds = {a["data-kind"] for a in items}
    # The default selection; the recording was made with depyf installed, so Dynamo's code is there as Python too.
    assert kinds == {"graph", "guards", "break", "recompile", "code", "decompiled"}
    assert not any("open" in a for a in items)  # collapsed by default
    assert not any("open" in a for a in page.find("details", "wt-compile"))  # many compiles: a list first
    assert '<span class="k">def</span>' in html or '<span class="kn">' in html  # coloured as Python
    assert "during</span> <code>OutputGraph.compile_and_call_fx_graph</code>" in html  # tied to its span


def test_artifacts_by_name_kind_and_compile_id():
    trace = load(BREAKS)
    options = RenderOptions(parts=("artifacts",), artifacts=("dynamo_output_graph", "shapes"), compile_id="0/1")
    page = parse(_body(trace, options=options))
    items = page.find("details", "wt-artifact")
    chosen = [a for a in trace.artifacts if a.compile_id == "0/1" and (a.name == "dynamo_output_graph"
                                                                          or a.kind == "shapes")]
    assert sorted(int(a["data-artifact"]) for a in items) == sorted(a.id for a in chosen)
    assert any(a.kind == "shapes" for a in chosen)
    assert [a["data-compile"] for a in page.find("details", "wt-compile")] == ["0/1"]
    assert "open" in page.find("details", "wt-compile")[0]  # a single compile opens its list
    html = _body(trace, options=options)
    assert "_run_module_as_main" not in html  # shape records drop torch's own stack


def test_long_payloads_are_cut_with_a_note():
    trace = load(MLP)
    guards = next(a for a in trace.artifacts if a.kind == "guards")
    limit = 500
    html = _body(trace, options=RenderOptions(parts=("artifacts",), artifacts=("guards",),
                                                    max_payload_chars=limit))
    assert f"Cut at {limit:,} of {len(guards.payload):,} characters" in html
    assert guards.payload[limit:limit + 200].strip().splitlines()[-1] not in html


def _evil_trace() -> Trace:
    evil = '<script>alert("x")</script>'
    info = RunInfo(format_version=1, tool_version="0", torch_version=f'9.9.9"{evil}', torch_git_sha=evil,
                   python=evil, platform=evil, device="cpu", device_name=evil, cache_mode=evil, command=[evil],
                   started_at="", status="error", error=evil, targets_missing={evil: evil})
    spans = [
        Span(1, None, f"user:{evil}", "user", 1, "main", 0, 0, 1_000_000, compile_id=evil, frame=evil),
        Span(2, 1, f'torch.{evil}:"quoted"', evil, 1, "main", 1, 10, 500_000, compile_id=evil, error=evil),
        Span(3, 2, "torch._inductor.graph:GraphLowering.run", "lowering", 1, "main", 2, 20, 100_000),
        Span(f'4"{evil}', 3, "torch._inductor.graph:GraphLowering.run", "lowering", 1, "main", 3, 30, 50_000),
    ]
    artifacts = [
        Artifact(1, "graph", evil, evil, 2, 1, 30, {"k": evil}, payload=f"def f():\n    return '{evil}'\n"),
        Artifact(2, "break", "dynamo_graph_break_reason", evil, 2, 1, 40,
                 {"location": evil, "reason": evil, "title": evil}, payload=evil),
        Artifact(3, "shapes", "create_symbol", evil, None, 1, 50, {"symbol": evil}),
        Artifact(4, "recompile", "recompile_reasons", evil, None, 1, 60, {"reasons": [evil]}, payload=evil),
        Artifact(f'5"{evil}', "graph", "aot_joint_graph", None, 3, 1, 70, {}, payload="x"),  # a hand-edited id
    ]
    return Trace(info, spans, artifacts)


def test_everything_from_the_trace_is_escaped():
    trace = _evil_trace()
    links = Links(chapter_url=lambda stage: f'/c/{stage}"x', source_url=lambda target: f"/s/{target}",
                  download_url='/d/"<script>.json')
    options = RenderOptions(artifacts=("graph", "break", "shapes", "recompile"), caption='<script>"cap"',
                            title="<script>", open_stages=frozenset({"lowering"}))
    html = report_fragment(build_report(trace), links=links, options=options)
    assert "<script" not in html
    assert "&lt;script&gt;" in html and "&quot;" in html
    page = parse(html)  # well formed: no attribute was broken out of
    assert len(page.find("rect")) == 4
    # no attribute value was broken out of: only the renderer's own attribute names appear
    names = {name for _, attrs in page.tags for name in attrs}
    assert names <= {"class", "data-span", "data-stage", "data-count", "data-part", "data-compile", "data-artifact",
                     "data-kind", "data-mark", "href", "title", "style", "open", "download", "x", "y", "x1", "x2",
                     "y1", "y2", "width", "height", "fill", "viewbox", "preserveaspectratio", "role", "aria-label",
                     "data-total-ns"}, names
    text = "".join(page.text)
    assert '<script>alert("x")</script>' in text  # shown to the reader as text


def test_links_to_chapters_and_source_where_the_callables_give_them():
    trace = load(MLP)
    chapters = {"frame": "chapters/02-frame-evaluation.html"}
    sources = {"torch._dynamo.convert_frame:_compile": "https://example.org/convert_frame.py#L1-L9"}
    links = Links(chapter_url=chapters.get, source_url=sources.get)
    html = _body(trace, links=links)
    page = parse(html)
    hrefs = [a["href"] for a in page.find("a") if not a["href"].startswith("#")]  # "#": the icicle's zoom views
    frame_spans = sum(1 for s in trace.spans if s.stage == "frame")
    # every frame span links its chapter from its bar and its tree row, and the legend once
    assert hrefs.count(chapters["frame"]) == 2 * frame_spans + 1
    assert hrefs.count(sources["torch._dynamo.convert_frame:_compile"]) == sum(
        1 for s in trace.spans if s.target == "torch._dynamo.convert_frame:_compile")
    assert set(hrefs) == set(chapters.values()) | set(sources.values())  # nothing else is linked
    unlinked = parse(_body(trace))
    assert not [a for a in unlinked.find("a") if not a["href"].startswith("#")]


def test_header_shows_the_version_and_marks_other_releases():
    trace = load(MLP)
    header = report_header(build_report(trace))
    assert f"torch {trace.info.torch_version}" in header and "wt-not-reference" not in header
    old = dataclasses.replace(trace, info=dataclasses.replace(trace.info, torch_version="2.9.1+cpu"))
    header = report_header(build_report(old), links=Links(download_url="mlp.json"))
    assert "wt-not-reference" in header and "torch 2.9.1+cpu · not the reference" in header
    assert 'href="mlp.json"' in header and "ui.perfetto.dev" in header


def test_version_check_accepts_the_reference_and_declared_releases():
    assert check_version(f"{REFERENCE_TORCH}+cpu", REFERENCE_TORCH).is_reference
    other = check_version("2.11.0+cu130", REFERENCE_TORCH)
    assert not other.expected and "2.11.0+cu130" in other.message
    declared = check_version("2.11.0+cu130", REFERENCE_TORCH, {"2.11.0"})
    assert declared.expected and not declared.is_reference


def test_recordings_prefer_the_reference_then_the_newest(tmp_path):
    for release in ("2.9.0", "2.10.0", REFERENCE_TORCH):
        folder = tmp_path / "cpu" / release
        folder.mkdir(parents=True)
        (folder / "a-cpu-cold.json").write_text("{}")
        if release != REFERENCE_TORCH:
            (folder / "b-cpu-cold.json").write_text("{}")
    assert find_recording(tmp_path, TraceName("a", "cpu", "cold"), REFERENCE_TORCH).release == REFERENCE_TORCH
    assert find_recording(tmp_path, TraceName("b", "cpu", "cold"), REFERENCE_TORCH).release == "2.10.0"
    assert find_recording(tmp_path, TraceName("b", "cpu", "warm"), REFERENCE_TORCH) is None
    assert find_recording(tmp_path, TraceName("a", "cuda", "cold"), REFERENCE_TORCH) is None
    assert release_key("2.10.0") > release_key("2.9.1")


def test_option_lists():
    assert split_list("graph, guards  code") == ("graph", "guards", "code")
    assert parse_parts("tree,counts") == ("tree", "counts")
    with pytest.raises(ValueError, match="unknown part"):
        parse_parts("tree, flames")


def test_selection_problems_name_typos_and_missing_compiles():
    trace = load(BREAKS)
    assert selection_problems([trace], ("graph", "dynamo_output_graph", "recompile_reasons"), "1/1") == []
    problems = selection_problems([trace], ("grahp",), "3/0")
    assert problems[0].startswith("no artifact kind or name 'grahp'")
    assert problems[1] == "no compile '3/0' in this trace (it has 0/0, 0/1, 1/0, 1/1, 2/0, 2/1)"


def test_a_standalone_page_carries_its_styles_and_escapes_its_title():
    trace = load(MLP)
    html = report_page(build_report(trace), links=Links(download_url="mlp-cpu-cold.json"), options=RenderOptions(title="<mlp>"))
    assert html.startswith("<!DOCTYPE html>") and "<title>&lt;mlp&gt; — torch.compile trace</title>" in html
    assert ".wt-trace-legend" in html and ".highlight .k" in html  # the trace CSS and the code colours, inline
    # One script, inline: the timeline's zoom; nothing is fetched.
    assert html.count("<script") == 1 and "<script>" in html and " src=" not in html
    assert 'href="mlp-cpu-cold.json"' in html
    page = parse(html)
    shared = sum(int(n) - 1 for n in re.findall(r"<title>(\d+) calls too short to draw apart", html))
    bars = [rect for rect in page.find("rect") if "wt-bar" in rect.get("class", "")]  # not the icicle's boxes
    by_id = {span.id: span for span in trace.spans}
    nested = sum(span.target == TRANSLATOR and span.parent in by_id and by_id[span.parent].target == TRANSLATOR
                 for span in trace.spans)
    # every span drawn (an inlined call within its outermost translator's bar), slivers sharing a bar
    assert len(bars) + shared == len(trace.spans) - nested

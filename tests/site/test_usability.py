"""The site's ways in (issue 56): symptoms on the front page leading to the chapters' "What to do about it" boxes,
chapter numbers in titles, sidebar and stage map, ids unique on every page, call trees folded, and the boxes of
chapters 15, 18 and 19 with their torch facts checked."""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

from tests.conftest import EXAMPLES, ROOT
from tracers.tracefile.stages import STAGES
from walkthrough.html_ids import fragment_ids, scope_ids
from walkthrough.pipeline import chapter_number, pipeline_boxes

CHAPTERS = ROOT / "docs" / "chapters"
INDEX = ROOT / "docs" / "index.md"
BOX = "{admonition} What to do about it"
LABEL = re.compile(r"^[ \t]*(?:- )?\(([\w-]+)\)=$", re.M)
REF = re.compile(r"\{ref\}`(?:[^`<]*<)?([\w-]+)>?`")


def _boxes() -> dict[str, tuple[str, str]]:
    """{chapter file: (the box's text, the whole page)} for every chapter with a "What to do about it" box."""
    found = {}
    for path in sorted(CHAPTERS.glob("*.md")):
        text = path.read_text(encoding="utf-8")
        if BOX not in text:
            continue
        start = text.index(BOX)
        fence = text[text.rindex("\n", 0, start) + 1:start]  # ::: or ```
        found[path.name] = (text[start:text.index(f"\n{fence}\n", start)], text)
    return found


def _all_labels() -> set[str]:
    return {label for path in CHAPTERS.glob("*.md") for label in LABEL.findall(path.read_text(encoding="utf-8"))}


def _symptoms() -> dict[str, str]:
    """{label: the bullet's text} of the front page's symptom list."""
    text = INDEX.read_text(encoding="utf-8")
    start = text.index("(by-symptom)=")
    section = text[start:text.index("\n## ", text.index("\n## ", start) + 1)]
    bullets = re.split(r"^- ", section, flags=re.M)[1:]
    return {LABEL.search("- " + bullet).group(1): bullet for bullet in bullets}


# -- 1. the way in by symptom ------------------------------------------------------------------------------------

@pytest.mark.pure
def test_the_front_page_lists_the_symptoms_each_leading_to_box_bullets():
    symptoms = _symptoms()
    assert list(symptoms) == ["symptom-recompiles", "symptom-breaks", "symptom-shapes", "symptom-first-call",
                              "symptom-faster", "symptom-crash", "symptom-ranks"]
    in_boxes = {label: name for name, (box, _) in _boxes().items() for label in LABEL.findall(box)}
    expected = {  # the chapters each symptom must reach
        "symptom-recompiles": {"04-guards.md"}, "symptom-breaks": {"05-graph-breaks.md"},
        "symptom-shapes": {"06-dynamic-shapes.md", "14-caches.md", "15-cuda-graphs.md"},
        "symptom-first-call": {"14-caches.md", "17-measuring.md"}, "symptom-faster": {"17-measuring.md"},
        "symptom-crash": {"18-debugging-toolbox.md"}, "symptom-ranks": {"19-distributed.md"},
    }
    for symptom, bullet in symptoms.items():
        targets = REF.findall(bullet)
        assert targets, symptom
        outside = [target for target in targets if target not in in_boxes]
        assert not outside, f"{symptom} links outside the boxes' bullets: {outside}"
        assert expected[symptom] <= {in_boxes[target] for target in targets}, symptom


@pytest.mark.pure
def test_the_symptoms_come_after_the_three_ways_in_and_before_the_pipeline():
    text = INDEX.read_text(encoding="utf-8")
    assert text.index(":::{grid-item-card} Other torch releases") < text.index("(by-symptom)=") < \
        text.index("## The pipeline")


@pytest.mark.pure
def test_every_box_bullet_has_a_stable_label_and_links_into_its_chapters():
    labels = _all_labels()
    boxes = _boxes()
    assert {"04-guards.md", "05-graph-breaks.md", "06-dynamic-shapes.md", "14-caches.md", "15-cuda-graphs.md",
            "17-measuring.md", "18-debugging-toolbox.md", "19-distributed.md"} <= set(boxes)
    for name, (box, page) in boxes.items():
        box_label = re.search(r"\(([\w-]+)\)=\n[^\n]*$", page[:page.index(BOX)])
        assert box_label and box_label.group(1).endswith("-todo"), name  # the box itself can be linked
        bullets = re.split(r"^- ", box, flags=re.M)[1:]
        assert bullets, name
        for bullet in bullets:
            assert LABEL.search("- " + bullet), f"{name}: a bullet without a label: {bullet[:60]}"
            assert set(REF.findall(bullet)) <= labels, name
    assert len(labels) == len(set(labels))


# -- 6. the boxes of chapters 15, 18 and 19, their facts checked --------------------------------------------------

NEW_BOXES = {
    "15-cuda-graphs.md": ("cudagraph_mark_step_begin", "TORCH_LOGS=cudagraphs", "cudagraph_capture_sizes"),
    "18-debugging-toolbox.md": ("TORCHDYNAMO_REPRO_AFTER", "torch.library.opcheck", "compiler_bisector",
                                "TORCHDYNAMO_REPRO_LEVEL=4"),
    "19-distributed.md": ("enable_compiler_collectives", "set_enable_guard_collectives", "drop_last"),
}
# What the boxes say about torch, each a fact the page states with {torch-fact} (checked by verify per release).
NEW_FACTS = {
    "chapters/15-cuda-graphs": ("CUDAGraphTreeManager.format_dealloc_msg", "cudagraph_dynamic_shape_warn_limit",
                                "cudagraph_capture_sizes", "cudagraph_or_error", "cudagraphs_log"),
    "chapters/18-debugging-toolbox": ("repro_after", "repro_level", "minifier_dir", "repro_tolerance",
                                      "_OPCHECK_DEFAULT_UTILS", "CompilerBisector.get_backend", "fallback_random",
                                      "AccuracyError"),
    "chapters/19-distributed": ("enable_compiler_collectives", "guard_collectives_hook", "run_compiler_collective",
                                "process_automatic_dynamic", "drop_last"),
}


@pytest.mark.pure
@pytest.mark.parametrize("name", sorted(NEW_BOXES))
def test_the_new_boxes_lead_their_chapters(name):
    box, page = _boxes()[name]
    assert page.index(BOX) < page.index("\n## ")  # before the first section, as in chapters 4-6
    assert ":class: tip" in box
    for needle in NEW_BOXES[name]:
        assert needle in box, (name, needle)


@pytest.mark.pure
def test_the_new_boxes_torch_claims_are_locked_facts_that_hold_in_the_installed_torch():
    from walkthrough.facts import Claim, evaluate
    from walkthrough.source import open_source
    from walkthrough.symbols import resolver_for

    lock = json.loads((ROOT / "docs" / "walkthrough.lock.json").read_text(encoding="utf-8"))
    resolver = resolver_for(open_source("installed"))
    for page, needles in NEW_FACTS.items():
        claims = [fact["claim"] for fact in lock["facts"] if fact["page"] == page]
        for needle in needles:
            found = [claim for claim in claims if needle in claim]
            assert found, (page, needle)
            for claim in found:
                result = evaluate(resolver, Claim.parse(claim))
                assert result.holds, (claim, result.status, result.actual, result.reason)


@pytest.fixture
def fresh_dynamo():
    torch = pytest.importorskip("torch")
    import torch._dynamo

    torch._dynamo.reset()
    yield torch
    torch._dynamo.reset()


@pytest.mark.torch
def test_the_minifier_writes_a_launcher_where_the_error_says(fresh_dynamo, tmp_path):
    """Chapter 18: with repro_after="dynamo" a failing backend leaves minifier/minifier_launcher.py in the run's debug
    folder, and the error names it."""
    torch = fresh_dynamo
    from torch._dynamo.exc import BackendCompilerFailed

    def failing(gm, example_inputs):  # noqa: ANN001, ANN202 - a backend
        raise RuntimeError("this backend cannot compile")

    with torch._dynamo.config.patch(repro_after="dynamo", debug_dir_root=str(tmp_path)):
        with pytest.raises(BackendCompilerFailed) as failed:
            torch.compile(lambda x: x.sin() + 1, backend=failing)(torch.randn(4))
    written = re.search(r"Minifier script written to (\S+minifier_launcher\.py)", str(failed.value))
    assert written, str(failed.value)
    launcher = Path(written.group(1))
    assert launcher.is_file() and launcher.parent.name == "minifier" and tmp_path in launcher.parents
    assert "backend='failing'" in launcher.read_text()  # the minifier looks the backend up by this name


@pytest.mark.torch
def test_opcheck_passes_chapter_5s_operator_and_catches_a_wrong_fake(fresh_dynamo):
    """Chapter 18's opcheck line, on chapter 5's walkthrough::checksum; and a fake implementation whose output has
    the wrong shape fails the fake-tensor test."""
    import importlib.util

    torch = fresh_dynamo
    if not hasattr(torch.ops.walkthrough, "checksum"):
        spec = importlib.util.spec_from_file_location("example_break_remedies_fixed",
                                                      EXAMPLES / "break_remedies_fixed.py")
        module = importlib.util.module_from_spec(spec)
        with torch._dynamo.config.patch(capture_scalar_outputs=False, capture_dynamic_output_shape_ops=False):
            spec.loader.exec_module(module)  # it switches both settings on at import: undone on leaving
    result = torch.library.opcheck(torch.ops.walkthrough.checksum.default, (torch.randn(16),))
    assert set(result) == {"test_schema", "test_autograd_registration", "test_faketensor",
                           "test_aot_dispatch_dynamic"}
    assert set(result.values()) == {"SUCCESS"}

    if not hasattr(torch.ops.walkthrough_test, "halve"):  # once per process: an operator cannot be defined twice
        def halve(x):  # noqa: ANN001, ANN202 - the schema says the types (annotations are strings in this module)
            return x[: x.shape[0] // 2].clone()

        halve = torch.library.custom_op("walkthrough_test::halve", halve, mutates_args=(),
                                        schema="(Tensor x) -> Tensor")
        halve.register_fake(lambda x: torch.empty_like(x))  # wrong: the real output has half the rows
    result = torch.library.opcheck(torch.ops.walkthrough_test.halve.default, (torch.randn(8),),
                                   raise_exception=False)
    assert result["test_schema"] == "SUCCESS" and result["test_faketensor"] != "SUCCESS"


# -- 2. chapter numbers -------------------------------------------------------------------------------------------

@pytest.mark.pure
def test_the_chapters_toctree_numbers_the_chapters_in_file_order():
    text = INDEX.read_text(encoding="utf-8")
    toctree = text[text.index(":caption: Chapters"):]
    toctree = toctree[:toctree.index("```")]
    assert ":numbered: 1" in toctree and ":glob:" in toctree and "chapters/*" in toctree
    numbers = [chapter_number(f"chapters/{path.stem}") for path in sorted(CHAPTERS.glob("*.md"))]
    assert numbers == list(range(1, len(numbers) + 1))  # glob order gives each file its own number


@pytest.mark.pure
def test_pipeline_boxes_carry_their_chapter_number():
    boxes = pipeline_boxes({stage.chapter for stage in STAGES})
    for box, stage in zip(boxes, STAGES):
        assert box.chapter_number == int(Path(stage.chapter).name.split("-", 1)[0]), stage.id
    assert chapter_number("index") is None


# -- 3. ids --------------------------------------------------------------------------------------------------------

@pytest.mark.pure
def test_scope_ids_prefixes_a_fragments_ids_and_the_references_to_them():
    html = ('<div id="wt-icicle-0"><a href="#wt-icicle-0">zoom</a><a href="#">back</a><a href="#elsewhere">x</a>'
            '<label for="wt-icicle-0" data-sync-id="cpu">l</label><rect fill="url(#wt-icicle-0)"/></div>')
    scoped = scope_ids(html, "wt3-")
    assert fragment_ids(scoped) == ["wt3-wt-icicle-0"]
    assert 'href="#wt3-wt-icicle-0"' in scoped and 'for="wt3-wt-icicle-0"' in scoped
    assert 'url(#wt3-wt-icicle-0)' in scoped
    assert 'href="#"' in scoped and 'href="#elsewhere"' in scoped  # not this fragment's: untouched
    assert 'data-sync-id="cpu"' in scoped  # a data attribute, not an id
    assert scope_ids("<p>no ids</p>", "wt0-") == "<p>no ids</p>"


class _Tree(HTMLParser):
    """Each element's tag, attributes and ancestors, for questions regexes answer badly (what encloses what)."""

    VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr",
            "path", "rect", "circle", "line", "polyline", "polygon", "stop", "use"}

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.stack: list[tuple[str, dict]] = []
        self.elements: list[tuple[str, dict, tuple]] = []

    def handle_starttag(self, tag, attrs):  # noqa: ANN001
        attributes = dict(attrs)
        self.elements.append((tag, attributes, tuple(self.stack)))
        if tag not in self.VOID:
            self.stack.append((tag, attributes))

    def handle_startendtag(self, tag, attrs):  # noqa: ANN001
        self.elements.append((tag, dict(attrs), tuple(self.stack)))

    def handle_endtag(self, tag):  # noqa: ANN001
        for depth in range(len(self.stack) - 1, -1, -1):
            if self.stack[depth][0] == tag:
                del self.stack[depth:]
                return


def _tree(html: str) -> _Tree:
    tree = _Tree()
    tree.feed(html)
    return tree


# -- built for real ------------------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def site(tmp_path_factory):
    pytest.importorskip("furo")
    pytest.importorskip("sphinx_design")
    from tests.sitebuild import build_site

    build = build_site(tmp_path_factory.mktemp("site"))
    assert build.returncode == 0, build.stderr
    return build


def _text(html: str) -> str:
    from html import unescape

    return " ".join(unescape(re.sub(r"<[^>]+>", "", html)).split())


@pytest.mark.sphinx
def test_chapter_titles_and_the_sidebar_carry_the_chapter_numbers(site):
    index = site.page("index")
    start = index.index('<div class="sidebar-tree">')
    index = index[start:index.index("</div>", start)]  # the sidebar, not the toctree in the page's text
    sidebar = re.findall(r'<li class="toctree-l1[^"]*"><a class="reference internal" href="chapters/([\w-]+)\.html">'
                         r'(.*?)</a>', index, flags=re.S)
    assert len(sidebar) == len(list(CHAPTERS.glob("*.md")))
    for stem, label in sidebar:
        number = chapter_number(stem)
        title = re.search(r"<h1>(.*?)</h1>", site.page(f"chapters/{stem}"), flags=re.S).group(1)
        assert _text(title).startswith(f"{number}. "), (stem, _text(title))
        assert _text(label).startswith(f"{number}. "), (stem, _text(label))
        assert _text(title).rstrip("¶") == _text(label)  # the same words in both places


@pytest.mark.sphinx
def test_the_stage_map_labels_each_box_with_its_chapter_not_a_stage_number(site):
    index = site.page("index")
    boxes = re.findall(r'<li class="wt-stage[^"]*">(.*?)</li>', index, flags=re.S)
    assert len(boxes) == len(STAGES) and "wt-stage-number" not in index
    for stage, box in zip(STAGES, boxes):
        label = re.search(r'<span class="wt-stage-chapter">(.*?)</span>', box)
        assert label and label.group(1) == f"ch. {chapter_number(stage.chapter)}", stage.id


@pytest.mark.sphinx
def test_no_page_repeats_an_id_and_every_trace_link_finds_its_target(site):
    """A page's ids are its own: sphinx-design's tabs number theirs, and a trace block's ids are prefixed per block
    (the test page shows "compile time by your code" of one program in a CPU and a CUDA tab)."""
    trace_page = site.page(site.trace_page) if site.trace_page else ""
    assert trace_page.count('class="wt-icicle wt-icicle-zoom"') > 1 or not site.trace_page
    for path in sorted(site.html.rglob("*.html")):
        html = path.read_text(encoding="utf-8")
        ids = fragment_ids(html)
        repeated = sorted({name for name in ids if ids.count(name) > 1})
        assert not repeated, f"{path.relative_to(site.html)}: {repeated[:10]}"
        for target in re.findall(r'href="#(wt[^"]+)"', html):
            assert target in ids, f"{path.relative_to(site.html)}: a link to #{target}, which is not on the page"


@pytest.mark.sphinx
def test_call_trees_start_folded_on_every_chapter_page(site):
    """Every call tree on a chapter page sits inside a closed <details>: its own fold, or a rank's."""
    folded = 0
    for path in sorted((site.html / "chapters").glob("*.html")):
        for tag, attributes, ancestors in _tree(path.read_text(encoding="utf-8")).elements:
            if tag == "section" and attributes.get("data-part") == "tree":
                closed = [a for t, a in ancestors if t == "details" and "open" not in a]
                assert closed, f"{path.name}: a call tree shown open"
                folded += any("wt-tree-fold" in a.get("class", "") for t, a in ancestors if t == "details")
    assert folded >= 20  # the chapters' own trees, each in its fold


@pytest.mark.sphinx
def test_the_symptom_links_land_on_box_bullets_in_the_built_site(site):
    index = site.page("index")
    section = index[index.index('id="by-symptom"'):index.index('id="the-pipeline"')]
    links = re.findall(r'href="(chapters/[\w-]+\.html)#([\w-]+)"', section)
    assert len(links) >= 25
    trees: dict[str, _Tree] = {}
    for page, anchor in links:
        tree = trees.setdefault(page, _tree((site.html / page).read_text(encoding="utf-8")))
        found = [(attributes, ancestors) for _, attributes, ancestors in tree.elements if attributes.get("id") == anchor]
        assert len(found) == 1, (page, anchor)
        attributes, ancestors = found[0]
        assert any(t == "div" and "admonition" in a.get("class", "").split() for t, a in ancestors), (page, anchor)

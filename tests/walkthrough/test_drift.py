"""Verify on synthetic releases that drift the way real ones do: each pattern gets the status it deserves."""

from __future__ import annotations

import json

import pytest

from walkthrough import report
from walkthrough.excerpt import ExcerptSpec
from walkthrough.facts import Claim
from walkthrough.lock import compute_lock
from walkthrough.pages import PageRefs
from walkthrough.source import open_source
from walkthrough.symbols import resolver_for
from walkthrough.verify import verify
from tests.walkthrough_fixtures import BASE, CONFIG_TEXT, DRIVER, PIPELINE, edit, write_tree

pytestmark = pytest.mark.pure

M = "torch._pipeline.driver"
HOOKS = [(f"{M}:entry", "entry"), (f"{M}:process", "lowering"), (f"{M}:legacy_step", "lowering"),
         (f"{M}:Compiler.run", "lowering"), (f"{M}:Compiler.name", "lowering"),
         (f"{M}:Compiler.Options.merge", "lowering"), (f"{M}:Cache.load", "caches"), (f"{M}:helper", "entry")]
PAGE = PageRefs(
    "entry",
    (ExcerptSpec(f"{M}:entry", start="prepared =", end="return", emphasize=("helper(x)",),
                 annotations=(("if options", "only with options"),)),),
    (),
    (Claim.parse("torch._pipeline.config.recompile_cap == 8"), Claim.parse("torch._pipeline.config.budget == 65536")),
)


@pytest.fixture(scope="module")
def baseline(tmp_path_factory):
    return resolver_for(open_source(str(write_tree(tmp_path_factory.mktemp("base")))))


@pytest.fixture(scope="module")
def lock(baseline):
    return compute_lock(baseline, [PAGE], HOOKS)


def run(tmp_path, baseline, lock, driver=DRIVER, **files):
    tree = write_tree(tmp_path / "new", "1.1.0", {PIPELINE: driver, **files})
    return verify(lock, resolver_for(open_source(str(tree))), baseline, HOOKS)


def status(result, name):
    return next(f for f in result.findings if f.name == name)


def test_identical_release_is_all_same(tmp_path, baseline, lock):
    result = run(tmp_path, baseline, lock)
    assert set(result.counts()) == {"SAME"}
    assert result.exit_code == 0


def test_function_that_only_moved(tmp_path, baseline, lock):
    driver = edit(DRIVER, "def helper(value):", "def added():\n    return 0\n\n\ndef helper(value):")
    result = run(tmp_path, baseline, lock, driver)
    moved = status(result, f"{M}:entry")
    assert moved.status == "MOVED"
    assert moved.new.start == moved.old.start + 4
    assert status(result, f"{M}:helper").status == "MOVED"
    assert result.exit_code == 0


def test_docstring_and_comment_edit_is_not_a_change(tmp_path, baseline, lock):
    driver = edit(DRIVER, '"""Compile one frame."""', '"""Compile one frame.\n\n    Now documented at length.\n    """')
    driver = edit(driver, "# Prepare before lowering.", "# Prepare (see the lowering notes).")
    finding = status(run(tmp_path, baseline, lock, driver), f"{M}:entry")
    assert finding.status in ("SAME", "MOVED")
    assert "comments" in finding.note


def test_reformat_is_not_a_change(tmp_path, baseline, lock):
    driver = edit(DRIVER, "    prepared = [helper(x) for x in frame]\n",
                  "    prepared = [\n        helper(x)\n        for x in frame\n    ]\n")
    result = run(tmp_path, baseline, lock, driver)
    assert status(result, f"{M}:entry").status in ("SAME", "MOVED")
    # The excerpt's lines changed layout only: still the same code.
    assert status(result, "entry: " + PAGE.excerpts[0].key).status in ("SAME", "MOVED")


def test_signature_change_is_changed_with_a_diff(tmp_path, baseline, lock):
    driver = edit(DRIVER, "def entry(frame, options=None):", "def entry(frame, options=None, *, strict=False):")
    result = run(tmp_path, baseline, lock, driver)
    finding = status(result, f"{M}:entry")
    assert finding.status == "CHANGED"
    assert "-def entry(frame, options=None):" in finding.diff
    assert "+def entry(frame, options=None, *, strict=False):" in finding.diff
    assert result.exit_code == 1


def test_rename_with_old_name_left_in_a_string(tmp_path, baseline, lock):
    driver = edit(DRIVER, "def legacy_step(state, budget):", "def budget_steps(state, budget):")
    driver += '\n\n# legacy_step was renamed\nRENAMED = {"legacy_step": "budget_steps"}\n'
    finding = status(run(tmp_path, baseline, lock, driver), f"{M}:legacy_step")
    assert finding.status == "MISSING"
    assert all(s.reason != "same name" for s in finding.successors)  # the string is not a definition
    assert finding.successors[0].qualname == f"{M}:budget_steps"
    assert finding.successors[0].reason == "similar code"


SPLIT = '''def order_nodes(graph):
    nodes = list(graph)
    nodes.sort()
    seen = set()
    for node in nodes:
        seen.add(node)
    ordered = [n for n in nodes if n in seen]
    ordered.reverse()
    return ordered


def scale_nodes(ordered):
    total = sum(ordered)
    scaled = [n * 2 for n in ordered]
    kept = [n for n in scaled if n > total % 7]
    merged = kept + ordered
    merged.sort(key=abs)
    out = {n: i for i, n in enumerate(merged)}
    return out
'''


def test_function_split_in_two(tmp_path, baseline, lock):
    start = DRIVER.index("def process(graph):")
    end = DRIVER.index("def legacy_step")
    driver = DRIVER[:start] + SPLIT + "\n\n" + DRIVER[end:]
    driver = edit(driver, "return process(graph)", "return scale_nodes(order_nodes(graph))")
    finding = status(run(tmp_path, baseline, lock, driver), f"{M}:process")
    assert finding.status == "MISSING"
    hinted = {s.qualname for s in finding.successors}
    assert {f"{M}:order_nodes", f"{M}:scale_nodes"} <= hinted


def test_method_that_became_inherited(tmp_path, baseline, lock):
    driver = edit(DRIVER, "    def run(self, graph):\n        self.graph = graph\n        return process(graph)\n\n", "")
    result = run(tmp_path, baseline, lock, driver)
    finding = status(result, f"{M}:Compiler.run")
    assert finding.status == "INHERITED"
    assert finding.note == "now inherited from torch._pipeline.base:Stage.run"
    assert finding.new.file == "torch/_pipeline/base.py"
    assert result.exit_code == 0  # still patchable, so not a failure; but shown


def test_class_renamed(tmp_path, baseline, lock):
    driver = edit(DRIVER, "class Cache:", "class ValueStore:")
    finding = status(run(tmp_path, baseline, lock, driver), f"{M}:Cache.load")
    assert finding.status == "MISSING"
    assert "defines no Cache" in finding.note
    assert finding.successors[0].qualname == f"{M}:ValueStore.load"
    assert finding.successors[0].reason == "same name"


def test_function_moved_to_another_module_is_found_by_name(tmp_path, baseline, lock):
    body = DRIVER[DRIVER.index("def legacy_step"):DRIVER.index("class Compiler")]
    driver = DRIVER.replace(body, "")
    finding = status(run(tmp_path, baseline, lock, driver, **{"torch/_pipeline/steps.py": body}),
                     f"{M}:legacy_step")
    assert finding.status == "MISSING"
    assert finding.successors[0].qualname == "torch._pipeline.steps:legacy_step"


def test_excerpt_anchor_gone_is_changed(tmp_path, baseline, lock):
    driver = edit(DRIVER, "    if options:\n        prepared.append(options)\n", "")
    finding = status(run(tmp_path, baseline, lock, driver), "entry: " + PAGE.excerpts[0].key)
    assert finding.status == "CHANGED"
    assert "'if options' not found" in finding.note


def test_fact_changed_and_missing(tmp_path, baseline, lock):
    config = edit(CONFIG_TEXT, "recompile_cap = 8", "recompile_cap = 16")
    config = edit(config, "budget: int = 64 * 1024\n", "")
    result = run(tmp_path, baseline, lock, **{"torch/_pipeline/config.py": config})
    changed = status(result, "torch._pipeline.config.recompile_cap == 8")
    assert changed.status == "CHANGED" and "has 16" in changed.note
    assert status(result, "torch._pipeline.config.budget == 65536").status == "MISSING"


def test_reports_group_by_chapter_and_carry_every_field(tmp_path, baseline, lock):
    driver = edit(DRIVER, "class Cache:", "class ValueStore:")
    driver = edit(driver, "def entry(frame, options=None):", "def entry(frame, options=None, *, strict=False):")
    result = run(tmp_path, baseline, lock, driver, **{"torch/_pipeline/base.py": BASE})
    text = report.terminal(result)
    assert text.index("\nentry\n") < text.index("\nlowering\n") < text.index("\ncaches\n")
    assert "↳ same name: torch._pipeline.driver:ValueStore.load" in text
    data = json.loads(report.to_json(result))
    by_name = {s["qualname"]: s for s in data["symbols"]}
    assert by_name[f"{M}:Cache.load"]["status"] == "MISSING"
    assert by_name[f"{M}:entry"]["diff"].startswith("--- 1.0.0+cpu/")
    assert set(by_name[f"{M}:entry"]) >= {"qualname", "status", "old", "new", "diff", "successors"}
    # The excerpt starts below the signature, so it still holds.
    assert data["excerpts"][0]["status"] == "SAME" and len(data["facts"]) == 2
    assert data["exit_code"] == 1
    md = report.markdown(result, diff_text=False)
    assert "## caches" in md and "strict" not in md  # sizes and links only, no code
    assert "https://github.com/pytorch/pytorch/blob/" + "a" * 40 in md
    assert "strict=False" in report.markdown(result)


def test_hook_added_after_lock_is_still_checked(tmp_path, baseline, lock):
    hooks = [*HOOKS, (f"{M}:Cache.store", "caches")]
    tree = write_tree(tmp_path / "new", "1.1.0", {PIPELINE: edit(DRIVER, "class Cache:", "class ValueStore:")})
    result = verify(lock, resolver_for(open_source(str(tree))), baseline, hooks)
    assert status(result, f"{M}:Cache.store").status == "MISSING"

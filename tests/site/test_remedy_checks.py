"""Issue 56's corrections and remedies, each an experiment of docs/examples/remedy_checks.py: the chapters say what the
recording shows (pure), the installed torch still does it (torch), and chapter 6's false claim about dynamic=False
(that it forbids symbols) cannot come back unnoticed."""

from __future__ import annotations

import importlib.util
import json
import re
import sys

import pytest

from tests.conftest import EXAMPLES, ROOT

CHAPTERS = ROOT / "docs" / "chapters"
RECORDED = ROOT / "docs" / "_outputs" / "2.13.0" / "remedy_checks.json"


def _page(name: str) -> str:
    return (CHAPTERS / name).read_text(encoding="utf-8")


def _recorded() -> dict[str, dict[tuple[str, str], str]]:
    """{table: {(claim, run): what torch 2.13 did}} from the recording the chapters show."""
    tables = json.loads(RECORDED.read_text(encoding="utf-8"))["tables"]
    return {name: {(claim, run): result for claim, run, result in table["rows"]} for name, table in tables.items()}


def _sentences(text: str) -> list[str]:
    flat = " ".join(text.split())
    return re.split(r"(?<=[.;:])\s+(?=[A-Z`(*])", flat)


# -- chapter 6: dynamic=False ------------------------------------------------------------------------------------

@pytest.mark.pure
@pytest.mark.parametrize("path", sorted(CHAPTERS.glob("*.md")), ids=lambda path: path.stem)
def test_no_chapter_says_dynamic_false_forbids_symbols(path):
    """A sentence about dynamic=False that says it forbids symbols (or never makes a dynamic kernel) is the false
    claim, unless it is the page saying that torch's docstring says so."""
    wrong = re.compile(r"forbids? (?:symbols|dynamic)|symbols entirely|(?:never|no \w+ ever) (?:generates?|makes?|gets?|has) "
                       r"(?:a )?(?:symbol|dynamic)|no symbols? (?:at all|ever)|always static|every size (?:is )?static", re.I)
    for sentence in _sentences(path.read_text(encoding="utf-8")):
        said = re.sub(r"\b(?:does|do|it|and) not \w+", "", sentence)  # "it does not forbid symbols" is right
        if "dynamic=False" in said and wrong.search(said) and "docstring" not in said:
            pytest.fail(f"{path.name}: {sentence[:200]}")


@pytest.mark.pure
def test_chapter_6_says_what_dynamic_false_does_with_its_facts():
    page = _page("06-dynamic-shapes.md")
    bullet = page[page.index("(ch6-dynamic-false)="):]
    bullet = bullet[:bullet.index("\n- ") if "\n- " in bullet else len(bullet)]
    assert "turns automatic dynamic off" in bullet and "not forbid symbols" in " ".join(bullet.split())
    assert 'contains "constraint_size is not None or marked_dynamic"' in bullet  # the marked branch comes first
    assert 'torch:compile contains "When this is False, we will NEVER generate dynamic kernels"' in bullet
    assert "docstring gets this wrong" in bullet
    assert "{torch-output} remedy_checks" in page and ":tables: ch6" in page
    lock = json.loads((ROOT / "docs" / "walkthrough.lock.json").read_text(encoding="utf-8"))
    claims = {fact["claim"] for fact in lock["facts"] if fact["page"] == "chapters/06-dynamic-shapes"}
    assert 'torch:compile contains "When this is False, we will NEVER generate dynamic kernels"' in claims


@pytest.mark.pure
def test_the_recording_shows_one_compile_for_a_marked_dimension_under_dynamic_false():
    ch6 = _recorded()["ch6"]
    assert ch6[("dynamic=False, unmarked", "sizes 8, 10, 12")] == "3 compiles"
    assert ch6[("dynamic=False, mark_dynamic(x, 0)", "sizes 8, 10, 12")] == "1 compile"


@pytest.mark.pure
def test_the_recording_backs_chapter_6s_remedies():
    ch6 = _recorded()["ch6"]
    assert ch6[("mark_dynamic(x, 0, min=2, max=16)", "sizes 8, 10, 12")] == "1 compile"
    assert ch6[("mark_dynamic(x, 0, min=2, max=16)", "size 32")] == "raised ConstraintViolationError"
    assert ch6[("TORCH_COMPILE_DYNAMIC_SOURCES=\"L['x']\"", "sizes 8, 10, 12, no mark in the code")] == "1 compile"
    assert ch6[("default", "sizes 8, 10, 12, 14")] == "2 compiles"
    assert ch6[('set_stance("eager_then_compile")', "sizes 8, 10, 12, 14, no mark")] == "1 compile"
    assert ch6[("SGD step, lr a float", "lr changed before each of 5 steps")] == "2 compiles"
    assert ch6[("SGD step, lr a 0-d tensor", "lr changed in place before each of 5 steps")] == "1 compile"
    page = _page("06-dynamic-shapes.md")
    for said in ("Sizes 8, 10 and 12 shared one\n  compile", "`ConstraintViolationError`", "sizes 8, 10, 12 and 14 took one compile",
                 "two compiles, the second symbolic", "(ch6-todo-outside)=", "lr=torch.tensor(0.01)"):
        assert said in page, said


# -- live: the installed torch still does what the recording shows ------------------------------------------------

@pytest.fixture(scope="module")
def checks():
    pytest.importorskip("torch")
    spec = importlib.util.spec_from_file_location("remedy_checks", EXAMPLES / "remedy_checks.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["remedy_checks"] = module  # Dynamo imports a traced function's module by name
    spec.loader.exec_module(module)  # registers its custom operator once for the module's tests
    yield module
    import torch._dynamo

    torch._dynamo.reset()
    sys.modules.pop("remedy_checks", None)


@pytest.mark.torch
def test_dynamic_false_still_compiles_a_marked_dimension_once(checks):
    assert checks.dynamic_false_unmarked() == 3
    assert checks.dynamic_false_marked() == 1


@pytest.mark.torch
def test_marks_with_ranges_sources_and_eager_then_compile(checks):
    assert checks.marked_with_range() == 1
    assert checks.marked_with_range_outside() == "ConstraintViolationError"
    assert checks.default_four_sizes() == 2
    assert checks.eager_then_compile() == 1
    assert checks.learning_rate(as_tensor=False) == 2
    assert checks.learning_rate(as_tensor=True) == 1


@pytest.mark.torch
def test_fail_on_recompile_refuses_a_first_compile_and_isolate_recompiles_gives_each_call_a_limit(checks):
    assert checks.fail_on_recompile_first_call() == "RuntimeError"
    assert checks.instances(isolate=False) == 8  # the recompile limit, shared by every call of one code
    assert checks.instances(isolate=True) == 12


@pytest.mark.torch
def test_fullgraph_alone_traces_item_and_masks(checks):
    import torch

    assert checks.graph_breaks(checks.share, torch.randn(4), fullgraph=True) == 0
    assert checks.graph_breaks(checks.positives, torch.randn(8), fullgraph=True) == 0
    assert checks.graph_breaks(checks.share, torch.randn(4)) == 1


@pytest.mark.torch
def test_custom_op_needs_register_autograd_and_nonstrict_trace_freezes_a_global(checks):
    assert checks.custom_op_with_grad() == "BackendCompilerFailed"
    checks.register_autograd()
    assert checks.custom_op_with_grad() == "none"
    assert checks.nonstrict_global() == (3.0, 3.0)  # eager: 3.0, then 4.0
    assert checks.nonstrict_argument() == (3.0, 4.0)  # an argument is seen at the call site


@pytest.mark.torch
def test_nested_compile_region_calls_one_subgraph(checks):
    frames, inline, calls, subgraphs = checks.nested_region()
    assert (frames, subgraphs) == (1, 1) and inline + calls == 6 and calls >= 5


# -- chapters 4, 5 and 14: the recording, and the prose that reads it -----------------------------------------------

@pytest.mark.pure
def test_chapter_4_says_fail_on_recompile_refuses_a_first_compile_and_offers_isolate_recompiles():
    ch4 = _recorded()["ch4"]
    assert ch4[('set_stance("fail_on_recompile") raises on a first compile too',
                "one function, first call under the stance")] == "raised RuntimeError"
    assert ch4[("instances share one recompile limit", "12 instances, int factors 2-13, one torch.compile each")] \
        == "8 compiles, the rest ran eagerly"
    assert ch4[("isolate_recompiles=True: a cache and limit per torch.compile call",
                "the same, isolate_recompiles=True")] == "12 compiles, none eager"
    page = " ".join(_page("04-guards.md").split())
    assert "the stance refuses *any* compile, a frame's first included" in page
    assert "the stance refuses a frame's first compile too" in page  # the box says it too
    assert "isolate_recompiles=True" in page[page.index("(ch4-todo-instances)="):page.index("(ch4-todo-hook)=")]
    assert "eight compiles and four instances eager without it; twelve compiles and none eager with it" in page


@pytest.mark.pure
def test_chapter_5_says_what_fullgraph_does_alone_and_what_custom_op_and_nonstrict_trace_need():
    ch5 = _recorded()["ch5"]
    assert ch5[(".item() under fullgraph=True alone", "x * x.sum().item(), no setting")] == "0 graph breaks"
    assert ch5[(".item() without fullgraph", "the same, fullgraph off")] == "1 graph break"
    assert ch5[("a boolean mask under fullgraph=True alone", "x[x > 0] * 2, no setting")] == "0 graph breaks"
    assert ch5[("custom_op with register_fake only", "an input that requires grad, aot_eager")] \
        == "raised BackendCompilerFailed"
    assert ch5[("custom_op with register_autograd too", "the same")] == "compiled"
    assert ch5[("nonstrict_trace reads a global once", "x * SCALE + 1, SCALE 2.0 then 3.0, aot_eager")] \
        == "3, then 3 (eager: 3, then 4)"
    assert ch5[("nonstrict_trace given the value as an argument", "the same, SCALE passed in")] \
        == "3, then 4 (eager: 3, then 4)"
    page = " ".join(_page("05-graph-breaks.md").split())
    assert "`fullgraph=True` turns both on for its own compile" in page
    assert 'contains "allow_scalar_outputs=one_graph or config.capture_scalar_outputs,"' in page
    assert "without `register_autograd` the operator's backward" in page
    assert "3 and then 3 again under `aot_eager`, where eager gives 3 and then 4" in page
    assert "no `fullgraph=True`, so that its recording shows what the settings do alone" in page
    fixed = (EXAMPLES / "break_remedies_fixed.py").read_text(encoding="utf-8")
    assert "fullgraph=True)" not in fixed  # the recording shows the settings, not fullgraph's own effect


@pytest.mark.pure
def test_the_recorded_fixed_program_ran_without_fullgraph():
    from tracers.tracefile.chrome import load

    trace = load(ROOT / "docs" / "_traces" / "cpu" / "2.13.0" / "break_remedies_fixed-cpu-cold.json")
    payloads = [a.payload or "" for a in trace.artifacts if a.name == "dynamo_output_graph"]
    assert len(payloads) == 4 and '"Sym(u0)" = sum_1.item()' in payloads[0]
    text = (ROOT / "docs" / "_traces" / "cpu" / "2.13.0" / "break_remedies_fixed-cpu-cold.json").read_text(encoding="utf-8")
    calls = re.findall(r'"loc":"(results\.append\(torch\.compile\([^"]*)"', text)
    assert calls and not any("fullgraph" in call for call in calls)  # recorded from the program as it is now


@pytest.mark.pure
def test_chapter_14_puts_nested_compile_region_beside_regional_compilation():
    ch14 = _recorded()["ch14"]
    assert ch14[("nested_compile_region on the block's forward", "6 blocks, the model compiled whole")] \
        == "1 graph: 1 block inline, 5 invoke_subgraph calls of 1 subgraph"
    page = _page("14-caches.md")
    assert page.index("(ch14-regional)=") < page.index("(ch14-nested)=") < page.index("## Try it yourself")
    box = page[page.index("(ch14-todo-slow)="):page.index("## Every cache")]
    assert "nested_compile_region" in box and "<ch14-nested>" in box
    assert "One graph, one subgraph traced, five calls of it" in page and ":tables: ch14" in page


# -- chapter 19: compiler collectives ------------------------------------------------------------------------------

@pytest.mark.pure
def test_chapter_19_s_compiler_collectives_say_what_both_recordings_show():
    from walkthrough.outputs import load

    rows = {release: {(row[0], row[1]): row[3] for row in load(
        ROOT / "docs" / "_outputs" / release / "compiler_collectives.json").tables["ranks"].rows}
        for release in ("2.11.0", "2.13.0")}
    off, on = "enable_compiler_collectives = False", "enable_compiler_collectives = True"
    for release in rows:  # off: each rank specialises on its own size
        assert rows[release][(off, "0")] == "(8,)" and rows[release][(off, "1")] == "(10,)"
    gpu, cpu = rows["2.11.0"], rows["2.13.0"]
    assert gpu[(on, "0")] == gpu[(on, "1")] and gpu[(on, "0")].startswith("(s")  # one symbol on both ranks
    assert all("ZeroDivisionError" in cpu[(on, rank)] for rank in "01")  # no accelerator to pick
    page = " ".join(_page("19-distributed.md").split())
    assert "with it on, both compiled for `(s77,)` in their first compile" in page
    assert 'contains "compile_pg.rank() % torch.accelerator.device_count()"' in page
    box = page[page.index("(ch19-todo-compiler)="):page.index("(ch19-todo-timeout)=")]
    assert "on a CPU-only machine the compile fails" in box


@pytest.mark.torch
def test_a_hook_on_a_compiled_builtin_is_traced_and_a_late_one_ignored_unless_hook_guards_are_on(checks):
    import torch

    assert checks.hook_on_compiled(checks.Wrapper) == (False, True)  # outside the graph, applied
    assert checks.hook_on_compiled(lambda: torch.nn.Linear(4, 4)) == (True, False)  # traced; silently ignored
    with torch._dynamo.config.patch(skip_nnmodule_hook_guards=False):  # the box's remedy holds for it too
        assert checks.hook_on_compiled(lambda: torch.nn.Linear(4, 4)) == (True, True)


@pytest.mark.pure
def test_chapter_4_tells_a_builtin_s_hooks_from_your_module_s():
    ch4 = _recorded()["ch4"]
    run = "registered before the first call; another after it"
    assert ch4[("a hook on the compiled module (one of yours) itself", run)] \
        == "outside the module graph; the late one applied"
    assert ch4[("a hook on the compiled torch.nn.Linear itself", run)] == "in the module graph; the late one silently ignored"
    page = " ".join(_page("04-guards.md").split())
    assert "a hook on a compiled `Linear` was traced into its graph, and one added after the first call was silently " \
           "ignored" in page
    assert 'contains "self.forward = self.dynamo_ctx(external_utils.wrap_inline(self._orig_mod))"' in page


@pytest.mark.pure
def test_chapter_6_says_a_symbol_s_number_depends_on_which_size_came_first():
    ch6 = _recorded()["ch6"]
    claim = "symbol names: a and ab both hash to 97"
    assert ch6[(claim, "dynamic=True, a used first")] == "a: s97, ab: s98"
    assert ch6[(claim, "dynamic=True, ab used first")] == "a: s98, ab: s97"
    page = " ".join(_page("06-dynamic-shapes.md").split())
    assert "in every compile of every frame" not in page  # the old, too strong claim
    assert 'contains "while attempt in self.unique_ids: attempt += 1"' in page


@pytest.mark.torch
def test_symbol_numbers_follow_the_order_sizes_are_met(checks):
    assert checks.symbol_names(checks.sum_a_first) == "a: s97, ab: s98"
    assert checks.symbol_names(checks.sum_ab_first) == "a: s98, ab: s97"


@pytest.mark.pure
def test_chapter_14_says_mega_cache_carries_precompile_when_it_is_on():
    ch14 = _recorded()["ch14"]
    claim = "save_cache_artifacts(): the kinds of entry in its bytes"
    assert ch14[(claim, "a fresh process, aot_eager, TORCH_CACHING_PRECOMPILE=0")] == "none"
    assert ch14[(claim, "a fresh process, aot_eager, TORCH_CACHING_PRECOMPILE=1")] == "precompile"
    page = " ".join(_page("14-caches.md").split())
    assert "`torch.compiler.save_cache_artifacts` does not" not in page  # the old claim: it does, with precompile on
    assert 'contains "PrecompileContext.save_to_dynamo_cache()"' in page


@pytest.mark.torch
def test_mega_cache_bytes_hold_precompile_entries_only_with_the_switch(checks):
    assert checks.mega_cache_kinds(precompile=False) == ""
    assert checks.mega_cache_kinds(precompile=True) == "precompile"


# -- chapter 17: the payback arithmetic, from its recording ---------------------------------------------------------

@pytest.mark.pure
def test_chapter_17_s_break_even_numbers_are_the_recordings_arithmetic():
    """The break-even calls are the one-time cost over the per-call gain against the paired eager time; the prose's
    numbers (seven hundred at 4096, five times fewer warm, some 1,200 against eager's own process) follow from it."""
    import math

    data = json.loads((ROOT / "docs" / "_measure" / "cpu" / "2.13.0" / "measure_mlp.json").read_text(encoding="utf-8"))
    rows = {(r["mode"], r["batch_size"]): r for r in data["results"]}
    for batch in (1, 16, 256, 4096):
        compiled, eager = rows[("default", batch)], rows[("eager", batch)]
        gain = compiled["eager_paired_s"] - compiled["steady_s"]
        assert compiled["break_even_cold"] == math.ceil(compiled["one_time_cold_s"] / gain)
        assert 4 <= compiled["break_even_cold"] / compiled["break_even_warm"] <= 5.5  # "about five times fewer"
    big = rows[("default", 4096)]
    assert 650 <= big["break_even_cold"] <= 750  # "some seven hundred calls"
    assert big["break_even_cold"] * big["steady_s"] < 60  # "within a minute"
    own = big["one_time_cold_s"] / (rows[("eager", 4096)]["steady_s"] - big["steady_s"])
    assert 1100 <= own <= 1300  # "some 1,200 calls" against eager's own process
    assert rows[("default", 1)]["break_even_cold"] > 100_000  # "hundreds of thousands"
    page = " ".join(_page("17-measuring.md").split())
    assert "some seven hundred calls of 61 ms" in page and "would need some 1,200 calls" in page


# -- chapter 15: the mode table -------------------------------------------------------------------------------------

@pytest.mark.pure
def test_chapter_15_s_mode_table_says_what_each_mode_sets():
    page = _page("15-cuda-graphs.md")
    table = page[page.index("| mode | sets |"):page.index("\n\n", page.index("| mode | sets |"))]
    modes = re.findall(r"^\| `([\w-]+)` \|", table, flags=re.M)
    assert modes == ["default", "lite", "reduce-overhead", "max-autotune-no-cudagraphs", "max-autotune"]
    for mode in modes[2:]:  # each mode's settings, as list_mode_options holds them, a checked fact
        assert f"""contains '"{mode}": {{""" in table, mode
    assert _recorded()["ch15"][('mode="lite"', "(sin(x) * 2 + 1).relu().sum(), Inductor's output code")] \
        == "0 generated kernels, 15 ATen calls"
    assert "no generated kernel, fifteen ATen calls" in table


@pytest.mark.torch
def test_lite_mode_generates_no_kernel(checks):
    kernels, aten = checks.lite_mode()
    assert kernels == 0 and aten > 0


# -- every release: the experiments recorded with each, the differences the pages say -------------------------------

# What a release did differently from 2.13, each said on the page where the check is shown.
RELEASE_DRIFT = {
    "2.11.0": {("isolate_recompiles=True: a cache and limit per torch.compile call", "the same, isolate_recompiles=True"):
               "failed: TypeError",  # the argument is new in 2.13
               ("nested_compile_region on the block's forward", "6 blocks, the model compiled whole"):
               "1 graph: 0 block inline, 6 invoke_subgraph calls of 2 subgraphs"},
}
RELEASE_DRIFT["2.12.1"] = RELEASE_DRIFT["2.11.0"]


@pytest.mark.pure
@pytest.mark.parametrize("release", ["2.11.0", "2.12.1", "2.14.1", "2.15.0"])
def test_each_release_s_experiments_match_the_reference_but_for_the_drift_the_pages_say(release):
    from walkthrough.outputs import load

    ours = _recorded()
    theirs = load(ROOT / "docs" / "_outputs" / release / "remedy_checks.json")
    assert theirs.torch_version.startswith(release)
    drift = RELEASE_DRIFT.get(release, {})
    for name, rows in ours.items():
        got = {(claim, run): result for claim, run, result in theirs.tables[name].rows}
        assert set(got) == set(rows), (release, name)  # the same checks, so the release pages line up
        for key, result in rows.items():
            assert got[key] == drift.get(key, result), (release, key, got[key])
    if drift:
        assert "2.11 and 2.12 made the first block a call too" in _page("14-caches.md")


@pytest.mark.torch
def test_compiler_collectives_fail_the_compile_on_a_cpu_only_machine(tmp_path):
    """What chapter 19's reference recording shows: off, each rank specialises on its own size; on, with no
    accelerator to pick, the compile fails (a later torch that fixes it fails this test, and the page must change)."""
    import subprocess

    torch = pytest.importorskip("torch")
    if torch.accelerator.device_count():
        pytest.skip("a machine with an accelerator: the exchange works there (the 2.11 GPU recording)")
    out = tmp_path / "tables.json"
    subprocess.run([sys.executable, str(EXAMPLES / "compiler_collectives.py"), "--json", str(out)], check=True,
                   capture_output=True, text=True, timeout=300)
    rows = {(row[0], row[1]): row[3] for row in json.loads(out.read_text(encoding="utf-8"))["tables"]["ranks"]["rows"]}
    assert rows[("enable_compiler_collectives = False", "0")] == "(8,)"
    assert rows[("enable_compiler_collectives = False", "1")] == "(10,)"
    assert all("ZeroDivisionError" in rows[("enable_compiler_collectives = True", rank)] for rank in "01")


@pytest.mark.pure
@pytest.mark.parametrize("release", ["2.11.0", "2.12.1", "2.14.1", "2.15.0"])
def test_every_locked_fact_of_every_page_is_in_each_release_s_verify_report(release):
    """A fact added to a page without verify re-run on each release is checked nowhere but the reference (the boxes
    of chapters 15, 18 and 19 were, until this issue): the recorded reports must hold every locked fact."""
    from tests.site.release_facts import report_facts

    lock = json.loads((ROOT / "docs" / "walkthrough.lock.json").read_text(encoding="utf-8"))
    report = report_facts(release)
    missing = [f"{fact['page']}: {fact['claim']}" for fact in lock["facts"]
               if fact["claim"] not in report.get(fact["page"], {})]
    assert not missing, f"re-run verify against {release}: {missing[:5]}"

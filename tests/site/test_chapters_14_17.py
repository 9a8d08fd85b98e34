"""Chapters 14 and 17 and the front page against their recordings and torch (issue 41): the false PGO claim stays
gone, the corrected claims hold in the recorded data, and each remedy's recording shows it working."""

from __future__ import annotations

import re

import pytest

from tests.conftest import ROOT
from tests.site.release_facts import assert_facts_hold
from walkthrough.outputs import load as load_output

OUTPUTS = ROOT / "docs" / "_outputs" / "2.13.0"
CHAPTERS = ROOT / "docs" / "chapters"
CACHES = CHAPTERS / "14-caches.md"
MEASURING = CHAPTERS / "17-measuring.md"
INDEX = ROOT / "docs" / "index.md"
MEASURE_TRACE = ROOT / "docs" / "_traces" / "cpu" / "2.13.0" / "measure_mlp-cpu-cold.json"


def _rows(example: str, table: str) -> dict[str, tuple[str, ...]]:
    """A recorded table's rows by their first cell."""
    return {row[0]: row[1:] for row in load_output(OUTPUTS / f"{example}.json").tables[table].rows}


def _facts(page) -> list[str]:  # noqa: ANN001 - a Path
    from walkthrough.pages import scan_docs

    (refs,) = [r for r in scan_docs(ROOT / "docs") if r.page == page]
    return [claim.text for claim in refs.facts]


# -- the false claim: PGO writes its profile after every compile, not at the end of the process ----------------

@pytest.mark.pure
def test_pgo_is_not_said_to_write_at_the_end_of_the_process():
    text = " ".join(CACHES.read_text(encoding="utf-8").split())
    assert not re.search(r"(at|by) the end of the process", text)
    assert not re.search(r"(when|as) the process (ends|exits)[^,]*writ", text)
    assert 'torch._dynamo.convert_frame:_compile contains "put_code_state()"' in _facts("chapters/14-caches")


@pytest.mark.pure
def test_the_profile_is_written_after_every_compile_in_the_source():
    """put_code_state is called inside _compile, after the compile succeeded — the code the chapter's fact names."""
    from walkthrough.facts import Claim, evaluate
    from walkthrough.source import open_source
    from walkthrough.symbols import resolver_for

    installed = resolver_for(open_source("installed"))
    compile_ = installed.resolve("torch._dynamo.convert_frame:_compile").text
    after = compile_.split("compile_inner(code, one_graph, hooks)", 1)[1]
    assert after.index("put_code_state()") < after.index("return guarded_code")
    assert evaluate(installed, Claim.parse('torch._dynamo.pgo:put_code_state contains "put_local_code_state(cache_key)"')).holds


@pytest.mark.pure
def test_the_recording_finds_the_profile_while_the_process_runs():
    rows = _rows("pgo_written_when", "written")
    first, after_recompile = rows["TORCH_COMPILE_JOB_ID=demo"]
    assert first.startswith("code_state_demo_None_.pkl") and after_recompile.startswith("code_state_demo_None_.pkl")
    assert first != after_recompile  # rewritten by the recompile: the size is now marked dynamic
    assert rows["no job id"] == ("none", "none")
    assert rows["TORCH_COMPILE_JOB_ID=demo, TORCH_COMPILE_CACHE_KEY_TAG=v2"][0].startswith("code_state_demo_None_v2.pkl")
    assert rows["TORCH_COMPILE_JOB_ID=demo, TORCHINDUCTOR_FORCE_DISABLE_CACHES=1"] == ("none", "none")


@pytest.mark.torch
def test_the_profile_exists_right_after_the_first_compile(tmp_path, monkeypatch):
    """The experiment itself, in this process: a job id, one compile, and the file is there before anything exits."""
    import torch

    monkeypatch.setenv("TORCHINDUCTOR_CACHE_DIR", str(tmp_path))
    torch._dynamo.reset()
    with torch.compiler.config.patch(job_id="ch14-test"):
        torch.compile(lambda x: x.cos() + 1, backend="eager")(torch.randn(4))
        written = list((tmp_path / "dynamo").glob("code_state_ch14-test*.pkl"))
    torch._dynamo.reset()
    assert written, "no PGO profile right after the first compile"


# -- chapter 14: what bypasses which cache; the remedies, recorded --------------------------------------------

@pytest.mark.pure
def test_the_operator_check_is_the_aotautograd_caches_not_the_fx_graph_caches():
    fx_row = next(line for line in CACHES.read_text(encoding="utf-8").splitlines() if "| **FX graph cache** |" in line)
    aot_row = next(line for line in CACHES.read_text(encoding="utf-8").splitlines() if "| **AOTAutograd cache** |" in line)
    assert "unsafe operator" not in fx_row and "not known to be safe" in aot_row
    facts = _facts("chapters/14-caches")
    assert any("check_node_safe contains" in fact for fact in facts)
    assert any("CacheabilityValidator._check_frozen_params" in fact for fact in facts)


@pytest.mark.pure
def test_each_cache_remedy_does_what_the_chapter_says():
    rows = {row[0]: row[2:] for row in load_output(OUTPUTS / "cache_remedies.json").tables["remedies"].rows}
    aot, fx, built = 0, 1, 2
    assert (rows["1"][aot], rows["1"][fx]) == ("miss", "miss")
    assert (rows["2"][aot], rows["2"][fx], rows["2"][built]) == ("hit", "hit", "0 + 0")
    assert (rows["3"][aot], rows["3"][fx]) == ("miss", "miss") and rows["3"][built].startswith("0 +")  # tag: keys only
    assert (rows["4"][aot], rows["4"][fx]) == ("not looked up", "not looked up") and rows["4"][built] != "0 + 0"
    assert (rows["5"][aot], rows["5"][fx]) == ("miss", "miss")
    assert (rows["6"][aot], rows["6"][fx]) == ("hit", "hit")  # Mega-Cache bytes loaded into an empty directory
    assert "Mega-Cache saved 1 aot_autograd, 1 inductor" in load_output(OUTPUTS / "cache_remedies.json").stdout
    kernels, tests = (int(n) for n in rows["6"][built].split(" + "))
    assert kernels >= 1 and tests >= 1  # ...and on CPU the C++ libraries are built again


@pytest.mark.pure
def test_regional_compilation_compiles_one_block_not_the_model():
    rows = _rows("regional_compile", "regional")
    whole, regional = rows["torch.compile(model)"], rows["block.compile() for each block"]
    frames, graphs, traced, inductor = 0, 1, 2, 3
    assert (whole[frames], whole[graphs], whole[inductor]) == ("1", "1", "1")
    assert (regional[graphs], regional[inductor]) == ("2", "2")  # no grad into the first block, grad into the rest
    assert int(regional[traced]) * 6 == int(whole[traced])  # "a sixth of the calls"
    assert float(regional[4]) < float(whole[4]) / 2  # "a fraction of the whole model's"


@pytest.mark.torch
def test_reset_recompiles_and_the_files_answer(tmp_path, monkeypatch):
    """Clearing inside a process: torch.compiler.reset() drops Dynamo's code, and the recompile hits the disk."""
    import torch

    monkeypatch.setenv("TORCHINDUCTOR_CACHE_DIR", str(tmp_path))
    for name in ("TORCHINDUCTOR_FX_GRAPH_CACHE", "TORCHINDUCTOR_AUTOGRAD_CACHE", "TORCHINDUCTOR_FORCE_DISABLE_CACHES"):
        monkeypatch.delenv(name, raising=False)
    counters = torch._dynamo.utils.counters

    def scale(x):
        return (torch.sin(x) * 2).sum()

    with torch._inductor.config.patch(fx_graph_cache=True), \
            torch._functorch.config.patch(enable_autograd_cache=True), torch.compiler.config.patch(force_disable_caches=False):
        torch.compiler.reset()
        torch.compile(scale)(torch.randn(8))
        torch.compiler.reset()
        counters.clear()
        torch.compile(scale)(torch.randn(8))
        hits = counters["aot_autograd"]["autograd_cache_hit"]
        graphs = counters["stats"]["unique_graphs"]
    torch.compiler.reset()
    assert (graphs, hits) == (1, 1)


# -- chapter 17 ------------------------------------------------------------------------------------------------

@pytest.mark.pure
def test_the_first_calls_largest_part_is_the_vector_isa_check():
    """The corrected claim: in the recorded trace the ISA check outweighs the module load, and the page's numbers
    are the trace's own (self time per stage, seconds, one decimal)."""
    from collections import defaultdict

    from tracers.tracefile.chrome import load

    if not MEASURE_TRACE.exists():
        pytest.skip("measure_mlp is not recorded")
    trace = load(MEASURE_TRACE)
    own: dict[str, int] = defaultdict(int)
    for span in trace.spans:
        own[span.stage] += span.duration_ns - sum(c.duration_ns for c in trace.spans if c.parent == span.id)
    first_call = sum(v for k, v in own.items() if k != "entry")
    assert max(own, key=own.get) == "cpu_isa" and own["cpu_isa"] > own["load"]
    text = " ".join(MEASURING.read_text(encoding="utf-8").split())
    for stage in ("cpu_isa", "load", "entry"):
        assert f"{own[stage] / 1e9:.1f} s" in text, stage
    assert f"first call's {first_call / 1e9:.0f} s" in text
    assert "most of it is the C++ compiler" not in text


@pytest.mark.pure
def test_the_compiles_cprofile_is_mostly_waiting_for_the_compiler():
    files = load_output(OUTPUTS / "compile_cprofile.json").tables["files"].rows
    assert len(files) == 1 and files[0][0].startswith("_compile_inner_") and files[0][0].endswith(".profile")
    top = load_output(OUTPUTS / "compile_cprofile.json").tables["top"].rows
    waiting = sum(int(row[2].rstrip(" %")) for row in top if row[3].endswith("cpp_builder.py:_run_compile_cmd"))
    assert waiting >= 50 and top[0][3].endswith("cpp_builder.py:_run_compile_cmd")


@pytest.mark.pure
def test_the_training_step_compiles_its_backward_at_the_first_backward():
    rows = _rows("profile_compiled", "compiles")
    assert rows["the first forward call"] == ("2 Dynamo, 2 Inductor",)
    assert rows["its backward()"] == ("2 Dynamo, 4 Inductor",)
    assert rows["five more steps"] == rows["the timed steps, both stances"] == ("2 Dynamo, 4 Inductor",)


@pytest.mark.pure
def test_the_profile_shows_the_regions_the_break_and_the_backward():
    names = [row[0] for row in load_output(OUTPUTS / "profile_compiled.json").tables["events"].rows]
    depth = {name.strip(): len(name) - len(name.lstrip()) for name in names}
    flat = [name.strip() for name in names]
    first, second = flat.index("Torch-Compiled Region: 0/0"), flat.index("Torch-Compiled Region: 1/0")
    between = flat[first:second]
    assert "CompiledFunction" in between and "aten::item" in between  # the break: eager between the graphs
    assert depth["Torch-Compiled Region: 1/0"] > depth["Torch-Compiled Region: 0/0"]  # the resume function, nested
    assert flat.count("CompiledFunctionBackward") == 2 and flat.count("CompiledFunction") == 2
    assert all(name.startswith("## Call CompiledFxGraph <key>") for name in flat if name.startswith("## Call"))
    stance = {row[0]: row[1:] for row in load_output(OUTPUTS / "profile_compiled.json").tables["stance"].rows}
    assert stance['set_stance("force_eager")'][:2] == ("0", "0")
    assert stance["compiled (the default stance)"][:2] == ("2", "2")
    # the page reads the baseline as it came out: on this small block the compiled step is the slower one
    assert float(stance["compiled (the default stance)"][2]) > float(stance['set_stance("force_eager")'][2])


@pytest.mark.pure
def test_the_cuda_measurements_ran_at_the_default_matmul_precision():
    """The page says measure_mlp's CUDA numbers are without TF32: neither the example nor the measure command
    changes the precision."""
    sources = [ROOT / "docs" / "examples" / "measure_mlp.py", *sorted((ROOT / "tracers").rglob("*.py"))]
    for path in sources:
        text = path.read_text(encoding="utf-8")
        assert "set_float32_matmul_precision" not in text and "allow_tf32" not in text, path
        assert "fp32_precision" not in text, path


# -- both chapters: the box of remedies at the top --------------------------------------------------------------

@pytest.mark.pure
@pytest.mark.parametrize("page", [CACHES, MEASURING])
def test_the_remedies_box_leads_and_its_links_land(page):
    text = page.read_text(encoding="utf-8")
    box = text.index("```{admonition} What to do about it")
    assert box < text.index("\n## ")
    labels = set(re.findall(r"^\(([\w-]+)\)=$", "\n".join(p.read_text(encoding="utf-8") for p in CHAPTERS.glob("*.md")),
                            re.M))
    linked = re.findall(r"\{ref\}`[^`<]*<([\w-]+)>`", text[box:text.index("\n```\n", box)])
    assert len(linked) >= 5 and set(linked) <= labels


# -- the front page: versions, not recompiles ------------------------------------------------------------------

@pytest.mark.pure
def test_the_front_page_counts_versions():
    text = " ".join(INDEX.read_text(encoding="utf-8").split())
    assert "recompiles of one frame at most" not in text
    assert "compiled versions of one frame — the first compile and seven recompiles" in text


@pytest.mark.torch
def test_a_frame_gets_eight_versions_then_runs_uncompiled():
    import torch

    torch._dynamo.reset()
    counters = torch._dynamo.utils.counters
    counters.clear()
    with torch._dynamo.config.patch(automatic_dynamic_shapes=False):
        compiled = torch.compile(lambda x: x.sin() + 1, backend="eager")
        for size in range(1, 13):
            compiled(torch.randn(size))
    graphs, attempts = counters["stats"]["unique_graphs"], counters["frames"]["total"]
    torch._dynamo.reset()
    assert graphs == torch._dynamo.config.recompile_limit == 8
    assert attempts == 9  # the ninth size's compile was refused; it and the later sizes ran uncompiled


# -- every release: the pages' facts in the recorded verify reports ---------------------------------------------

MY_PAGES = ("chapters/14-caches", "chapters/17-measuring", "index")
_BEFORE_2_13 = {  # facts about code that is new in 2.13 (or 2.12), shown as drift on the older releases' pages
    'torch._functorch._aot_autograd.autograd_cache:AOTAutogradCacheDetails._record_runtime_state contains "self.autocast_state"',
    'torch._functorch._aot_autograd.autograd_cache:AOTAutogradCacheDetails._record_runtime_state contains '
    '"self.grad_enabled = torch.is_grad_enabled()"',
    'torch._functorch._aot_autograd.autograd_cache:_get_debug_lines_for_cache_key contains '
    '"if not log.isEnabledFor(logging.DEBUG):"',
    'torch._inductor.codecache:CacheabilityValidator._check_custom_passes contains "Unsupported post grad custom pass"',
    'torch._inductor.codecache:CacheabilityValidator._check_frozen_params contains "Skipping graph with frozen constants"',
    'torch._inductor.codecache:CacheabilityValidator.validate_graph contains "Can\'t cache HigherOrderOperator"',
    'torch._inductor.codecache:FxGraphHashDetails.__init__ contains "self.default_dtype = torch.get_default_dtype()"',
    'torch._functorch._aot_autograd.runtime_wrappers:_AutogradBackwardCompiler.get_or_compile contains '
    '"self.compiled_bw = self.bw_compiler("',
}
KNOWN_DRIFT = {
    "2.11.0": _BEFORE_2_13 | {'torch._functorch._aot_autograd.runtime_wrappers:_AOTDispatchAutogradFunctionFactory.build '
                              'contains "class CompiledFunction(torch.autograd.Function):"',
                              # nested_compile_region gained its reuse limit in 2.12
                              'torch.compiler:nested_compile_region contains "max_reuse_entries: int = 8,"'},
    "2.12.1": _BEFORE_2_13,
    # Inductor's TF32 notice became a perf_hints log message
    "2.14.1": {'torch._inductor.compile_fx:_warn_tf32_disabled contains "warnings.warn("'},
    "2.15.0": {'torch._inductor.compile_fx:_warn_tf32_disabled contains "warnings.warn("'},
}


@pytest.mark.pure
@pytest.mark.parametrize("release", ["2.11.0", "2.12.1", "2.14.1", "2.15.0"])
def test_every_fact_of_chapters_14_17_and_the_front_page_is_verified_on_every_release(release):
    """Each locked fact of these pages is in the release's verify report and holds there (SAME or MOVED), unless it
    is a drift the pages show on that release (CHANGED or MISSING)."""
    assert_facts_hold(release, MY_PAGES, KNOWN_DRIFT.get(release, ()))


# -- chapter 17's per-step section quotes its recording ----------------------------------------------------------

TRAINING_TRACE = ROOT / "docs" / "_traces" / "cpu" / "2.13.0" / "speed_training-cpu-cold.json"
TRAINING_CUDA_TRACE = ROOT / "docs" / "_traces" / "cuda" / "2.11.0" / "speed_training-cuda-cold.json"


def _section(text: str, label: str) -> str:
    start = text.index(f"({label})=")
    return text[start:text.index("\n(", start + 1)]


@pytest.mark.pure
def test_the_per_step_section_quotes_its_recording():
    """Every figure the section gives for the CPU recording is the one the trace's speed table computes from it: a
    re-recording that moves them fails here until the prose follows."""
    from tracers.analysis.speed import speed_of
    from tracers.tracefile.chrome import load

    (function,) = speed_of(load(TRAINING_TRACE)).functions
    section = " ".join(_section(MEASURING.read_text(encoding="utf-8"), "ch17-per-step").split())  # lines unwrapped
    step, backward, cost = function.step, function.backward, function.cost

    def ms(ns: float) -> str:
        return f"{ns / 1e6:.2f}".rstrip("0").rstrip(".") + " ms"

    for eager, compiled in ((step.eager_ns, step.compiled_ns), (backward.eager_ns, backward.compiled_ns)):
        assert f"{ms(compiled)} against {ms(eager)}, {eager / compiled:.2f}×" in section
    assert f"{function.forward.eager_ns / function.forward.compiled_ns:.2f}×" in section
    assert f"rounds agree on the step ({step.spread_text.removesuffix('×')}×)" in section
    assert f"{cost.forward_ns / 1e9:.1f} s for the forward and {cost.backward_ns / 1e9:.2f} s for the backward" in section
    assert f"{cost.setup_ns / 1e9:.2f} s of one-time setup" in section
    assert f"{function.compile_ns / 1e9:.2f} s in all" in section
    payback = re.search(r"pays back after ([\d,]+) steps", function.verdict_said)
    assert payback and f"about {round(int(payback.group(1).replace(',', '')), -3):,} steps" in section


@pytest.mark.pure
def test_the_per_step_section_quotes_its_cuda_recording():
    """The CUDA tab's paragraph, against the CUDA recording: each part's gain and its rounds, the step's spread and
    the compile figure."""
    from tracers.analysis.speed import speed_of
    from tracers.tracefile.chrome import load

    (function,) = speed_of(load(TRAINING_CUDA_TRACE)).functions
    section = " ".join(_section(MEASURING.read_text(encoding="utf-8"), "ch17-per-step").split())
    forward, backward, step, cost = function.forward, function.backward, function.step, function.cost
    for part in (backward, forward):
        assert f"{part.compiled_ns / 1e6:.2f} ms against {part.eager_ns / 1e6:.2f} ms, " \
               f"{part.eager_ns / part.compiled_ns:.2f}×" in section
    spreads = [part.spread_text.removesuffix("×").split("–") for part in (backward, forward)]
    assert f"every round of each faster ({'×, '.join('–'.join(pair) for pair in spreads)}×)" in section
    assert all(float(low) > 1 for low, _ in spreads)  # "every round faster" holds
    assert f"{step.compiled_ns / 1e6:.2f} ms against {step.eager_ns / 1e6:.2f} ms" in section
    assert function.verdict_said.startswith("no difference measurable here") and "no difference measurable" in section
    assert f"{function.compile_ns / 1e9:.2f} s compile ({cost.forward_ns / 1e9:.2f} s forward, " \
           f"{cost.backward_ns / 1e9:.2f} s backward)" in section

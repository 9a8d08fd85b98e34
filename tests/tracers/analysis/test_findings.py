"""Findings from real runs: grouped root causes, their costs, user lines, fixes and chapters, and calls served."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tracers.analysis.findings import BREAKS, DISTRIBUTED, LIMIT, SHAPES, compile_seconds, findings, headline
from tracers.terminal.summary import Style, render
from tracers.report.options import Links, RenderOptions
from tracers.report.page import render_page
from tracers.tracefile.chrome import load

from tests.conftest import EXAMPLES, ROOT, run_python, run_trace, side_by_side

pytestmark = pytest.mark.torch

PROGRAMS = Path(__file__).resolve().parents[2] / "programs" / "findings"


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict:
    """Each program traced once, through the command line, with aot_eager (no C++ compile)."""
    out = tmp_path_factory.mktemp("findings")
    jobs = {"first_break": lambda: run_trace(PROGRAMS / "first_break.py", out, "--no-page")}  # Inductor: slowest
    for name in ("library_break", "sweep", "served", "item_print", "crop", "counter", "ddp_sequential",
                 "call_names", "compiled_submodule", "context_break", "hook_break", "branch_where"):
        jobs[name] = lambda name=name: run_trace(PROGRAMS / f"{name}.py", out, "--no-page")
    # The fix the DDP finding gives, run as the user would apply it: its trace must have a graph.
    jobs["ddp_inner"] = lambda: run_trace(PROGRAMS / "ddp_sequential.py", out / "inner", "--no-page",
                                          script_args=("inner",))
    return side_by_side(jobs)


def test_breaks_in_library_code_are_one_finding_at_the_users_line(runs):
    run = runs["library_break"]
    assert run.returncode == 0, run.stderr
    trace = run.trace()
    found = findings(trace)
    breaks = [finding for finding in found if finding.kind == "graph-break"]
    assert len(breaks) == 1  # one cause, however many compiles it broke
    finding = breaks[0]
    torch_breaks = trace.info.totals_check["torch"]["graph_breaks"]
    assert finding.events == torch_breaks == 2
    assert finding.library_line.short == "fakelib/__init__.py:11"
    assert finding.user_line.short == "library_break.py:18"
    assert finding.user_line.code == "return fakelib.loss(self.linear(x))"
    assert finding.where == "fakelib/__init__.py:11 via library_break.py:18"
    assert "ignore_logging_functions" in finding.fix  # torch's own hint
    assert re.fullmatch(r"GB\d+", finding.graph_break_id) and finding.torch_link.startswith("https://")
    assert finding.explained == BREAKS
    facts = {c.compile_id: c for c in run.facts().compiles}
    assert finding.no_graph == tuple(i for i in finding.compile_ids if facts[i].graphs == 0)
    assert finding.cost_s > 0 and set(finding.compile_ids) <= {c.compile_id for c in run.facts().compiles}
    assert str(finding).startswith("2 graph breaks: logging.Logger") and "via library_break.py:18" in str(finding)


def test_a_recompile_sweep_is_one_finding_with_the_limit_it_hit(runs):
    run = runs["sweep"]
    assert run.returncode == 0, run.stderr
    trace = run.trace()
    problems = [finding for finding in findings(trace) if not finding.informational]
    assert [finding.kind for finding in problems] == ["recompile-limit"]
    finding = problems[0]
    assert finding.events == trace.info.totals_check["torch"]["recompiles"] == 3  # torch's count: 0/1, 0/2, 0/3
    assert finding.compile_ids == ("0/1", "0/2", "0/3")
    assert "a different object was passed as `act` (Dynamo guards on its identity)" in finding.what
    assert "recompile limit (3, set by this run: torch's default is 8) refused" in finding.what
    assert finding.graphs_added == 2 and finding.explained == LIMIT
    assert "recompile_limit" in finding.hint  # torch's hint, beside our advice on identity guards
    assert "`act`" in finding.advice
    assert finding.user_line.short == "sweep.py:8"
    compiles = {c.compile_id: c for c in run.facts().compiles}
    # The two versions compiled, and the attempt the limit refused.
    assert finding.cost_s == pytest.approx(sum(compiles[i].time_ns for i in ("0/1", "0/2", "0/3")) / 1e9, rel=1e-6)
    # Each version served its activation on every pass; Python 3.12+ also counts the refused ones' eager calls.
    assert trace.info.calls_served == {"0/0": 4, "0/1": 4, "0/2": 4}
    if finding.eager_calls is None:
        assert "3.12" in finding.eager_note
    else:
        assert finding.eager_calls == 8  # gelu and silu, four passes each


def test_calls_served_count_the_compiling_call(runs):
    run = runs["served"]
    trace = run.trace()
    assert trace.info.calls_served == {"0/0": 50, "0/1": 1}
    assert [c.calls for c in run.facts().compiles] == [50, 1]
    summary = render(trace, run.facts(), Style(False))
    assert re.search(r"^  0/0 .* 50 calls$", summary, re.M) and re.search(r"^  0/1 .* 1 call$", summary, re.M)
    page = render_page(trace, options=RenderOptions(parts=("counts",)))
    assert re.search(r'<tr data-compile="0/0">(<td[^>]*>[^<]*</td>){6}<td[^>]*>50</td>', page)  # the page's row too
    [finding] = findings(trace)
    assert finding.kind == "recompile" and finding.explained == SHAPES and "size of `x`" in finding.what


def test_the_summary_and_the_page_open_with_the_findings(runs):
    trace = runs["library_break"].trace()
    summary = render(trace, runs["library_break"].facts(), Style(False),
                     page_url=lambda path: f"https://site/{path.replace('#', '.html#')}")
    assert summary.index("Findings") < summary.index("Stage tree") < summary.index("Compiles")
    assert "why    Graph breaks: https://site/chapters/05-graph-breaks.html#how-dynamo-splits-a-frame" in summary
    html = render_page(trace, links=Links(page_url=lambda path: f"../site/{path}<>"))
    order = [html.index(f'data-part="{part}"') for part in ("findings", "counts", "timeline", "tree")]
    assert order == sorted(order)
    assert 'href="../site/chapters/05-graph-breaks#how-dynamo-splits-a-frame&lt;&gt;"' in html  # escaped
    assert "fakelib/__init__.py:11 via library_break.py:18" in html


def test_a_clean_run_says_so_in_one_line(mlp_cold):
    trace = mlp_cold.trace()
    found = findings(trace)
    assert not [finding for finding in found if not finding.informational]
    assert headline(found, mlp_cold.facts()) == "No problems found: 1 graph, no graph breaks, no recompiles, " \
                                                "nothing ran eager."


def test_the_site_examples_findings_agree_with_torchs_counts():
    """Every recorded example: the breaks and recompiles the findings group are the ones torch counted."""
    checked = 0
    for path in sorted((ROOT / "docs" / "_traces" / "cpu" / "2.13.0").glob("*-cpu-*.json")):
        trace = load(path) if not path.name.endswith("-ranks.json") else None
        torch_counted = ((trace.info.totals_check or {}).get("torch") or {}) if trace else {}
        if not torch_counted:
            continue
        found = findings(trace)
        breaks = sum(f.events for f in found if f.kind in ("graph-break", "ddp-split"))
        assert breaks == torch_counted["graph_breaks"], path.name
        recompiled = sum(f.events if f.kind in ("recompile", "recompile-limit") else f.recompiles for f in found)
        assert recompiled == torch_counted["recompiles"], path.name
        checked += 1
    assert checked >= 15


def _anchors(markdown: str) -> set[str]:
    """MyST's heading anchors (myst_heading_anchors): lower case, punctuation dropped, spaces to hyphens."""
    found = set()
    for heading in re.findall(r"^#{1,3} (.+)$", markdown, re.M):
        slug = re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")
        found.add(slug)
    return found


def _every_explained() -> list:
    """Every chapter link a finding can carry: each ``Explained`` the analysis modules define."""
    import tracers.analysis.finding_type as finding_type
    import tracers.analysis.run_time_facts as run_time_facts

    from tracers.analysis.finding_type import Explained

    return list({value for module in (finding_type, run_time_facts) for value in vars(module).values()
                 if isinstance(value, Explained)})


@pytest.mark.parametrize("explained", _every_explained(), ids=lambda explained: explained.path)
def test_every_finding_links_to_a_section_that_exists(explained):
    page = ROOT / "docs" / f"{explained.chapter}.md"
    assert page.exists(), explained.chapter
    assert page.read_text().startswith(f"# {explained.title}")
    if explained.section:
        assert explained.section in _anchors(page.read_text())


def test_the_analysis_wing_needs_no_torch():
    """Findings come from the trace file alone: a machine without torch reads them (torch's import is refused)."""
    code = (
        "import sys\n"
        "class Refuse:\n"
        "    def find_spec(self, name, path, target=None):\n"
        "        if name.split('.')[0] == 'torch': raise ImportError('no torch here')\n"
        "sys.meta_path.insert(0, Refuse())\n"
        "from pathlib import Path\n"
        "from tracers.tracefile.chrome import load\n"
        "from tracers.analysis.findings import findings\n"
        "from tracers.terminal.findings import render_findings\n"
        "from tracers.analysis.trace_facts import analyze\n"
        f"trace = load(Path({str(EXAMPLES.parent / '_traces' / 'cpu' / '2.13.0' / 'graph_breaks-cpu-cold.json')!r}))\n"
        "print('\\n'.join(render_findings(findings(trace), analyze(trace))))\n"
    )
    result = run_python(["-c", code])
    assert result.returncode == 0, result.stderr
    assert "graph breaks: Failed to trace builtin operator" in result.stdout


def test_merged_ranks_say_which_ranks_have_each_finding(tmp_path):
    """rank_divergent.py: only rank 1 recompiles; the merged summary and page say so beside that finding."""
    from tracers.ranks.findings import findings_lines, shared_findings
    from tracers.ranks.merge import load_merged
    from tracers.ranks.page import render_ranks
    from tracers.ranks.summary import report

    run = load_merged(ROOT / "docs" / "_traces" / "cpu" / "2.13.0" / "rank_divergent-cpu-cold-ranks.json")
    result = report(run)
    shared = {item.finding.kind: item for item in shared_findings(run, result.findings)}
    assert shared["recompile"].ranks == (1,) and not shared["recompile"].everywhere
    lines = findings_lines(run, Style(False), result.findings)
    recompile = next(index for index, line in enumerate(lines) if "recompiled 1 time" in line)
    assert lines[recompile + 1].strip().startswith("on rank 1")
    html = render_ranks(result)
    block = html[html.index('<div class="wt-findings">'):]
    block = block[:block.index("</div>")]
    assert "recompiled 1 time" in block and "on rank 1" in block and "on every process" in block


def test_one_finding_with_other_numbers_on_each_rank_says_whose_numbers_it_shows():
    """issue 54: 3 breaks on rank 0 and 4 on rank 1 were said once, with rank 0's count, "on every process"."""
    from dataclasses import replace

    from tracers.ranks.findings import shared_findings, who
    from tracers.ranks.merge import load_merged
    from tracers.ranks.summary import report

    run = load_merged(ROOT / "docs" / "_traces" / "cpu" / "2.13.0" / "rank_divergent-cpu-cold-ranks.json")
    (recompile,) = [finding for finding in report(run).findings[1] if finding.kind == "recompile"]
    more = replace(recompile, what=recompile.what.replace("version 0/1", "version 0/3"), cost_s=recompile.cost_s + 1)
    (shared,) = shared_findings(run, {0: [recompile], 1: [more]})
    assert shared.everywhere and shared.finding is more
    assert who(run, shared) == "every process (the numbers are rank 1's; the others' differ)"
    (same,) = shared_findings(run, {0: [recompile], 1: [recompile]})
    assert who(run, same) == "every process"


def test_graphs_compiled_before_the_block_are_not_counted_as_its_own():
    """A block traced from Python: the graph compiled before it is left alone; the recompile inside it counts."""
    import torch

    import tracers

    def double(x):
        return x * 2

    compiled = torch.compile(double, backend="aot_eager")
    compiled(torch.ones(4))  # compiled before the block: not this trace's
    with tracers.trace() as t:
        for _ in range(3):
            compiled(torch.ones(4))  # served by the earlier graph
        compiled(torch.ones(8))  # a recompile, inside the block
        compiled(torch.ones(9))  # served by it (dynamic now)
    # Only the block's own compile, a recompile of the frame compiled before it (its id: N/1), with its two calls.
    [(compile_id, calls)] = t.trace.info.calls_served.items()
    assert compile_id.endswith("/1") and calls == 2
    assert double.__globals__ is globals() and not any(
        getattr(value, "__tracers_counted__", False) for name, value in globals().items()
        if name.startswith("__compiled_fn"))  # every wrapper taken out when the block ended


def _texts(finding) -> list[str]:  # noqa: ANN001 - a Finding: every text a user reads of it
    return [finding.what, finding.where or "", finding.fix or "", finding.hint or "", finding.hint_note or "",
            finding.events_text, finding.cost, *finding.parts]


@pytest.mark.parametrize("name", ["library_break", "sweep", "served", "item_print", "crop", "counter", "ddp_sequential",
                                  "first_break"])
def test_costs_add_up_and_speak_the_users_names(runs, name):
    """No compile counted twice: the findings' costs never exceed the run's compile time; no Dynamo-internal name."""
    run = runs[name]
    assert run.returncode == 0, run.stderr
    found = findings(run.trace(), run.facts())
    assert sum(finding.cost_s for finding in found) <= compile_seconds(run.facts()) + 1e-9
    for finding in found:
        for text in _texts(finding):
            assert "___" not in text and "L['" not in text and "G['" not in text, text
    assert "of the run's" in headline(found, run.facts()) or not [f for f in found if not f.informational]


def test_a_print_of_item_is_one_finding_at_its_line(runs):
    """``print("loss", loss.item())`` in the compiled step: the .item() break, the print break and the recompile of
    the code after it on the float .item() returned are one finding, at that line, costing their compiles."""
    run = runs["item_print"]
    trace, facts = run.trace(), run.facts()
    found = findings(trace, facts)
    at_36 = [finding for finding in found if finding.user_line and finding.user_line.line == 36]
    assert len(at_36) == 1
    [finding] = at_36
    assert finding.user_line.code == 'print("loss", loss.item())' and finding.library_line is None
    assert finding.events == 3 and finding.recompiles == 1  # torch counts 3 breaks there, and 1 recompile
    assert any("the rest of `train_step` after line 36 recompiled" in part
               and "the number `loss.item()` returned (line 36)" in part for part in finding.parts)
    compiles = {compile.compile_id: compile for compile in facts.compiles}
    resumed = [cid for cid in finding.compile_ids if (compiles[cid].frame or "").startswith(
        "torch_dynamo_resume_in_train_step_at_36")]
    assert len(resumed) == 3  # two resume functions after the line's two breaks, and one recompile of the first
    # What removing the line saves: the recompile on the value it computed (and the traced work thrown away), not
    # the code after it, which compiles either way; that is said beside the cost.
    [recompiled] = [cid for cid in resumed if not cid.endswith("/0")]
    created = [cid for cid in resumed if cid.endswith("/0")]
    assert finding.cost_s >= compiles[recompiled].time_ns / 1e9 - 1e-9
    assert finding.cost_s < sum(compiles[cid].time_ns for cid in resumed) / 1e9
    assert any(part.startswith(f"the code after it compiled on its own ({len(created)} compiles") for part in finding.parts)
    assert "move it out of the compiled function" in finding.fix


def test_a_break_inside_a_library_style_context_manager_names_the_with_line_and_what_compiled_inside(runs):
    """A print inside ``with acc.accumulate(model):`` skips the whole step: one finding, which names the `with` line,
    holds the context manager's own no-graph compiles (they exist only because the step ran eagerly) and tells
    to compile the module called inside, which compiled on its own."""
    run = runs["context_break"]
    found = findings(run.trace(), run.facts())
    skipped = [finding for finding in found if finding.kind in ("frame-skipped", "graph-break", "thrown-away")]
    assert len(skipped) == 1, [finding.what for finding in found]
    [finding] = skipped
    assert finding.kind == "frame-skipped" and "inside `with acc.accumulate(model)` (line 39)" in finding.what
    assert finding.user_line.line == 42 and finding.eager_calls == 4
    compiles = {compile.compile_id: compile for compile in run.facts().compiles}
    nested = [cid for cid in finding.compile_ids if (compiles[cid].frame or "").startswith("Accumulator.accumulate")]
    assert nested and compiles[nested[0]].graphs == 0
    assert any("`Accumulator.accumulate`" in part and "in the cost" in part for part in finding.parts)
    assert "(`Regressor.forward`, called at line 40, which already compiled on its own: compile it)" in finding.fix
    forward = [cid for cid, compile in compiles.items() if (compile.frame or "").startswith("Regressor.forward")]
    assert forward and not set(forward) & set(finding.compile_ids)  # it compiles either way: not in the cost
    assert "inside `with acc.accumulate(model)`" in finding.hint_note


def test_a_break_inside_a_library_hook_names_the_hook_its_module_and_the_method_that_registered_it(runs):
    """fakelib's enable_input_require_grads() hooks the embeddings (requires_grad_ on their output): the hook runs
    inside the compiled forward and breaks there; the finding names the hook, the submodule and the registration."""
    run = runs["hook_break"]
    assert run.returncode == 0, run.stderr
    [finding] = [finding for finding in findings(run.trace(), run.facts()) if finding.kind == "graph-break"]
    assert finding.library_line.short == "fakelib/__init__.py:62"
    assert "a forward hook, `make_inputs_require_grads` (fakelib/__init__.py:62) on `embed`" in finding.fix
    assert "registered by `enable_input_require_grads()`" in finding.fix
    assert "an option of the call or of the model's config" not in finding.fix  # not the generic library guess
    recorded = [artifact for artifact in run.trace().artifacts if artifact.name == "module_hooks"]
    assert [hook["module"] for hook in recorded[0].metadata["hooks"]] == ["embed"]


def test_a_branch_on_a_tensor_whose_arms_assign_one_name_is_told_the_where_line_to_paste(runs):
    run = runs["branch_where"]
    [finding] = [finding for finding in findings(run.trace(), run.facts()) if finding.kind == "graph-break"]
    assert finding.user_line.line == 8
    assert "in place of lines 8-11: `h = torch.where(h.sum() > 0, h * 2, h - 1)`" in finding.fix


def test_a_run_whose_only_compiles_one_skipped_frame_holds_is_one_finding():
    """"Nothing compiled" beside the one skip that holds every compile is the same cause: said as a line of it."""
    from tracers.analysis.finding_type import Finding
    from tracers.analysis.findings import _one_cause_of_nothing

    nothing = Finding(kind="nothing-compiled", what="torch.compile produced no graph: 3 compiles", events=3,
                      compile_ids=("0/0", "1/0", "2/0"), cost_s=0.0)
    skip = Finding(kind="frame-skipped", what="Dynamo could not resume", events=1, compile_ids=("0/0", "1/0", "2/0"),
                   cost_s=0.6, parts=("a part",))
    other = Finding(kind="recompile", what="recompiled", events=1, compile_ids=("3/1",), cost_s=0.1)
    problems, left = _one_cause_of_nothing([other, skip], [nothing])
    assert left == [] and [finding.kind for finding in problems] == ["frame-skipped", "recompile"]
    assert problems[0].parts == ("torch.compile produced no graph in this run: its 3 compiles are this finding's, "
                                 "and every call ran eager", "a part")
    # a skip that holds only some of the compiles leaves "nothing compiled" its own finding
    part = Finding(kind="frame-skipped", what="skipped", events=1, compile_ids=("0/0",), cost_s=0.2)
    assert _one_cause_of_nothing([part], [nothing]) == ([part], [nothing])


def test_a_changing_sequence_length_is_a_recompile_costing_that_compile(runs):
    run = runs["item_print"]
    found = findings(run.trace(), run.facts())
    [recompile] = [finding for finding in found if finding.kind == "recompile"]
    compiles = {compile.compile_id: compile for compile in run.facts().compiles}
    assert recompile.compile_ids == ("0/1",)
    assert recompile.cost_s == pytest.approx(compiles["0/1"].time_ns / 1e9, rel=1e-9)  # the whole recompile
    assert recompile.parts == ("0/1: the size of `tokens` changed (dimension 1: 16 before, now 24)",)
    # Lengths 24 and 32 both ran on the dynamic version: automatic dynamic, said so, with how to skip the static one.
    assert compiles["0/1"].calls == 2 and "compiled it as dynamic; version 0/1 served 2 calls" in recompile.what
    assert "mark_dynamic" in recompile.fix and recompile.explained == SHAPES


def test_torchs_hint_naming_a_setting_it_lacks_is_corrected(runs):
    """torch 2.13's backward() hint says torch._dynamo.trace_autograd_ops: the setting is in torch._dynamo.config."""
    found = findings(runs["item_print"].trace(), runs["item_print"].facts())
    [backward] = [finding for finding in found if finding.user_line and finding.user_line.line == 33]
    assert backward.hint == "Set torch._dynamo.config.trace_autograd_ops=True"
    assert "torch._dynamo.trace_autograd_ops, which this torch does not have" in backward.hint_note
    import torch._dynamo.config

    assert hasattr(torch._dynamo.config, "trace_autograd_ops") and not hasattr(torch._dynamo, "trace_autograd_ops")


def test_a_changing_crop_list_says_automatic_dynamic_not_tensors(runs):
    run = runs["crop"]
    [finding] = [finding for finding in findings(run.trace(), run.facts()) if not finding.informational]
    assert "the value of `crop[0]` changed, then Dynamo compiled it as dynamic; version 0/1 served 5 calls" in finding.what
    assert "Nothing to fix" in finding.fix and "dynamic=True" in finding.fix and "tensor" not in finding.fix


def test_a_counting_attribute_is_named_with_what_to_do(runs):
    run = runs["counter"]
    [finding] = [finding for finding in findings(run.trace(), run.facts()) if not finding.informational]
    assert finding.what.startswith("`Scaled.forward` recompiled 4 times: the value of `self.calls` changed")
    assert finding.user_line.code == "self.calls += 1"
    assert "register_buffer" in finding.fix and "allow_unspec_int_on_nn_module" in finding.hint  # ours, and torch's
    assert finding.parts[0] == "0/1: the value of `self.calls` changed (it was 0 when version 0/0 was compiled)"


def test_a_library_parameter_is_named_by_what_the_users_call_passed(runs):
    run = runs["call_names"]
    assert run.returncode == 0, run.stderr
    said = {finding.user_line.short: finding for finding in findings(run.trace(), run.facts())
            if not finding.informational}
    # Positionally, inside another call on the line: the library's `x` is the user's `images`.
    assert "the size of `images` changed" in said["call_names.py:26"].what
    # By keyword through a ``*args, **kwargs`` wrapper: ``kwargs['tokens']`` is what the user passed, `ids`.
    assert "the size of `ids` changed" in said["call_names.py:28"].what
    for finding in said.values():
        assert "`x`" not in str(finding) and "kwargs[" not in str(finding) and "args[" not in str(finding)


def test_one_compiled_submodule_is_not_said_to_be_a_layer_of_many(runs):
    """Its model's forward calls it each step, like a model's loop calls its layers; but one line compiled one object:
    the per-layer words and advice belong to objects compiled in a loop."""
    run = runs["compiled_submodule"]
    assert run.returncode == 0, run.stderr
    [finding] = [finding for finding in findings(run.trace(), run.facts()) if not finding.informational]
    assert "self.calls" in finding.what and "every layer" not in finding.what
    assert "register_buffer" in finding.fix and "each layer" not in finding.fix


def test_ddp_over_sequential_says_nothing_was_compiled_first(runs):
    run = runs["ddp_sequential"]
    assert run.facts().graph_count == 0
    first = findings(run.trace(), run.facts())[0]
    assert first.kind == "nothing-compiled" and first.what.startswith("torch.compile produced no graph")
    assert "DDP(torch.compile(model))" in first.fix and first.explained == DISTRIBUTED
    summary = render(run.trace(), run.facts(), Style(False))
    assert summary.index("torch.compile produced no graph") < summary.index("Stage tree")
    # The fix, applied: the module inside DDP compiled gets its graph and no finding says nothing was compiled.
    inner = runs["ddp_inner"]
    assert inner.returncode == 0, inner.stderr
    assert inner.facts().graph_count >= 1
    assert all(finding.kind != "nothing-compiled" for finding in findings(inner.trace(), inner.facts()))


def test_the_summary_ends_with_a_recap_of_the_findings(runs):
    run = runs["item_print"]
    summary = render(run.trace(), run.facts(), Style(False), written=["x.json"])
    recap = summary[summary.rindex("Findings, in short"):summary.index("Written x.json")]
    assert recap.count("\n  ") == len([f for f in findings(run.trace(), run.facts()) if not f.informational])
    assert "item_print.py:36" in recap


def test_one_time_setup_is_said_once_and_costed_on_no_line(runs):
    """The CPU's vector-ISA check (and the C++ header) ran inside the first Inductor compile, here the code after a
    print: one note says what it was, and the print's finding costs that compile without it."""
    from tracers.analysis.one_time import one_time

    run = runs["first_break"]
    assert run.returncode == 0, run.stderr
    trace, facts = run.trace(), run.facts()
    setup = one_time(trace)
    isa = [part for part in setup.parts if part.what == "CPU vector-ISA check"]
    assert len(isa) == 1 and isa[0].ns > 0
    isa_spans = [span for span in trace.spans if span.stage == "cpu_isa"]
    assert isa[0].ns <= sum(span.duration_ns for span in isa_spans)
    found = findings(trace, facts)
    notes = [finding for finding in found if finding.kind == "one-time"]
    assert len(notes) == 1 and notes[0].informational and notes[0].cost_s == 0
    assert any(part.startswith("CPU vector-ISA check: ") and "once per process" in part for part in notes[0].parts)
    compiles = {c.compile_id: c for c in facts.compiles}
    [(where, _)] = isa[0].by_compile  # the check ran in one compile
    assert where in compiles and compiles[where].graphs == 1  # the code after the print: its only graph
    print_break = next(finding for finding in found if finding.kind == "graph-break")
    assert where in print_break.compile_ids
    # The code after the print (where the setup ran) compiles either way: not in the break's cost, and the setup in
    # no cost at all; what is left is the work the break threw away.
    assert where not in {i for i in print_break.compile_ids if compiles[i].graphs == 0}
    created = {i for i in print_break.compile_ids if (compiles[i].frame or "").startswith("torch_dynamo_resume_in")}
    assert where in created
    expected = sum(compiles[i].time_ns - setup.within(i) for i in print_break.compile_ids if i not in created) / 1e9
    assert print_break.cost_s <= expected + 1e-6
    summary = render(trace, facts, Style(False))
    assert "One-time setup took" in summary and "CPU vector-ISA check: " in summary
    # The slow-stage note no longer names the ISA check: the one-time note says it.
    assert not any(finding.kind == "slow-stage" and "vector-ISA" in finding.what for finding in found)

"""The toolbox's detectors and output reading: torch's wordings, look-alikes, and the committed recording."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import pytest

from tracers.vocabulary.releases import REFERENCE_TORCH
from walkthrough.toolbox.detect import EXCERPT_LINES, MAX_EXCERPT_LINES, Evidence, detect, excerpt_at, features
from walkthrough.toolbox.outputs import Doc, documents, file_documents, html_text, normalize
from walkthrough.toolbox.recording import TOOLBOX_DIR, dumps, find_recording, from_dict, load
from walkthrough.toolbox.runner import StepRun, ToolRun
from walkthrough.toolbox.tools import PLAIN, TOOL_BY_ID

pytestmark = pytest.mark.pure

ROOT = Path(__file__).resolve().parents[3]
EXAMPLE = "docs/examples/graph_breaks.py"
FEATURES = {feature.id: feature for feature in features(EXAMPLE)}
GLOG = "V1122 01:13:52.309000 11169 site-packages/torch/_dynamo/symbolic_convert.py:5124] [0/0] "


def found(feature_id: str, *docs: Doc) -> Evidence | None:
    return detect(list(docs), FEATURES[feature_id])


# -- graph-break reasons: only with a line of the user's own file --------------------------------------------------

@pytest.mark.parametrize("text, lines, first_line", [
    (GLOG + "[__graph_breaks] Graph break in user code at ./docs/examples/graph_breaks.py:10\n", "line 10", 1),
    ('W1122 tensor.py:1759] [1/0] Graph break: from user code at:\n'
     'W1122 tensor.py:1759] [1/0]   File "docs/examples/graph_breaks.py", line 11, in resume\n', "line 11", 1),
    ("Break Reason 1:\n    Reason: Failed to trace builtin operator\n  Hint: a hint\n    User Stack:\n"
     "      <FrameSummary file ./docs/examples/graph_breaks.py, line 10 in scale_and_report>\n"
     "  Break Reason 2:\n    Reason: Unsupported Tensor.item()\n    User Stack:\n"
     "      <FrameSummary file ./docs/examples/graph_breaks.py, line 11 in scale_and_report>\n", "lines 10, 11", 1),
    ("Graphs 7   Graph breaks 4\n  break  [0/0] docs/examples/graph_breaks.py:10: Failed to trace\n"
     "  break  [1/0_1] docs/examples/graph_breaks.py:11: Unsupported\n", "lines 10, 11", 2),
])
def test_break_reasons_in_each_of_torchs_wordings_give_the_users_lines(text, lines, first_line):
    evidence = found("break_reason", Doc("stderr", text))
    assert evidence is not None and evidence.detail == lines and evidence.line == first_line


def test_the_examples_own_file_name_is_not_a_graph_break():
    """graph_breaks.py contains "graph_break": a guard comment naming the file says nothing about a break."""
    guard = "| +- TENSOR_MATCH: check_tensor(L['x'])  # y = torch.sin(x) * 2  # docs/examples/graph_breaks.py:9\n"
    assert found("break_reason", Doc("stderr", guard)) is None
    # A reason without any line of the user's file (tlparse's failures page) does not count either.
    assert found("break_reason", Doc("failures_and_restarts.html", "RestartAnalysis Failed to trace builtin "
                                                                   "operator\n", "html")) is None
    # Another program's break line is not this example's.
    assert found("break_reason", Doc("stderr", "Graph break in user code at other.py:3\n")) is None


# -- recompile reasons --------------------------------------------------------------------------------------------

def test_recompile_reasons_from_logs_the_structured_trace_its_records_and_the_summary():
    logs = (GLOG + "[__recompiles] Recompiling function scale_and_report in graph_breaks.py:8\n"
            + GLOG + "[__recompiles]     triggered by the following guard failure(s):\n"
            + GLOG + "[__recompiles]     - 0/0: tensor 'x' size mismatch at index 0. expected 16, actual 32\n")
    raw = ('V1122 guards.py:5400] {"artifact": {"name": "recompile_reasons", "encoding": "json"}, "frame_id": 1}\n'
           "\t1/0: tensor 'y' size mismatch at index 0. expected 16, actual 32\n")
    record = Doc("tl_out/-_2_1_0/recompile_reasons_88.json", "2/0: tensor 'y' size mismatch at index 0.")
    summary = Doc("stderr", "  recompile [0/1] 0/0: tensor 'x' size mismatch at index 0. expected 16, actual 32\n")
    evidence = found("recompile_reason", Doc("stderr", logs), Doc("trace.log", raw, "jsonl"), record, summary)
    assert evidence.source == "stderr" and evidence.detail == "3 distinct"  # 0/0 twice, 1/0, 2/0
    assert "guard failure" in evidence.excerpt
    # The same words in a file that is not a recompile record, or a compile id without a reason, do not count.
    assert found("recompile_reason", Doc("notes.txt", "2/0: tensor 'y' size mismatch")) is None
    assert found("recompile_reason", Doc("stderr", "Recompiling function f\n")) is None


# -- the other facts: one signature each, positive and negative ---------------------------------------------------

@pytest.mark.parametrize("feature_id, shows, does_not", [
    ("guards", "| | +- TENSOR_MATCH: check_tensor(L['x'], Tensor, ...)", "guard_count: 11"),
    ("guards", "__guard_hit = __guard_hit and check_tensor(L['y'], Tensor)", "check_tensor(x)"),
    ("dynamo_graph", '    def forward(self, s77: "Sym(s77)", L_x_: "f32[s77][1]cpu"):',
     '    def forward(self, arg0_1: "f32[16]"):'),
    ("aot_graph", '    def forward(self, arg0_1: "f32[16][1]cpu"):', '    def forward(self, L_x_: "f32[16]"):'),
    ("aot_graph", "    def forward(self, primals_1, primals_2):", "def forward(self, x):"),
    ("aot_graph", '    def forward(\n        self,\n        arg0_1: "f32[16][1]cpu",  # PlainAOTInput(idx=0)\n    ):',
     "    def forward(\n        self,\n        x,\n    ):"),
    ("dynamo_graph", '    def forward(\n        self,\n        s77: "Sym(s77)",\n        L_x_: "f32[s77][1]cpu",\n    ):',
     '    def forward(\n        self,\n        arg0_1,\n    ):\n        l_x_ = arg0_1'),
    ("inductor_ir", "op0: SchedulerNode(ComputedBuffer)", "buf0 = empty_strided_cpu((16, ), (1, ))"),
    ("inductor_ir", "        load = ops.load('arg0_1', get_index)", "tl.load(in_ptr0 + x0)"),
    ("kernel_code", "cpp_fused_mul_sin_0 = async_compile.cpp_pybinding(['const float*'], r'''",
     "async_compile = AsyncCompile()"),
    ("kernel_code", "@triton.jit\ndef triton_poi_fused_mul_sin_0(in_ptr0, out_ptr0, xnumel):", "import triton"),
    ("compile_times", '{"compilation_metrics": {"entire_frame_compile_time_s": 10.8}}', '"compile_id": "0/0"'),
    ("compile_times", "Compile Times: TorchDynamo compilation metrics:", "compile took long"),
    ("cache", '{"artifact": {"name": "fx_graph_cache_miss", "encoding": "json"}}', "cache_size: 0"),
    ("cache", "Graphs 7   Graph breaks 4   Recompiles 3   Cache fx_graph 6 miss; aotautograd 7 miss",
     "Cache not consulted"),
    ("source_view", "    graph_out_0 = __compiled_fn_2_2def107f(x)", " ===== __compiled_fn_2_bc786cce ====="),
    ("bytecode", '{"artifact": {"name": "f_at_10_MODIFIED_BYTECODE"}}\n\t 10           0 RESUME    0',
     '{"artifact": {"name": "f_at_10_MODIFIED_BYTECODE"}}\n\t{"size": 3}'),  # a name alone is no bytecode
])
def test_each_fact_has_a_signature_that_matches_torchs_wording_and_not_a_look_alike(feature_id, shows, does_not):
    assert found(feature_id, Doc("out.txt", shows)) is not None
    assert found(feature_id, Doc("out.txt", does_not)) is None


def test_decompiled_source_is_shown_from_the_def_that_calls_the_graph():
    code = ("def __transformed_code_0_for_f(x):\n    y = None\n    graph_out_0 = __compiled_fn_2_abc(x)\n"
            "    print('half way')\n    return __resume_at_76_3(graph_out_0)\n")
    evidence = found("source_view", Doc("depyf_out/__transformed_code_0_for_f.py", code))
    assert evidence.line == 1 and evidence.excerpt.startswith("def __transformed_code_0_for_f(x):")
    assert "__resume_at_76_3" in evidence.excerpt


def test_facts_told_by_a_files_name_or_format():
    assert found("cache", Doc("tl_out/-_0_0_1/fx_graph_cache_miss_11.json", "{}", "json")) is not None
    assert found("bytecode", Doc("tl_out/-_1_0_0/f_MODIFIED_BYTECODE_85.txt", " 10  0 RESUME  0")) is not None
    assert found("html_report", Doc("tl_out/index.html", "Stack trie", "html")).source == "tl_out/index.html"
    assert found("html_report", Doc("notes.txt", "<html>not parsed as a page</html>")) is None
    assert found("machine_readable", Doc("trace.log", "V1122 x.py:1] {}", "jsonl")) is not None
    assert found("machine_readable", Doc("stderr", '{"looks": "like json"}')) is None
    assert found("timeline", Doc("trace.json", '{\n "traceEvents": [\n]}', "json")) is not None
    assert found("timeline", Doc("events.json", '[\n {\n  "ph": "B",\n  "name": "dynamo"\n }\n]', "json"))
    assert found("timeline", Doc("metrics.json", '{\n "traceEvents_count": 1\n}', "json")) is None


def test_first_document_in_order_is_the_evidence_and_the_excerpt_starts_at_the_match():
    filler = "\n".join(f"line {number}" for number in range(1, 60))
    docs = [Doc("stderr", "nothing here"), Doc("a.txt", f"{filler}\nop0: SchedulerNode(ComputedBuffer)\n{filler}"),
            Doc("b.txt", "op1: SchedulerNode(ComputedBuffer)")]
    evidence = found("inductor_ir", *docs)
    assert (evidence.source, evidence.line) == ("a.txt", 60)
    lines = evidence.excerpt.splitlines()
    assert lines[0] == "op0: SchedulerNode(ComputedBuffer)" and lines[1] == "line 1" and len(lines) == EXCERPT_LINES


def test_excerpts_cut_long_lines_and_long_matches():
    text = "x" * 500 + "\n" + "\n".join("y" for _ in range(100))
    line, excerpt = excerpt_at(text, 0, len(text))
    assert line == 1 and len(excerpt.splitlines()) == MAX_EXCERPT_LINES
    assert excerpt.splitlines()[0].endswith("…") and len(excerpt.splitlines()[0]) == 180
    # A match deep inside a long line (a structured-trace record): the line is cut around it.
    record = '{"compilation_metrics": {' + '"a": 1, ' * 80 + '"entire_frame_compile_time_s": 10.8, ' + '"b": 2, ' * 80
    found_at = record.index("entire_frame")
    _, around = excerpt_at(record + "\nnext", found_at, found_at + 10)
    first = around.splitlines()[0]
    assert first.startswith("…") and first.endswith("…") and "entire_frame_compile_time_s" in first
    assert len(first) == 180 and around.splitlines()[1] == "next"


# -- reading a tool's output --------------------------------------------------------------------------------------

def _run(tool_id: str, out: Path, stdout: str = "", stderr: str = "") -> ToolRun:
    step = StepRun("run", "python x.py", True, 0, 1.0, 1.0, stdout, stderr)
    return ToolRun(TOOL_BY_ID[tool_id], out, (step,))


def test_lines_a_plain_run_prints_too_are_not_the_tools(tmp_path):
    warning = "W1122 01:14:28.191000 {pid} site-packages/torch/_dynamo/variables/tensor.py:1759] [1/0] Graph break"
    plain = _run(PLAIN.id, tmp_path / "plain", "half way\n", warning.format(pid=11) + "\n")
    (tmp_path / "plain").mkdir()
    logs = _run("torch_logs", tmp_path / "logs", "half way\n",
                warning.format(pid=22) + "\n" + GLOG + "Graph break in user code at graph_breaks.py:10\n")
    (tmp_path / "logs").mkdir()
    docs = documents(logs, plain)
    assert [(doc.source, doc.text) for doc in docs] == [
        ("stderr", GLOG + "Graph break in user code at graph_breaks.py:10")]
    assert normalize(warning.format(pid=11)) == normalize(warning.format(pid=22))
    # The plain run itself keeps everything it printed.
    assert [doc.source for doc in documents(plain, plain)] == ["stdout", "stderr"]


def test_files_become_documents_shallow_first_with_json_strings_and_html_text(tmp_path):
    out = tmp_path / "tool"
    (out / "deep" / "er").mkdir(parents=True)
    (out / "deep" / "er" / "a.txt").write_text("deep")
    (out / "index.html").write_text("<html><head><style>p{}</style><title>Report</title></head>"
                                    "<body><p>a &amp; b</p><pre>def <span>forward</span>(self)</pre>"
                                    "<script>var x = '<b>';</script></body></html>")
    (out / "trace.json").write_text(json.dumps({"artifacts": [{"name": "dynamo_output_graph",
                                                               "payload": "class G:\n    def forward(self): ..."}]}))
    (out / "raw.log").write_text('V1122 01:13:52.309000 11169 torch/_logging/structured.py:22] {"str": ["a", 0]}\n'
                                 "\tpayload line\n")
    (out / "kernel.so").write_bytes(b"\x7fELF\x00\x00binary")
    docs = documents(_run("toolkit", out))
    assert [(doc.source, doc.format) for doc in docs] == [
        ("index.html", "html"), ("raw.log", "jsonl"), ("trace.json#artifacts[0:dynamo_output_graph].payload", "text"),
        ("trace.json", "json"), ("deep/er/a.txt", "text")]
    assert docs[0].text == "Report\na & b\ndef forward(self)"
    assert docs[2].text.startswith("class G:\n    def forward")


def test_numbered_folders_go_in_number_order_and_names_compare_numbers_as_numbers(tmp_path):
    out = tmp_path / "tool"
    compile_dir, dumps = out / "tl_out" / "-_0_0_1", out / "depyf_out"
    compile_dir.mkdir(parents=True)
    dumps.mkdir()
    for name in ("after_pre_grad_graph_5.txt", "dynamo_output_graph_2.txt", "compilation_metrics_18.html"):
        (compile_dir / name).write_text("x")  # tlparse numbers every file: the order torch logged them
    for name in ("__compiled_fn_12.kernel_0.py", "__compiled_fn_2.kernel_0.py", "full_code_for_f_0.py",
                 "__transformed_code_0_for_f_at_10.py", "__transformed_code_0_for_f.py"):
        (dumps / name).write_text("x")  # not every name ends in a number: by name, 2 before 12
    sources = [doc.source for doc in documents(_run("depyf", out))]
    assert sources == [
        "depyf_out/__compiled_fn_2.kernel_0.py", "depyf_out/__compiled_fn_12.kernel_0.py",
        "depyf_out/__transformed_code_0_for_f.py", "depyf_out/__transformed_code_0_for_f_at_10.py",
        "depyf_out/full_code_for_f_0.py",
        "tl_out/-_0_0_1/dynamo_output_graph_2.txt", "tl_out/-_0_0_1/after_pre_grad_graph_5.txt",
        "tl_out/-_0_0_1/compilation_metrics_18.html"]


def test_evidence_comes_from_where_a_user_looks_first(tmp_path):
    """tlparse copies the raw log beside its report; the per-compile page is the evidence, not the copy."""
    out = tmp_path / "tool"
    (out / "tl_out" / "-_0_0_0").mkdir(parents=True)
    (out / "trace").mkdir()
    record = "Graph break in user code at ./docs/examples/graph_breaks.py:10\n"
    (out / "trace" / "dedicated_log_torch_trace_x.log").write_text("V1122 a.py:1] {}\n\t" + record)
    (out / "tl_out" / "raw.log").write_text("V1122 a.py:1] {}\n\t" + record)
    (out / "tl_out" / "-_0_0_0" / "dynamo_graph_break_reason_1.txt").write_text(record)
    (out / "tl_out" / "index.html").write_text("<p>Stack trie</p>")
    docs = documents(_run("torch_trace", out))
    assert [doc.source for doc in docs] == ["tl_out/index.html", "tl_out/-_0_0_0/dynamo_graph_break_reason_1.txt",
                                            "tl_out/raw.log", "trace/dedicated_log_torch_trace_x.log"]
    assert found("break_reason", *docs).source == "tl_out/-_0_0_0/dynamo_graph_break_reason_1.txt"


def test_html_text_drops_scripts_and_decodes_entities():
    assert html_text("<div>x &lt;y&gt;</div><script>alert('<p>')</script><p>z</p>") == "x <y>\nz"


def test_a_json_file_that_does_not_parse_is_text(tmp_path):
    path = tmp_path / "recompile_reasons_1.json"
    path.write_text("0/0: tensor 'x' size mismatch")  # tlparse writes some records this way
    assert file_documents(path.name, path) == [Doc(path.name, "0/0: tensor 'x' size mismatch")]


# -- the committed recording ----------------------------------------------------------------------------------------

RECORDING = find_recording(ROOT / TOOLBOX_DIR, "graph_breaks", "cpu", REFERENCE_TORCH)


@pytest.fixture(scope="module")
def recording():
    assert RECORDING is not None, "no committed toolbox recording: python -m walkthrough.toolbox record"
    return load(RECORDING)


def test_committed_recording_is_scrubbed_and_round_trips(recording):
    text = RECORDING.read_text()
    for machine_path in (str(ROOT), str(Path.home()) + "/", str(Path(tempfile.gettempdir()) / "toolbox-")):
        assert machine_path not in text
    assert from_dict(json.loads(dumps(recording))) == recording
    assert [tool.id for tool in recording.tools] == ["plain", "torch_logs", "torch_trace", "torch_compile_debug",
                                                     "explain", "depyf", "toolkit"]
    assert all(tool.status == "ok" for tool in recording.tools), [(t.id, t.error) for t in recording.tools]


def test_every_recorded_excerpt_still_shows_its_fact(recording):
    """Re-detect on the excerpt alone: the evidence is the real output, not a label someone attached."""
    for tool in recording.tools:
        for evidence in tool.evidence:
            signatures = FEATURES[evidence.feature].signatures
            if all(signature.formats or signature.pattern.pattern == r"\A" for signature in signatures):
                continue  # decided by the file's format or name, which the excerpt does not carry
            doc = Doc(evidence.source, evidence.excerpt)
            assert any(next(signature.finditer(doc), None) for signature in signatures), (tool.id, evidence)


def test_what_the_recording_says_about_each_tool(recording):
    shows = {tool.id: {evidence.feature for evidence in tool.evidence} for tool in recording.tools}
    lines = {tool.id: tool.shows("break_reason").detail for tool in recording.tools if tool.shows("break_reason")}
    # Torch warns about the .item() break even in a plain run, and about nothing else.
    assert shows["plain"] == {"break_reason"} and lines["plain"] == "line 11"
    for tool in ("torch_logs", "torch_trace", "torch_compile_debug", "explain", "toolkit"):
        assert lines[tool] == "lines 10, 11", tool
    # explain resets Dynamo around each call, so it never sees the second input recompile.
    assert "recompile_reason" not in shows["explain"] and "recompile_reason" in shows["torch_logs"]
    # The toolkit's decompiled source is depyf's decompiler at work (installed in the toolbox session).
    assert {"source_view"} <= shows["depyf"] and "source_view" in shows["toolkit"]
    assert {"inductor_ir", "kernel_code", "timeline", "html_report"} <= shows["toolkit"]
    assert {"compile_times", "html_report", "cache"} <= shows["torch_trace"]
    assert {"inductor_ir", "kernel_code"} <= shows["torch_compile_debug"]

"""Two modules compiled by two torch.compile calls that run one code: the second one's first version is said as the
shared code, never as a size of its input that changed."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from tracers.analysis.guard_failures import parse_failure
from tracers.analysis.run_evidence import CompileCall, RunEvidence
from tracers.analysis.shared_code import shared_code
from tracers.tracefile.events import Artifact

pytestmark = pytest.mark.pure

_SEQUENTIAL = {"compiled_name": "Sequential.forward", "compiled_file": "/venv/torch/nn/modules/container.py",
               "compiled_line": 248}


def _trace(lines: dict[str, str]) -> SimpleNamespace:
    records = [(compile_id, {"callers": [{"filename": "/home/u/gan.py", "line": 20 + index, "name": "<module>",
                                          "loc": code}]}) for index, (compile_id, code) in enumerate(lines.items())]
    return SimpleNamespace(artifacts=[Artifact(index, "frame", "dynamo_start", compile_id, None, 1, index, metadata)
                                      for index, (compile_id, metadata) in enumerate(records)])


def _evidence(failures: dict) -> RunEvidence:
    calls = [CompileCall("/home/u/gan.py", 10, 'cG = torch.compile(G, backend="aot_eager")', {}, **_SEQUENTIAL),
             CompileCall("/home/u/gan.py", 11, 'cD = torch.compile(D, backend="aot_eager")', {}, **_SEQUENTIAL)]
    return RunEvidence(calls=calls, failures=failures)


def test_the_second_objects_first_call_is_the_shared_code_not_a_size_change():
    size = parse_failure("0/0: tensor 'args[0]' size mismatch at index 1. expected 8, actual 2")
    trace = _trace({"0/0": "fake = cG(z)", "0/1": "d_loss = d_loss_fn(cD(real), cD(fake.detach()), label)"})
    [note], firsts = shared_code(trace, _evidence({"0/1": size}))
    assert firsts == {"0/1"} and note.informational and note.kind == "shared-code"
    assert note.what.startswith("`cG` (torch.compile at gan.py:10), `cD` (torch.compile at gan.py:11) compile one "
                                "code, `Sequential.forward`")
    assert note.parts == ("0/1: the first call through `cD` failed the guards of `cG`'s version (0/0)",)
    assert "one recompile limit" in note.fix


def test_a_recompile_through_the_same_object_is_left_to_the_recompile_findings():
    grad = parse_failure("0/1: ___check_tensor_requires_grad L['args'][0]")
    trace = _trace({"0/1": "d_loss = d_loss_fn(cD(real), cD(fake.detach()), label)",
                    "0/2": "g_loss = bce(cD(fake), ones)"})
    assert shared_code(trace, _evidence({"0/2": grad})) == ([], set())

"""The HF Trainer's evaluation of the model it compiled only for training: counted per line of the user's that ran it,
said as one finding per model, and the Trainer's method put back exactly (a stand-in ``transformers.trainer``)."""

from __future__ import annotations

import sys
import types

import pytest
import torch
import torch._dynamo

from tracers.analysis.uncompiled_methods import uncompiled_methods
from tracers.capture.session import TraceSession

pytestmark = pytest.mark.torch

# Compiled under a pseudo-file name, so its frames are a library's, as the real Trainer's are.
_TRAINER = '''
class Trainer:
    def __init__(self, model, wrapped, backend=None):
        self.model, self.model_wrapped = model, wrapped
        self.args = type("Args", (), {"torch_compile_backend": backend, "torch_compile_mode": None})()

    def prediction_step(self, model, inputs):
        return model(inputs)

    def evaluate(self, batches, through_wrapper=False):
        model = self.model_wrapped if through_wrapper else self.model
        return [self.prediction_step(model, batch) for batch in batches]
'''


@pytest.fixture
def trainer_class(monkeypatch):  # noqa: ANN001, ANN201 - pytest's fixtures
    torch._dynamo.reset()
    module = types.ModuleType("transformers.trainer")
    exec(compile(_TRAINER, "<transformers.trainer stand-in>", "exec"), vars(module))  # noqa: S102 - our own text
    monkeypatch.setitem(sys.modules, "transformers.trainer", module)
    yield module.Trainer
    torch._dynamo.reset()


def _batches(count: int) -> list[torch.Tensor]:
    return [torch.ones(2, 4) for _ in range(count)]


def test_evaluation_of_the_model_held_compiled_is_one_finding_with_a_part_per_line(trainer_class):  # noqa: ANN001
    original = vars(trainer_class)["prediction_step"]
    model = torch.nn.Linear(4, 2)
    trainer = trainer_class(model, torch.compile(model, backend="aot_eager"), backend="aot_eager")
    session = TraceSession()
    with session:
        trainer.evaluate(_batches(3))  # the epoch-end evaluation
        metrics = trainer.evaluate(_batches(2))  # the user's own
    assert len(metrics) == 2
    assert vars(trainer_class)["prediction_step"] is original, "the Trainer's method put back"
    records = sorted((a.metadata for a in session.trace.artifacts if a.name == "uncompiled_evaluation"),
                     key=lambda meta: meta["line"])
    assert [(meta["batches"], meta["filename"], meta["module"]) for meta in records] == \
        [(3, __file__, "Linear"), (2, __file__, "Linear")]
    assert "trainer.evaluate(_batches(2))" in records[1]["loc"]
    (finding,) = uncompiled_methods(session.trace)
    assert finding.kind == "uncompiled-method" and finding.eager_calls == finding.events == 5
    assert finding.what.startswith("`trainer.evaluate(_batches(3))` and `trainer.evaluate(_batches(2))` evaluated "
                                   "`Linear` uncompiled")  # ``metrics = `` left out of the call said
    assert finding.user_line.line == records[0]["line"] and len(finding.parts) == 2
    assert '`model.compile(backend="aot_eager")`' in finding.advice


def test_nothing_is_counted_where_the_evaluation_runs_compiled_or_nothing_is(trainer_class):  # noqa: ANN001
    model = torch.nn.Linear(4, 2)
    compiled = trainer_class(model, torch.compile(model, backend="aot_eager"))
    eager = trainer_class(model, model)
    in_place = torch.nn.Linear(4, 2)
    in_place.compile(backend="aot_eager")
    both = trainer_class(in_place, torch.compile(in_place, backend="aot_eager"))
    session = TraceSession()
    with session:
        compiled.evaluate(_batches(2), through_wrapper=True)  # torch.compile's wrapper handed over: compiled
        eager.evaluate(_batches(2))  # nothing compiled to miss
        both.evaluate(_batches(2))  # compiled in place: the original model runs compiled too
    assert not [a for a in session.trace.artifacts if a.name == "uncompiled_evaluation"]
    assert not uncompiled_methods(session.trace)


def test_two_models_evaluated_uncompiled_are_two_findings_each_by_its_own_name(trainer_class):  # noqa: ANN001
    linear, stacked = torch.nn.Linear(4, 2), torch.nn.Sequential(torch.nn.Linear(4, 2))
    session = TraceSession()
    with session:
        trainer_class(linear, torch.compile(linear, backend="aot_eager")).evaluate(_batches(1))
        trainer_class(stacked, torch.compile(stacked, backend="aot_eager")).evaluate(_batches(2))
    found = sorted((finding.what.split(" evaluated ")[1].split(" uncompiled")[0], finding.events)
                   for finding in uncompiled_methods(session.trace))
    assert found == [("`Linear`", 1), ("`Sequential`", 2)]

"""What a caller's call passed, by parameter: read from the caller's suspended call, bound to the callee's signature."""

from __future__ import annotations

import ast
import sys

import pytest

from tracers.capture.call_sites import _bind, _signature, passed_arguments

pytestmark = pytest.mark.pure


def _params(source: str) -> ast.arguments:
    return ast.parse(source).body[0].args


@pytest.mark.parametrize(("call", "signature", "bound"), [
    ("model(images)", "def forward(self, x, scale=1.0): pass", {"x": "images"}),
    ("model(images, 2.0)", "def forward(self, x, scale=1.0): pass", {"x": "images", "scale": "2.0"}),
    ("model(input_ids=ids, attention_mask=mask)", "def wrapper(self, *args, **kwargs): pass",
     {"kwargs['input_ids']": "ids", "kwargs['attention_mask']": "mask"}),
    ("model(a, b)", "def wrapper(*args, **kwargs): pass", {"args[0]": "a", "args[1]": "b"}),
    ("f(batch['x'], mask=m)", "def f(x, *, mask=None): pass", {"x": "batch['x']", "mask": "m"}),
    ("model(*batch)", "def forward(self, x): pass", {}),  # what the sequence holds is not in the source
    ("model(**batch)", "def forward(self, x): pass", {}),
    ("model(a, b)", "def forward(self, x): pass", {}),  # more than it takes: not this function's call
])
def test_a_call_binds_as_python_binds_it(call: str, signature: str, bound: dict[str, str]) -> None:
    assert _bind(ast.parse(call, mode="eval").body, _params(signature)) == bound


def _compiled_stand_in(x, scale=1.0, between=("_call_impl",)):
    """Stands for the compiled function: asks, as the record handler does, what its caller passed (the caller's frame,
    torch's frames ``between``, then this one, as a ``dynamo_start`` record's stack has them)."""
    caller = sys._getframe(1)
    return passed_arguments([
        {"filename": caller.f_code.co_filename, "line": caller.f_lineno, "outside": True},
        *({"filename": "/site-packages/torch/nn/modules/module.py", "name": name, "outside": False} for name in between),
        {"filename": __file__, "name": "_compiled_stand_in", "line": _compiled_stand_in.__code__.co_firstlineno + 2}])


def test_the_call_is_read_from_the_callers_frame_exactly() -> None:
    images, target = object(), object()
    # Two calls on the line: the one the frame is executing is the one bound, by its position in the line.
    seen = (lambda first, second: second)(target, _compiled_stand_in(images, scale=0.5))
    assert seen == {"x": "images", "scale": "0.5"}


def test_a_frame_between_that_may_rearrange_the_arguments_maps_nothing() -> None:
    images = object()
    # DDP's forward sits between the user's call and the compiled module: it passes its own arguments on.
    assert _compiled_stand_in(images, between=("forward",)) == {}


def test_a_caller_off_the_stack_maps_nothing() -> None:
    assert passed_arguments([{"filename": "/nowhere.py", "line": 3, "outside": True},
                             {"filename": __file__, "name": "f", "line": 1}]) == {}
    assert passed_arguments([]) == {}


def test_a_decorated_function_is_found_from_its_first_decorator_line(tmp_path) -> None:
    # A decorated function's code starts at its decorator: torch's record names that line (co_firstlineno).
    source = tmp_path / "wrapped.py"
    source.write_text("import functools\n\n\ndef wrap(fn):\n    @functools.wraps(fn)\n"
                      "    def inner(*args, **kwargs):\n        return fn(*args, **kwargs)\n    return inner\n")
    params = _signature(str(source), "inner", 5)
    assert params is not None and params.vararg.arg == "args" and params.kwarg.arg == "kwargs"

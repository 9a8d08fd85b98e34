"""How a compiled frame is named: ``Class.method (file:line)``, a pass-through wrapper named after what it wraps."""

import collections
import dataclasses

import pytest

from tracers.capture.recorder import _wrapped_callable

pytestmark = pytest.mark.pure


def _passing_on(target):  # noqa: ANN001, ANN202 - a wrapper as libraries write them: (*args, **kwargs) passed on
    def __init__(self, *args, **kwargs):  # noqa: ANN001, ANN002, ANN003, ANN202, N807
        return target(self, *args, **kwargs)

    return __init__


def test_a_dataclass_init_is_named_with_its_class():
    """transformers' ModelOutput wraps the dataclass's generated ``__init__``, whose code (made from a string) knows
    only ``__init__``: the function's own name gives the class."""

    @dataclasses.dataclass
    class CausalLMOutput:
        loss: float = 0.0

    wrapper = _passing_on(CausalLMOutput.__init__)
    assert _wrapped_callable(wrapper.__code__, wrapper.__closure__) == "CausalLMOutput.__init__ (<string>:2)"


def test_a_namedtuple_constructor_is_named_with_its_class():
    Pair = collections.namedtuple("Pair", "left right")
    wrapper = _passing_on(Pair.__new__)
    assert _wrapped_callable(wrapper.__code__, wrapper.__closure__).startswith("Pair.__new__ (<string>:")


def test_a_function_written_in_a_file_keeps_its_code_s_name():
    """``functools.wraps`` copies a wrapped function's name onto its wrapper: in a file, the code's own name stands,
    so a name never points at another function's line."""

    def renamed(self, x):  # noqa: ANN001, ANN202
        return x

    renamed.__qualname__ = "Model.forward"  # as functools.wraps would leave it
    wrapper = _passing_on(renamed)
    assert _wrapped_callable(wrapper.__code__, wrapper.__closure__).startswith("renamed (test_frame_names.py:")

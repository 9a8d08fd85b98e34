"""Record real guard texts for tests/tracers/analysis/test_guard_sources.py: python tests/data/guard_sources/record_texts.py

Small programs compiled with aot_eager, each made to recompile once; torch's recompile reasons and guard trees
(its `recompiles` and `guards` logs) are written to texts-<torch release>.json beside this file."""

from __future__ import annotations

import json
import re
import logging
from pathlib import Path

import torch
import torch._dynamo

texts: dict[str, list[str]] = {"recompiles": [], "guards": []}


class Keep(logging.Handler):
    def __init__(self, kind: str) -> None:
        super().__init__()
        self.kind = kind

    def emit(self, record: logging.LogRecord) -> None:
        texts[self.kind].append(record.getMessage())


torch._logging.set_logs(recompiles=True, guards=True)
for name, kind in (("torch._dynamo.guards.__recompiles", "recompiles"), ("torch._dynamo.guards.__guards", "guards")):
    logger = logging.getLogger(name)
    logger.addHandler(Keep(kind))
    logger.propagate = False


def compiled(fn):
    torch._dynamo.reset()
    return torch.compile(fn, backend="aot_eager")


def sized(x):
    return x * 2


def scaled(x, factor):
    return x * factor


def crops(items):
    return sum(items)


def apply(x, fn):
    return fn(x)


class Block(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.layer = torch.nn.Linear(4, 4)
        self.register_buffer("scale", torch.ones(4))
        self.blocks = torch.nn.ModuleList([torch.nn.Linear(4, 4), torch.nn.Linear(4, 4)])
        self.alpha = 1.0

    def forward(self, input_ids, mask=None):
        y = self.blocks[1](self.layer(input_ids) * self.scale) * self.alpha
        return y if mask is None else y * mask


def wrapper(model, *args, **kwargs):
    return model(*args, **kwargs)


def breaks(x, n):
    return scaled(x, n * 2 + int(torch._dynamo.graph_break() or 0))


def closure(k):
    def inner(x):
        return x * k
    return inner


def defaults(x, k=2, *, j=3):
    return x * k * j


def run() -> None:
    f = compiled(sized); f(torch.randn(4, 64)); f(torch.randn(4, 96))
    f = compiled(sized); f(torch.randn(4)); f(torch.randn(4, dtype=torch.float64))
    f = compiled(scaled); f(torch.randn(4), 3); f(torch.randn(4), 4)
    f = compiled(crops); f([torch.randn(2), torch.randn(2)]); f([torch.randn(2)] * 3)
    f = compiled(apply); f(torch.randn(2), torch.sin); f(torch.randn(2), torch.cos)
    model = Block()
    f = compiled(model); f(torch.randn(2, 4)); model.alpha = 2.0; f(torch.randn(2, 4)); f(torch.randn(3, 4))
    f = compiled(wrapper); f(model, torch.randn(2, 4)); f(model, torch.randn(5, 4))
    f(model, input_ids=torch.randn(2, 4)); f(model, input_ids=torch.randn(6, 4))
    f(model, torch.randn(2, 4), mask=torch.ones(2, 4))
    f(model, torch.randn(2, 4), mask=torch.ones(2, 4, dtype=torch.float64))
    f = compiled(breaks); f(torch.randn(2), 3); f(torch.randn(2), 4)
    f = compiled(lambda x, g: g(x)); f(torch.randn(2), closure(2)); f(torch.randn(2), closure(3))
    f = compiled(lambda x, g: g(x)); f(torch.randn(2), defaults)
    defaults.__defaults__ = (5,); f(torch.randn(2), defaults)
    defaults.__kwdefaults__ = {"j": 7}; f(torch.randn(2), defaults)


if __name__ == "__main__":
    run()
    release = torch.__version__.split("+", 1)[0]
    out = Path(__file__).with_name(f"texts-{release}.json")
    # The checkout's path (torch cuts it to its last characters in comments) is no part of the texts.
    texts = {kind: [re.sub(r"[^\s\"]*record_texts\.py", "record_texts.py", text) for text in items]
             for kind, items in texts.items()}
    out.write_text(json.dumps({"torch": torch.__version__, **texts}, indent=1) + "\n")
    print(out, {kind: len(items) for kind, items in texts.items()})

"""Issue 39's three training loops as a new user writes them: ``model = torch.compile(model)``, then the loss,
``loss.backward()`` and ``optimizer.step()`` outside the compiled call. HF GPT-2 (12 layers, batch 4 x 128, fp32,
AdamW), a Llama-style causal LM (8 layers, hidden 1024, batch 8 x 256, bf16 autocast, fused AdamW), timm ResNet-50
(batch 32, channels-last, bf16 autocast, SGD); random weights from configs.

``python loops.py MODEL [STEPS]`` runs the loop (what the tracer traces). With STEP_REFERENCE=1 it times the loop
itself instead, outside any tracer: a pair of CUDA events around each whole step (forward, loss, backward, optimizer)
after WARMUP steps, and one pair around all the timed steps; prints one JSON line, and appends it, with the side, to
the file STEP_REFERENCE_LOG names (so under ``trace --vs-eager`` both runs' own timings reach the checker: the steps
the tracer timed, timed by the script). TORCHDYNAMO_DISABLE=1 makes ``torch.compile`` hand the model back: the eager
reference. STEP_TINY=1 shrinks every model (a CPU smoke test)."""

from __future__ import annotations

import json
import os
import statistics
import sys

import torch
import torch.nn.functional as F

TINY = bool(os.environ.get("STEP_TINY"))
DEVICE = "cuda" if torch.cuda.is_available() else "cpu"
WARMUP = 10


def gpt2():  # noqa: ANN201 - (model, optimizer, batch, loss function, autocast dtype)
    from transformers import GPT2Config, GPT2LMHeadModel

    config = GPT2Config(n_layer=2, n_embd=64, n_head=2, vocab_size=512) if TINY else GPT2Config(n_layer=12)
    model = GPT2LMHeadModel(config).to(DEVICE)
    tokens = torch.randint(0, config.vocab_size, (2, 16) if TINY else (4, 128), device=DEVICE)
    return model, torch.optim.AdamW(model.parameters(), lr=1e-4), (tokens,), _lm_loss, None


def llama():  # noqa: ANN201
    from transformers import LlamaConfig, LlamaForCausalLM

    size = dict(hidden_size=64, intermediate_size=128, num_hidden_layers=2, num_attention_heads=2,
                num_key_value_heads=2, vocab_size=512) if TINY else \
        dict(hidden_size=1024, intermediate_size=2816, num_hidden_layers=8, num_attention_heads=16,
             num_key_value_heads=16, vocab_size=32000)
    model = LlamaForCausalLM(LlamaConfig(**size)).to(DEVICE)
    tokens = torch.randint(0, size["vocab_size"], (2, 16) if TINY else (8, 256), device=DEVICE)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4, fused=DEVICE == "cuda")
    return model, optimizer, (tokens,), _lm_loss, torch.bfloat16


def resnet50():  # noqa: ANN201
    import timm

    model = timm.create_model("resnet18" if TINY else "resnet50", pretrained=False)
    model = model.to(DEVICE).to(memory_format=torch.channels_last)
    images = torch.randn((2, 3, 64, 64) if TINY else (32, 3, 224, 224), device=DEVICE)
    labels = torch.randint(0, 1000, (images.shape[0],), device=DEVICE)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    return model, optimizer, (images.to(memory_format=torch.channels_last), labels), _class_loss, torch.bfloat16


def _lm_loss(model, batch):  # noqa: ANN001, ANN202
    (tokens,) = batch
    logits = model(input_ids=tokens).logits
    return F.cross_entropy(logits[:, :-1].reshape(-1, logits.shape[-1]).float(), tokens[:, 1:].reshape(-1))


def _class_loss(model, batch):  # noqa: ANN001, ANN202
    images, labels = batch
    return F.cross_entropy(model(images), labels)


MODELS = {"gpt2": gpt2, "llama": llama, "resnet50": resnet50}


def main() -> None:
    name, steps = sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 40
    torch.manual_seed(0)
    model, optimizer, batch, loss_of, dtype = MODELS[name]()
    model = torch.compile(model)  # the form the issue names; compile off: the model itself

    def step() -> torch.Tensor:
        with torch.autocast(DEVICE, dtype=dtype, enabled=dtype is not None):
            loss = loss_of(model, batch)
        loss.backward()
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
        return loss

    if os.environ.get("STEP_REFERENCE"):
        timed = reference(step, steps)
        print(json.dumps(timed))
        if os.environ.get("STEP_REFERENCE_LOG"):  # traced: each of the tracer's two runs says its own steps' time
            side = "eager" if os.environ.get("TORCHDYNAMO_DISABLE") == "1" else "compiled"
            with open(os.environ["STEP_REFERENCE_LOG"], "a", encoding="utf-8") as log:
                log.write(json.dumps({"side": side, **timed}) + "\n")
        return
    for _ in range(steps):
        loss = step()
    print(f"{name}: loss {loss.item():.4f} after {steps} steps")


def reference(step, steps: int) -> dict[str, float]:  # noqa: ANN001
    """CUDA events around each whole step after WARMUP, and around all of them: ms per step (median, mean)."""
    for _ in range(WARMUP):
        step()
    timed = steps - WARMUP
    if DEVICE != "cuda":  # the CPU smoke test: wall time
        import time

        marks = [time.perf_counter()]
        for _ in range(timed):
            step()
            marks.append(time.perf_counter())
        each = [1e3 * (later - earlier) for earlier, later in zip(marks, marks[1:])]
        return {"median_ms": statistics.median(each), "mean_ms": statistics.mean(each), "steps": timed}
    torch.cuda.synchronize()
    events = [torch.cuda.Event(enable_timing=True) for _ in range(timed + 1)]
    for index in range(timed):
        events[index].record()  # one event at each step's start: back to back, as the steps run
        step()
    events[timed].record()
    torch.cuda.synchronize()
    each = [earlier.elapsed_time(later) for earlier, later in zip(events, events[1:])]
    return {"median_ms": statistics.median(each), "mean_ms": events[0].elapsed_time(events[timed]) / timed,
            "steps": timed}


if __name__ == "__main__":
    main()

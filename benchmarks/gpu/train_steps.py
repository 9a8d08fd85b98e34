"""The two training steps issue 28 names, as a user would write them: a timm ResNet-50 (bf16 autocast, channels-last,
batch 32) and an HF GPT-2 (12 layers, batch 4 x 128), random weights built from configs, the whole step compiled with
Inductor's default mode. ``python train_steps.py MODEL [STEPS]`` prints the last loss; with SPEED_REFERENCE=1 it
times the steady steps itself instead (CUDA events around them, no tracer), and SPEED_PROFILE=DIR also writes
torch.profiler's own table of the compiled steps there."""

from __future__ import annotations

import json
import os
import statistics
import sys

import torch
import torch.nn.functional as F


def resnet50():  # noqa: ANN201 - (step function, its inputs)
    import timm

    model = timm.create_model("resnet50", pretrained=False).cuda().to(memory_format=torch.channels_last)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    images = torch.randn(32, 3, 224, 224, device="cuda").to(memory_format=torch.channels_last)
    labels = torch.randint(0, 1000, (32,), device="cuda")

    def train_step(x, y):
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = F.cross_entropy(model(x), y)
        loss.backward()
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
        return loss.detach()

    return train_step, (images, labels)


def gpt2():  # noqa: ANN201
    from transformers import GPT2Config, GPT2LMHeadModel

    model = GPT2LMHeadModel(GPT2Config(n_layer=12)).cuda()
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
    tokens = torch.randint(0, 50257, (4, 128), device="cuda")

    def train_step(ids):
        loss = model(input_ids=ids, labels=ids).loss
        loss.backward()
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
        return loss.detach()

    return train_step, (tokens,)


MODELS = {"resnet50": resnet50, "gpt2": gpt2}
WARMUP, TIMED = 10, 20  # the reference: CUDA events around 20 steady steps after 10 warm-up steps


def main() -> None:
    name, steps = sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 40
    torch.manual_seed(0)
    train_step, inputs = MODELS[name]()
    step = torch.compile(train_step)  # TORCHDYNAMO_DISABLE=1 (the eager reference): the function itself
    if os.environ.get("SPEED_REFERENCE"):
        reference(step, inputs)
        return
    for _ in range(steps):
        loss = step(*inputs)
    print(f"{name}: loss {loss.item():.4f} after {steps} steps")


def reference(step, inputs) -> None:  # noqa: ANN001
    """Timed outside the tracer: one pair of CUDA events around TIMED steady steps, then a pair per step; then
    torch.profiler's table."""
    for _ in range(WARMUP):
        step(*inputs)
    torch.cuda.synchronize()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(TIMED):
        step(*inputs)
    end.record()
    torch.cuda.synchronize()
    # Then each step on its own pair of events, as the tracer times calls: the median of those beside the mean.
    events = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)) for _ in range(TIMED)]
    for before, after in events:
        before.record()
        step(*inputs)
        after.record()
    torch.cuda.synchronize()
    result = {"ms_per_step": start.elapsed_time(end) / TIMED,
              "median_ms_per_call": statistics.median(before.elapsed_time(after) for before, after in events)}
    directory = os.environ.get("SPEED_PROFILE")
    if directory:
        from torch.profiler import ProfilerActivity, profile

        with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
            for _ in range(10):
                step(*inputs)
            torch.cuda.synchronize()
        averages = prof.key_averages()
        with open(os.path.join(directory, "profiler_table.txt"), "w") as table:
            table.write(averages.table(sort_by="device_time_total", row_limit=40))
        kernels = {}
        for event in prof.events():
            if getattr(event.device_type, "name", "CPU") != "CPU":
                kernels[event.name] = kernels.get(event.name, 0.0) + event.device_time_total / 1000 / 10
        with open(os.path.join(directory, "profiler_kernels.json"), "w") as out:
            json.dump(kernels, out, indent=0)  # device ms per step, by kernel name
        # An extern kernel (cuBLAS, cuDNN) has a library's name on the device: its aten op's device time stands in.
        ops = {average.key: average.device_time_total / 1000 / 10 for average in averages
               if average.key.startswith("aten::")}
        with open(os.path.join(directory, "profiler_ops.json"), "w") as out:
            json.dump(ops, out, indent=0)  # device ms per step, by aten op (its kernels' time)
    print(json.dumps(result))


if __name__ == "__main__":
    main()

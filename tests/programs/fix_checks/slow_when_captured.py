"""A .item() break (torch's hint: capture_scalar_outputs); the script then waits a minute where that setting is on,
as a run that hangs would: --check-fixes --fix-timeout stops the run with the fix and says it timed out."""

import time

import torch
import torch._dynamo.config


def scaled(x):
    return x * x.sum().item()


compiled = torch.compile(scaled, backend="aot_eager")
print("total", float(compiled(torch.ones(3)).sum()))
if torch._dynamo.config.capture_scalar_outputs:
    time.sleep(60)

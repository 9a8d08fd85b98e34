"""nonzero, then .tolist() of its rows, then a log line, in one compiled function: torch's hint for the nonzero break
(capture_dynamic_output_shape_ops) crashes at the .tolist(); ignoring the logging call drops its messages."""

import logging
import sys

import torch

logging.basicConfig(level=logging.INFO, stream=sys.stdout, format="%(levelname)s %(message)s")
logger = logging.getLogger("select")
torch.manual_seed(0)


def select(x):
    rows = torch.nonzero(x > 0)
    picked = rows[:, 0].tolist()
    logger.info("picked %d rows", len(picked))
    return x.sum() + len(picked)


select_compiled = torch.compile(select, backend="aot_eager")
for step in range(2):
    print("total", round(float(select_compiled(torch.randn(8, 4))), 4))

"""A training loop around `model = torch.compile(model)`: the compiled call is the forward, the step is the loop."""

# tracers-record: --vs-eager
# (python -m tracers record reads the line above: the recording also times each compiled call's forward, its
# backward and the step from one call to the next, against the same loop run eager; chapter 17 shows it.)

import torch

from speed import FEATURES, Block  # chapter 17's block, the one the per-call example above compiles

BLOCKS = 2
BATCH = 64
STEPS = 40


def main() -> None:
    # One CPU thread: on a small machine shared with other work, a parallel operator waits for whichever of its
    # threads the scheduler took away, and per-call times in milliseconds stop meaning anything (on a GPU it
    # changes nothing the GPU runs).
    torch.set_num_threads(1)
    torch.manual_seed(0)  # tensors and parameters on torch's default device: the GPU under `--device cuda`
    model = torch.nn.Sequential(*[Block() for _ in range(BLOCKS)])
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    model = torch.compile(model)  # the forward only: the loss, backward() and the optimizer run outside it
    inputs, targets = torch.randn(BATCH, FEATURES), torch.randn(BATCH, FEATURES)
    for _ in range(STEPS):
        optimizer.zero_grad(set_to_none=True)
        loss = torch.nn.functional.mse_loss(model(inputs), targets)
        loss.backward()  # the compiled backward runs here; the first one compiles it
        optimizer.step()  # eager: AdamW's update of every parameter
    print(f"loss {loss.item():.4f} after {STEPS} steps on {loss.device}")


if __name__ == "__main__":
    main()

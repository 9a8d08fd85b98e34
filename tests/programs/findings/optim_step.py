"""Only the optimizer step is compiled: the scheduler's wrapper around `opt.step` and `sched.step()` are skipped
by torch, while `Adam.step` itself compiles as a frame of its own."""
import torch
from torch import nn


def main():
    torch.manual_seed(0)
    model = nn.Linear(8, 2)
    opt = torch.optim.Adam(model.parameters(), lr=1e-2)
    sched = torch.optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.5)

    @torch.compile(backend="aot_eager")
    def optimizer_step():
        opt.step()
        sched.step()

    x, y = torch.randn(16, 8), torch.randn(16, 2)
    for step in range(4):
        loss = nn.functional.mse_loss(model(x), y)
        loss.backward()
        optimizer_step()
        opt.zero_grad(set_to_none=True)
        print(f"step {step} loss {loss.item():.4f}")


if __name__ == "__main__":
    main()

"""Fine-tuning that unfreezes one layer more at each stage: the trainable parameters change twice."""
import torch
from torch import nn


def main():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(8, 8), nn.ReLU(), nn.Linear(8, 8), nn.ReLU(), nn.Linear(8, 2))
    model.requires_grad_(False)
    compiled = torch.compile(model, backend="aot_eager")
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    x, y = torch.randn(16, 8), torch.randn(16, 2)
    for stage, layer in enumerate((model[4], model[2], model[0])):
        layer.requires_grad_(True)  # one more layer trains from this stage on
        for _ in range(2):
            loss = nn.functional.mse_loss(compiled(x), y)
            loss.backward()
            optimizer.step()
            optimizer.zero_grad()
        print(f"stage {stage} loss {loss.item():.4f}")


if __name__ == "__main__":
    main()

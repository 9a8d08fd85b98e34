"""dropout_epochs.py with its finding's fix applied: "Hold the value in a tensor": the rate `p` is a 0-d tensor.
F.dropout takes only a Python float, so the dropout is written out with the tensor rate."""
import torch
import torch.nn.functional as F
from torch import nn


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(16, 64)
        self.fc2 = nn.Linear(64, 4)

    def forward(self, x, p):
        hidden = F.relu(self.fc1(x))
        if self.training:
            hidden = hidden * (torch.rand_like(hidden) >= p) / (1 - p)
        return self.fc2(hidden)


def main():
    torch.manual_seed(0)
    model = MLP()
    compiled = torch.compile(model, backend="aot_eager")
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for epoch in range(4):
        p = torch.tensor(0.5 - 0.1 * epoch)
        for _ in range(2):
            loss = F.cross_entropy(compiled(torch.randn(8, 16), p), torch.randint(0, 4, (8,)))
            loss.backward()
            optimizer.step()
            optimizer.zero_grad()
        print(epoch, p.item(), loss.item())


if __name__ == "__main__":
    main()

"""A plain-PyTorch Conv1d + nn.GRU forecaster compiled as a module, trained on sliding windows of a sine-plus-noise
series (8 batches of 32 then one of 23 per epoch), then a streamed no_grad evaluation that carries the hidden state
h from chunk to chunk (blind round 9)."""
import torch
import torch.nn as nn


class Forecaster(nn.Module):
    def __init__(self, hidden=32, horizon=4):
        super().__init__()
        self.conv = nn.Conv1d(1, 16, kernel_size=3, padding=1)
        self.gru = nn.GRU(16, hidden, batch_first=True)
        self.head = nn.Linear(hidden, horizon)

    def forward(self, x, h=None):                 # x: (B, T)
        f = torch.relu(self.conv(x.unsqueeze(1))).transpose(1, 2)
        out, h = self.gru(f, h)
        return self.head(out[:, -1]), h


def main():
    torch.manual_seed(0)
    t = torch.arange(0, 2000, dtype=torch.float32)
    series = torch.sin(t / 20) + 0.1 * torch.randn_like(t)
    W, H = 48, 4
    idx = torch.arange(0, len(series) - W - H, 7)
    X = torch.stack([series[i:i + W] for i in idx]); Y = torch.stack([series[i + W:i + W + H] for i in idx])

    model = Forecaster()
    cmodel = torch.compile(model, backend="aot_eager")
    opt = torch.optim.Adam(model.parameters(), lr=3e-3)
    BS = 32
    for epoch in range(3):
        perm = torch.randperm(len(X)); tot = 0.0
        for i in range(0, len(X), BS):
            b = perm[i:i + BS]
            pred, _ = cmodel(X[b])
            loss = nn.functional.mse_loss(pred, Y[b])
            loss.backward(); opt.step(); opt.zero_grad(); tot += loss.item() * len(b)
        print(f"epoch {epoch} mse {tot / len(X):.4f}")
    model.eval()
    with torch.no_grad():
        h = None
        for k in range(3):                     # stream the eval series chunk by chunk, carrying h
            chunk = series[1500 + 96 * k:1500 + 96 * (k + 1)].unsqueeze(0)
            pred, h = cmodel(chunk, h)
        print("stream pred", [round(v, 3) for v in pred[0].tolist()])


if __name__ == "__main__":
    main()

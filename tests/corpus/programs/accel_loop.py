"""A small transformer-encoder classifier trained with accelerate (compiled model, prepare, accumulate)."""
import torch
import torch.nn as nn
from accelerate import Accelerator
from torch.utils.data import DataLoader, TensorDataset


class Encoder(nn.Module):
    def __init__(self, vocab=100, dim=32, classes=3):
        super().__init__()
        self.emb = nn.Embedding(vocab, dim)
        layer = nn.TransformerEncoderLayer(dim, nhead=2, dim_feedforward=64, batch_first=True, dropout=0.0)
        self.encoder = nn.TransformerEncoder(layer, num_layers=2, enable_nested_tensor=False)
        self.head = nn.Linear(dim, classes)

    def forward(self, tokens):
        h = self.encoder(self.emb(tokens))
        return self.head(h.mean(dim=1))


def main():
    torch.manual_seed(0)
    accelerator = Accelerator(gradient_accumulation_steps=2, cpu=True)
    tokens = torch.randint(0, 100, (48, 16))
    labels = tokens[:, 0] % 3
    loader = DataLoader(TensorDataset(tokens, labels), batch_size=8, shuffle=True)

    model = Encoder()
    model = torch.compile(model, backend="aot_eager")
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-3)
    model, optimizer, loader = accelerator.prepare(model, optimizer, loader)

    loss_fn = nn.CrossEntropyLoss()
    for epoch in range(2):
        model.train()
        for x, y in loader:
            with accelerator.accumulate(model):
                loss = loss_fn(model(x), y)
                accelerator.backward(loss)
                if accelerator.sync_gradients:
                    accelerator.clip_grad_norm_(model.parameters(), 1.0)
                optimizer.step()
                optimizer.zero_grad()
        model.eval()
        correct = 0
        with torch.no_grad():
            for x, y in loader:
                correct += (model(x).argmax(-1) == y).sum().item()
        accelerator.print(f"epoch {epoch}: last loss {loss.item():.4f}, train acc {correct / 48:.3f}")


if __name__ == "__main__":
    main()

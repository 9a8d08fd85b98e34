"""A small Lightning classifier compiled as Lightning's docs show, torch.compile(model) then trainer.fit: Lightning
compiles the step through the compiled module, and Dynamo fails inside self.log (torch 2.13, lightning 2.6.6)."""
import lightning as L
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset


class LitClassifier(L.LightningModule):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 4))

    def forward(self, x):
        return self.net(x)

    def training_step(self, batch, batch_idx):
        x, y = batch
        loss = nn.functional.cross_entropy(self(x), y)
        self.log("train_loss", loss)
        return loss

    def validation_step(self, batch, batch_idx):
        x, y = batch
        loss = nn.functional.cross_entropy(self(x), y)
        self.log("val_loss", loss)

    def configure_optimizers(self):
        return torch.optim.SGD(self.parameters(), lr=0.1)


def main():
    torch.manual_seed(0)
    data = TensorDataset(torch.randn(100, 16), torch.randint(0, 4, (100,)))
    train = DataLoader(data, batch_size=16)
    val = DataLoader(data, batch_size=32)
    model = torch.compile(LitClassifier(), backend="aot_eager")
    trainer = L.Trainer(max_epochs=2, accelerator="cpu", logger=False, enable_checkpointing=False,
                        enable_progress_bar=False, enable_model_summary=False, num_sanity_val_steps=0)
    trainer.fit(model, train, val)
    print(f"val loss {trainer.callback_metrics['val_loss']:.4f}")


if __name__ == "__main__":
    main()

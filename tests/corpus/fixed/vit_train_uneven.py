"""vit_train_uneven.py with its size finding's fix applied: "Drop it (DataLoader(..., drop_last=True))". (Its other
options: torch.compile(..., dynamic=True) also leaves one version but compiles slower than the two static ones
together; mark_dynamic(pixel_values, 0) alone stops the run, as the labels' batch stays static and specialises it, a
ConstraintViolationError.)"""
import torch
from torch.utils.data import DataLoader, TensorDataset
from transformers import ViTConfig, ViTForImageClassification


def main():
    torch.manual_seed(0)
    config = ViTConfig(image_size=32, patch_size=8, num_channels=3, hidden_size=32, num_hidden_layers=2,
                       num_attention_heads=2, intermediate_size=64, num_labels=5)
    model = ViTForImageClassification(config)
    compiled = torch.compile(model, backend="aot_eager")
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    images, labels = torch.randn(10, 3, 32, 32), torch.randint(0, 5, (10,))
    loader = DataLoader(TensorDataset(images, labels), batch_size=4, drop_last=True)  # 4, 4
    for epoch in range(2):
        for pixel_values, targets in loader:
            loss = compiled(pixel_values=pixel_values, labels=targets).loss
            loss.backward()
            optimizer.step()
            optimizer.zero_grad()
        print(epoch, loss.item())


if __name__ == "__main__":
    main()

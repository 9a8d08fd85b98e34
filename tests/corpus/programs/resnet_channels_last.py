"""Train a tiny ResNet in channels-last memory format, as the performance guides recommend on CPU."""
import torch
from transformers import ResNetConfig, ResNetForImageClassification


def main():
    torch.manual_seed(0)
    config = ResNetConfig(num_channels=3, embedding_size=8, hidden_sizes=[8, 16], depths=[1, 1], num_labels=3,
                          layer_type="basic")
    model = ResNetForImageClassification(config).to(memory_format=torch.channels_last)
    model = torch.compile(model, backend="aot_eager")
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    for step in range(3):
        pixel_values = torch.randn(4, 3, 32, 32).to(memory_format=torch.channels_last)
        labels = torch.randint(0, 3, (4,))
        loss = model(pixel_values=pixel_values, labels=labels).loss
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
    print(loss.item())


if __name__ == "__main__":
    main()

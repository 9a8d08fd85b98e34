"""ConvNeXt inference under CPU autocast (bfloat16), two batch sizes."""
import torch
from transformers import ConvNextConfig, ConvNextForImageClassification


def main():
    torch.manual_seed(0)
    config = ConvNextConfig(num_channels=3, num_stages=2, hidden_sizes=[8, 16], depths=[1, 1], num_labels=3,
                            image_size=32)
    model = ConvNextForImageClassification(config).eval()
    model = torch.compile(model, backend="aot_eager")
    with torch.no_grad(), torch.autocast("cpu", dtype=torch.bfloat16):
        for batch_size in (4, 4, 2):
            logits = model(pixel_values=torch.randn(batch_size, 3, 32, 32)).logits
            print(batch_size, logits.dtype, logits.argmax(-1).tolist())


if __name__ == "__main__":
    main()

"""convnext_multiscale_train with its finding's fix: "leave dynamic=False out" (and, as the round's expert fix, mode
left out and config.problem_type set before the first call: the other finding's "set it before the first call")."""
import random

import torch
from transformers import ConvNextConfig, ConvNextForImageClassification

SIZES = [32, 40, 48, 56, 64, 72, 80, 88, 96]


def main():
    torch.manual_seed(0); random.seed(0)
    cfg = ConvNextConfig(num_channels=3, hidden_sizes=[16, 32], depths=[1, 1], num_stages=2,
                         num_labels=5, patch_size=4)
    model = ConvNextForImageClassification(cfg)
    model.config.problem_type = "single_label_classification"
    cmodel = torch.compile(model, backend="aot_eager")
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)

    model.train()
    for step in range(14):
        s = random.choice(SIZES)
        x = torch.randn(8, 3, s, s); y = torch.randint(0, 5, (8,))
        out = cmodel(pixel_values=x, labels=y)
        out.loss.backward(); opt.step(); opt.zero_grad()
        if step % 4 == 0:
            print(f"step {step} size {s} loss {out.loss.item():.4f}")
    model.eval()
    with torch.no_grad():
        x = torch.randn(8, 3, 64, 64)
        print("eval logits", cmodel(pixel_values=x).logits.shape)


if __name__ == "__main__":
    main()

"""A program outside the corpus, read as a user would: timm's ResNet-50 trained with ``model = torch.compile(model)``,
bf16 autocast, channels-last, and a dataset that leaves a shorter last batch (6 batches of 32, then 20). Its first
screen (``python -m tracers trace`` on a GPU) is kept in benchmarks/gpu/ beside RESULTS.md's corpus section."""
import timm
import torch


def main():
    torch.manual_seed(0)
    model = timm.create_model("resnet50", pretrained=False).cuda().to(memory_format=torch.channels_last)
    model = torch.compile(model)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    data = torch.randn(212, 3, 224, 224, device="cuda").to(memory_format=torch.channels_last)
    targets = torch.randint(0, 1000, (212,), device="cuda")
    for images, labels in zip(data.split(32), targets.split(32)):
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = torch.nn.functional.cross_entropy(model(images), labels)
        loss.backward()
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
    print(f"loss {loss.item():.3f}")


if __name__ == "__main__":
    main()

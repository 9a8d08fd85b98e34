"""A small CNN whose crop [h, w] (a Python list) changes every step."""
import torch

torch.manual_seed(0)
net = torch.nn.Sequential(torch.nn.Conv2d(3, 8, 3, padding=1), torch.nn.ReLU(), torch.nn.Conv2d(8, 4, 3, padding=1))


@torch.compile(backend="aot_eager")
def forward(images: torch.Tensor, crop: list) -> torch.Tensor:
    h, w = crop
    return net(images[:, :, :h, :w]).mean()


images = torch.randn(2, 3, 64, 64)
for step in range(6):
    crop = [32 + 4 * step, 40 + 4 * step]
    forward(images, crop)

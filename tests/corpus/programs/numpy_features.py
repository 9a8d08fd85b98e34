"""A feature step that calls numpy inside the compiled function (log-mel-style normalisation)."""
import numpy as np
import torch


@torch.compile(backend="aot_eager")
def features(frames):
    spectrum = torch.fft.rfft(frames).abs()
    scale = np.log1p(spectrum.detach().numpy().mean())
    return torch.log1p(spectrum) / float(scale)


def main():
    torch.manual_seed(0)
    for step in range(3):
        out = features(torch.randn(4, 64))
        print(step, out.shape)


if __name__ == "__main__":
    main()

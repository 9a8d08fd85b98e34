"""A small plain-PyTorch GAN on 2-D points: generator and discriminator MLPs compiled as modules (both run
OptimizedModule's one frame), two Adam optimizers, D frozen with requires_grad_(False) while G learns, and a
compiled d_loss_fn whose one-sided label-smoothing value real_label (a Python float) is re-drawn every step and fed
to torch.full_like (blind round 9)."""
import random

import torch
import torch.nn as nn


def real_batch(n=64):
    theta = torch.rand(n) * 6.283
    return torch.stack([theta.cos(), theta.sin()], 1) + 0.05 * torch.randn(n, 2)


def main():
    torch.manual_seed(0); random.seed(0)
    G = nn.Sequential(nn.Linear(8, 64), nn.ReLU(), nn.Linear(64, 2))
    D = nn.Sequential(nn.Linear(2, 64), nn.LeakyReLU(0.2), nn.Linear(64, 1))
    optG = torch.optim.Adam(G.parameters(), lr=2e-4, betas=(0.5, 0.999))
    optD = torch.optim.Adam(D.parameters(), lr=2e-4, betas=(0.5, 0.999))
    cG = torch.compile(G, backend="aot_eager")
    cD = torch.compile(D, backend="aot_eager")

    @torch.compile(backend="aot_eager")
    def d_loss_fn(real_logits, fake_logits, real_label):
        bce = nn.functional.binary_cross_entropy_with_logits
        return bce(real_logits, torch.full_like(real_logits, real_label)) + \
            bce(fake_logits, torch.zeros_like(fake_logits))

    for it in range(30):
        real_label = 0.9 + 0.1 * random.random()       # one-sided label smoothing
        real, z = real_batch(), torch.randn(64, 8)
        fake = cG(z)
        d_loss = d_loss_fn(cD(real), cD(fake.detach()), real_label)
        optD.zero_grad(); d_loss.backward(); optD.step()
        D.requires_grad_(False)                         # freeze D while G learns
        g_loss = nn.functional.binary_cross_entropy_with_logits(cD(fake), torch.ones(64, 1))
        optG.zero_grad(); g_loss.backward(); optG.step()
        D.requires_grad_(True)
        if it % 10 == 0:
            print(f"it {it} d {d_loss.item():.4f} g {g_loss.item():.4f}")


if __name__ == "__main__":
    main()

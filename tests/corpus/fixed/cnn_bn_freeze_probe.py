"""cnn_bn_freeze_probe.py with the hook finding's fix: "Register the hook wrapped so that it runs eagerly,
`register_forward_hook(torch.compiler.disable(fn))` ... (or set torch._dynamo.config.skip_nnmodule_hook_guards = False
before the first compile, where hooks must change after compiling)"."""
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


def block(cin, cout):
    return nn.Sequential(nn.Conv2d(cin, cout, 3, padding=1), nn.BatchNorm2d(cout), nn.ReLU(),
                         nn.MaxPool2d(2))


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(block(3, 16), block(16, 32), block(32, 32))
        self.head = nn.Linear(32 * 4 * 4, 10)

    def forward(self, x):
        return self.head(self.features(x).flatten(1))


def main():
    torch._dynamo.config.skip_nnmodule_hook_guards = False  # the hook is added in the last epoch
    torch.manual_seed(0)
    net = Net()
    cnet = torch.compile(net, backend="aot_eager")
    opt = torch.optim.SGD(net.parameters(), lr=0.05, momentum=0.9)
    ds = TensorDataset(torch.randn(200, 3, 32, 32), torch.randint(0, 10, (200,)))
    loader = DataLoader(ds, batch_size=32, shuffle=True, generator=torch.Generator().manual_seed(0))
    feat_stats = []

    for epoch in range(3):
        net.train()
        if epoch >= 1:  # freeze BN running stats after warm-up
            for m in net.modules():
                if isinstance(m, nn.BatchNorm2d):
                    m.eval()
        if epoch == 2:
            net.features[2].register_forward_hook(torch.compiler.disable(
                lambda mod, inp, out: feat_stats.append(out.detach().abs().mean().item())))
        total = 0.0
        for x, y in loader:
            loss = nn.functional.cross_entropy(cnet(x), y)
            loss.backward()
            opt.step()
            opt.zero_grad()
            total += loss.item() * x.size(0)
        print(f"epoch {epoch} loss {total / len(ds):.4f}")
    mean = sum(feat_stats) / len(feat_stats) if feat_stats else float("nan")
    print(f"hook saw {len(feat_stats)} batches (expected {len(loader)}), mean |feat| {mean:.4f}")


if __name__ == "__main__":
    main()

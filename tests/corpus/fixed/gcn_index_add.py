"""gcn_index_add with its break finding's fix: "torch._dynamo.config.capture_dynamic_output_shape_ops = True"
(the round's fix1): bincount traced, no break."""
import torch
import torch.nn as nn

torch._dynamo.config.capture_dynamic_output_shape_ops = True


class GCNLayer(nn.Module):
    def __init__(self, d_in, d_out):
        super().__init__()
        self.lin = nn.Linear(d_in, d_out)

    def forward(self, x, src, dst, num_nodes):
        deg = torch.bincount(dst, minlength=num_nodes).clamp(min=1).to(x.dtype)
        msg = self.lin(x)[src]
        agg = torch.zeros(num_nodes, msg.shape[1]).index_add_(0, dst, msg)
        return torch.relu(agg / deg.unsqueeze(-1))


class GCN(nn.Module):
    def __init__(self):
        super().__init__()
        self.l1, self.l2 = GCNLayer(16, 32), GCNLayer(32, 32)
        self.head = nn.Linear(32, 3)

    def forward(self, x, edge_index, num_nodes):
        src, dst = edge_index
        h = self.l2(self.l1(x, src, dst, num_nodes), src, dst, num_nodes)
        return self.head(h.mean(0))


def main():
    torch.manual_seed(0)
    model = torch.compile(GCN(), backend="aot_eager")
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    for it, (n, e) in enumerate([(10, 30), (10, 30), (14, 40), (9, 25), (20, 64), (12, 33)]):
        x = torch.randn(n, 16)
        edge_index = torch.randint(0, n, (2, e))
        y = torch.tensor(it % 3)
        loss = nn.functional.cross_entropy(model(x, edge_index, n).unsqueeze(0), y.unsqueeze(0))
        opt.zero_grad(); loss.backward(); opt.step()
        print(f"graph {it} nodes {n} edges {e} loss {loss.item():.4f}")


if __name__ == "__main__":
    main()

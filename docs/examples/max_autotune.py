"""mode="max-autotune-no-cudagraphs": Inductor benchmarks several kernels for a matmul and keeps the fastest."""

import torch
import torch._inductor.config


class Layer(torch.nn.Module):
    def __init__(self, features: int = 512):
        super().__init__()
        self.linear = torch.nn.Linear(features, features)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        # The matmul has candidates to benchmark; the bias add and relu may end up in the winning
        # template's epilogue, or in a kernel of their own.
        return torch.relu(self.linear(x))


def main() -> None:
    torch.manual_seed(0)
    # Freezing turns the weights into constants of the graph: the C++ GEMM template that CPU
    # autotuning can choose needs that (on CUDA it changes nothing about the candidates).
    torch._inductor.config.freezing = True
    model = Layer().eval()
    # Without CUDA graphs, so that this trace shows autotuning alone; mode="max-autotune" adds what
    # reduce_overhead.py shows (chapter 15 compares the modes' settings).
    compiled = torch.compile(model, mode="max-autotune-no-cudagraphs")
    x = torch.randn(256, 512)
    with torch.no_grad():
        out = compiled(x)
        expected = model(x)
    # Candidates may sum in another order (and GPUs may use TF32): close, not bit-identical.
    error = (out - expected).abs().max().item() / expected.abs().max().item()
    print(f"{out.sum().item():.2f}  relative error vs eager {error:.1e}  on {out.device}")


if __name__ == "__main__":
    main()

"""A step that branches in Python on a tensor's value: the break's fix is the torch.where line to paste."""

import torch


def step(h):
    h = torch.relu(h)
    if h.sum() > 0:
        h = h * 2
    else:
        h = h - 1
    return h.mean()


def main() -> None:
    torch.manual_seed(0)
    compiled = torch.compile(step, backend="aot_eager")
    for _ in range(3):
        print(f"{compiled(torch.randn(4, 4)).item():.4f}")


if __name__ == "__main__":
    main()

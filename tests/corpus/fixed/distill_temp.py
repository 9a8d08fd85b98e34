"""distill_temp.py with its recompile finding's fix applied: "torch.compile(..., dynamic=True)" on the compiled
loss (temperature and alpha symbolic floats from the first compile)."""
import torch
import torch.nn as nn
import torch.nn.functional as F


@torch.compile(backend="aot_eager", dynamic=True)
def distill_loss(student_logits, teacher_logits, labels, temperature, alpha):
    soft_t = F.softmax(teacher_logits / temperature, dim=-1)
    log_s = F.log_softmax(student_logits / temperature, dim=-1)
    kd = F.kl_div(log_s, soft_t, reduction="batchmean") * temperature ** 2
    ce = F.cross_entropy(student_logits, labels)
    return alpha * kd + (1 - alpha) * ce


def main():
    torch.manual_seed(0)
    teacher = nn.Sequential(nn.Linear(20, 64), nn.ReLU(), nn.Linear(64, 5)).eval()
    student = nn.Sequential(nn.Linear(20, 32), nn.ReLU(), nn.Linear(32, 5))
    opt = torch.optim.SGD(student.parameters(), lr=0.1)
    steps = 10
    for step in range(steps):
        x = torch.randn(16, 20)
        y = torch.randint(0, 5, (16,))
        with torch.no_grad():
            t_logits = teacher(x)
        temperature = 4.0 * (0.8 ** step) + 1.0
        alpha = min(0.9, 0.1 * (step + 1))
        loss = distill_loss(student(x), t_logits, y, temperature, alpha)
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % 3 == 0:
            print(f"step {step}: T={temperature:.3f} alpha={alpha:.1f} loss={loss.item():.4f}")


if __name__ == "__main__":
    main()

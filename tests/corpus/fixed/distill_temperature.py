"""distill_temperature.py with its graph-break finding's fix applied: "Adding that function to
torch._dynamo.config.ignore_logging_functions": transformers.modeling_utils' `logger.warning_once`."""
import torch
import torch.nn as nn
import torch.nn.functional as F
import transformers.modeling_utils
from transformers import GPT2Config, GPT2LMHeadModel


def gpt2(layers):
    return GPT2LMHeadModel(GPT2Config(vocab_size=96, n_positions=32, n_embd=32, n_layer=layers,
                                      n_head=4, resid_pdrop=0.0, embd_pdrop=0.0, attn_pdrop=0.0))


class Distiller(nn.Module):
    def __init__(self, student, teacher, temperature=4.0, alpha=0.5):
        super().__init__()
        self.student, self.teacher = student, teacher
        self.temperature = temperature
        self.alpha = alpha

    def forward(self, input_ids, labels):
        s = self.student(input_ids=input_ids, labels=labels)
        with torch.no_grad():
            t = self.teacher(input_ids=input_ids).logits
        T = self.temperature
        kd = F.kl_div(F.log_softmax(s.logits / T, -1), F.softmax(t / T, -1),
                      reduction="batchmean") * T * T
        return self.alpha * kd + (1 - self.alpha) * s.loss


def main():
    torch._dynamo.config.ignore_logging_functions.add(transformers.modeling_utils.logger.warning_once)
    torch.manual_seed(0)
    teacher = gpt2(3).eval()
    student = gpt2(1)
    distiller = Distiller(student, teacher)
    opt = torch.optim.AdamW(student.parameters(), lr=1e-3)
    step_fn = torch.compile(distiller, backend="aot_eager")
    for step in range(6):
        distiller.temperature = 4.0 - 0.5 * step          # anneal the temperature
        g = torch.Generator().manual_seed(step)
        ids = torch.randint(0, 96, (2, 16), generator=g)
        loss = step_fn(ids, ids)
        loss.backward()
        opt.step()
        opt.zero_grad()
        print(f"step {step} T {distiller.temperature:.1f} loss {loss.item():.4f}")


if __name__ == "__main__":
    main()

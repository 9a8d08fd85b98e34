"""A tiny RoBERTa classifier where only the optimizer step is compiled: clip_grad_norm_, AdamW's step and
transformers' get_linear_schedule_with_warmup's sched.step() in one compiled function: blind round 3 (issue 51)."""
import torch
from transformers import RobertaConfig, RobertaForSequenceClassification, get_linear_schedule_with_warmup


def main():
    torch.manual_seed(0)
    cfg = RobertaConfig(vocab_size=100, hidden_size=32, num_hidden_layers=1, num_attention_heads=2,
                        intermediate_size=64, max_position_embeddings=40, num_labels=3,
                        pad_token_id=1, bos_token_id=0, eos_token_id=2)
    model = RobertaForSequenceClassification(cfg)
    opt = torch.optim.AdamW(model.parameters(), lr=2e-3, weight_decay=0.01)
    sched = get_linear_schedule_with_warmup(opt, num_warmup_steps=0, num_training_steps=14)

    @torch.compile(backend="aot_eager")
    def optimizer_step():
        gnorm = torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
        opt.step()
        sched.step()
        return gnorm

    g = torch.Generator().manual_seed(0)
    ids = torch.randint(3, 100, (8, 12), generator=g)
    labels = torch.randint(0, 3, (8,), generator=g)
    for step in range(14):
        loss = model(input_ids=ids, labels=labels).loss
        loss.backward()
        gnorm = optimizer_step()
        opt.zero_grad(set_to_none=True)
        print(f"step {step} lr {sched.get_last_lr()[0]:.6f} loss {loss.item():.4f} gnorm {gnorm.item():.3f}")


if __name__ == "__main__":
    main()

"""A tiny DistilBERT trained through accelerate with a compiled micro-step doing accumulate, backward and clipping."""
import torch
from accelerate import Accelerator
from accelerate.utils import set_seed
from transformers import DistilBertConfig, DistilBertForSequenceClassification


def main():
    set_seed(0)
    acc = Accelerator(gradient_accumulation_steps=4, cpu=True)
    cfg = DistilBertConfig(vocab_size=400, dim=64, n_layers=2, n_heads=4, hidden_dim=128,
                           max_position_embeddings=64, num_labels=6)
    model = DistilBertForSequenceClassification(cfg)
    opt = torch.optim.AdamW(model.parameters(), lr=5e-4)
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: min(1.0, (s + 1) / 4))
    X = torch.randint(0, 400, (80, 24))
    Y = torch.randint(0, 6, (80,))
    loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(X, Y), batch_size=8)
    model, opt, loader, sched = acc.prepare(model, opt, loader, sched)

    @torch.compile(backend="aot_eager")
    def micro_step(input_ids, labels):
        with acc.accumulate(model):
            out = model(input_ids=input_ids, attention_mask=torch.ones_like(input_ids), labels=labels)
            acc.backward(out.loss)
            if acc.sync_gradients:
                acc.clip_grad_norm_(model.parameters(), 1.0)
        return out.loss.detach()

    model.train()
    for epoch in range(2):
        losses = []
        for input_ids, labels in loader:
            losses.append(micro_step(input_ids, labels))
            opt.step()
            sched.step()
            opt.zero_grad()
        print(f"epoch {epoch} mean loss {torch.stack(losses).mean().item():.4f} lr {sched.get_last_lr()[0]:.2e}")


if __name__ == "__main__":
    main()

# Fine-tuning a tiny BERT classifier: dynamic padding, grad accumulation, scheduler, eval each epoch.
import torch
from torch.utils.data import DataLoader
from transformers import BertConfig, BertForSequenceClassification

torch.manual_seed(0)
config = BertConfig(hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
                    intermediate_size=64, vocab_size=100, num_labels=2)
model = BertForSequenceClassification(config)
model = torch.compile(model, backend="aot_eager")

lengths = [5, 9, 7, 12, 6, 10, 8, 11]
data = [(torch.randint(1, 100, (n,)), int(n % 2)) for n in lengths]

def collate(items):
    longest = max(len(x) for x, _ in items)
    ids = torch.zeros(len(items), longest, dtype=torch.long)
    mask = torch.zeros(len(items), longest, dtype=torch.long)
    for i, (x, _) in enumerate(items):
        ids[i, :len(x)] = x
        mask[i, :len(x)] = 1
    return {"input_ids": ids, "attention_mask": mask,
            "labels": torch.tensor([y for _, y in items])}

loader = DataLoader(data, batch_size=2, shuffle=False, collate_fn=collate)
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: 1.0 / (1 + s))
accum = 2

for epoch in range(2):
    model.train()
    for i, batch in enumerate(loader):
        loss = model(**batch).loss / accum
        loss.backward()
        if (i + 1) % accum == 0:
            opt.step()
            sched.step()
            opt.zero_grad()
    model.eval()
    correct = 0
    with torch.no_grad():
        for batch in loader:
            logits = model(**batch).logits
            correct += (logits.argmax(-1) == batch["labels"]).sum().item()
    print(f"epoch {epoch}: loss {loss.item() * accum:.4f} acc {correct}/{len(data)}")

"""A tiny DeBERTa-v2 classifier compiled in place with model.compile(), trained 2 epochs and evaluated after each under
model.eval() and torch.no_grad(); config.problem_type is left unset, so the library's loss takes a
`(labels >= 0).nonzero()` path (blind round 8)."""
import torch
from torch.utils.data import DataLoader, TensorDataset
from transformers import DebertaV2Config, DebertaV2ForSequenceClassification

SEQ = 24


def make_split(n):
    ids = torch.randint(5, 300, (n, SEQ))
    lens = torch.randint(8, SEQ + 1, (n,))
    mask = (torch.arange(SEQ)[None, :] < lens[:, None]).long()
    ids = ids * mask
    labels = (ids[:, 1] % 2)
    return TensorDataset(ids, mask, labels)


def main():
    torch.manual_seed(0)
    cfg = DebertaV2Config(vocab_size=300, hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
                          intermediate_size=64, max_position_embeddings=64, relative_attention=True,
                          position_buckets=16, max_relative_positions=32, pos_att_type=["p2c", "c2p"],
                          num_labels=2, type_vocab_size=0)
    model = DebertaV2ForSequenceClassification(cfg)
    model.compile(backend="aot_eager")

    train_dl = DataLoader(make_split(64), batch_size=16, shuffle=True, drop_last=True)
    eval_dl = DataLoader(make_split(40), batch_size=32)
    opt = torch.optim.AdamW(model.parameters(), lr=5e-4)

    for epoch in range(2):
        model.train()
        running = 0.0
        for ids, mask, labels in train_dl:
            out = model(input_ids=ids, attention_mask=mask, labels=labels)
            out.loss.backward()
            opt.step(); opt.zero_grad()
            running += out.loss.item()
        model.eval()
        correct = 0
        with torch.no_grad():
            for ids, mask, labels in eval_dl:
                logits = model(input_ids=ids, attention_mask=mask).logits
                correct += (logits.argmax(-1) == labels).sum().item()
        print(f"epoch {epoch}: train loss {running/len(train_dl):.4f}, eval acc {correct/40:.3f}")


if __name__ == "__main__":
    main()

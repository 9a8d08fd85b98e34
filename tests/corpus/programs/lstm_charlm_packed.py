"""A plain-PyTorch character-level LSTM language model compiled as a module: embedding, pack_padded_sequence, nn.LSTM,
pad_packed_sequence and a Linear head on length-sorted variable-length batches, Adam with StepLR, perplexity logged
outside the compiled model (blind round 8)."""
import math
import random

import torch
import torch.nn as nn
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence, pad_sequence
from torch.utils.data import DataLoader

VOCAB = 40


def collate(batch):
    batch = sorted(batch, key=len, reverse=True)
    lengths = torch.tensor([len(x) for x in batch])
    padded = pad_sequence(batch, batch_first=True)
    return padded[:, :-1], padded[:, 1:], lengths - 1


class CharLM(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(VOCAB, 32, padding_idx=0)
        self.lstm = nn.LSTM(32, 64, num_layers=1, batch_first=True)
        self.head = nn.Linear(64, VOCAB)

    def forward(self, x, lengths):
        e = self.emb(x)
        packed = pack_padded_sequence(e, lengths, batch_first=True, enforce_sorted=True)
        out, _ = self.lstm(packed)
        out, _ = pad_packed_sequence(out, batch_first=True, total_length=x.shape[1])
        return self.head(out)


def main():
    torch.manual_seed(0); random.seed(0)
    lines = [torch.randint(1, VOCAB, (random.randint(6, 20),)) for _ in range(96)]
    model = CharLM()
    cmodel = torch.compile(model, backend="aot_eager")
    opt = torch.optim.Adam(model.parameters(), lr=3e-3)
    sched = torch.optim.lr_scheduler.StepLR(opt, step_size=1, gamma=0.5)
    loader = DataLoader(lines, batch_size=16, shuffle=True, collate_fn=collate)
    loss_fn = nn.CrossEntropyLoss(ignore_index=0)

    for epoch in range(2):
        total, count = 0.0, 0
        for x, y, lengths in loader:
            logits = cmodel(x, lengths)
            loss = loss_fn(logits.reshape(-1, VOCAB), y.reshape(-1))
            loss.backward()
            nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step(); opt.zero_grad()
            total += loss.item(); count += 1
        sched.step()
        print(f"epoch {epoch} ppl {math.exp(total / count):.2f} lr {sched.get_last_lr()[0]:.4f}")


if __name__ == "__main__":
    main()

"""lstm_charlm_packed.py with its finding's fix applied (the round's expert fix): "Run the RNN on the padded tensor
itself, without `pack_padded_sequence` (...) and the unpacking after it (mask the padded steps out of the loss instead,
as an ignore_index does), and set torch._dynamo.config.allow_rnn = True before the first call": with a unidirectional
LSTM the outputs at real positions are the packed ones, and the padded targets are ignored by the loss; either change
alone does nothing or is worse."""
import math
import random

import torch
import torch.nn as nn
from torch.nn.utils.rnn import pad_sequence
from torch.utils.data import DataLoader

torch._dynamo.config.allow_rnn = True

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
        # right-padded input, unidirectional LSTM: outputs at real positions equal the packed ones,
        # and padded targets are ignored by the loss (ignore_index=0)
        out, _ = self.lstm(self.emb(x))
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

"""wav2vec2_varlen_ctc.py with its size finding's fix applied: "To skip the first, static version: ... or
torch.compile(..., dynamic=True)" (the round's fix 1)."""
import math

import torch
from transformers import Wav2Vec2Config, Wav2Vec2ForCTC


def collate(clips, multiple=1600):
    longest = max(c.numel() for c in clips)
    T = int(math.ceil(longest / multiple) * multiple)
    wav = torch.zeros(len(clips), T)
    mask = torch.zeros(len(clips), T, dtype=torch.long)
    for i, c in enumerate(clips):
        wav[i, : c.numel()] = c
        mask[i, : c.numel()] = 1
    return wav, mask


@torch.compile(backend="aot_eager", dynamic=True)
def train_step(model, wav, mask, labels):
    out = model(input_values=wav, attention_mask=mask, labels=labels)
    return out.loss


def main():
    torch.manual_seed(0)
    cfg = Wav2Vec2Config(vocab_size=12, hidden_size=32, num_hidden_layers=1, num_attention_heads=2,
                         intermediate_size=64, conv_dim=(16, 16), conv_stride=(5, 4), conv_kernel=(10, 4),
                         num_conv_pos_embeddings=16, num_conv_pos_embedding_groups=2,
                         feat_extract_norm="layer", do_stable_layer_norm=True, mask_time_prob=0.0,
                         ctc_loss_reduction="mean", pad_token_id=0)
    model = Wav2Vec2ForCTC(cfg)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    g = torch.Generator().manual_seed(1)
    for step, n in enumerate([3000, 4700, 3100, 6200, 8000]):
        clips = [torch.randn(n - 300 * k, generator=g) for k in range(2)]
        wav, mask = collate(clips)
        labels = torch.randint(1, 12, (2, 5), generator=g)
        loss = train_step(model, wav, mask, labels)
        loss.backward()
        opt.step()
        opt.zero_grad()
        print(f"step {step} T={wav.shape[1]} loss {loss.item():.4f}")


if __name__ == "__main__":
    main()

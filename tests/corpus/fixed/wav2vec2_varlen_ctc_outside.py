"""wav2vec2_varlen_ctc.py with its graph-break findings' fix applied: "What you control is whether your call runs it:
such code often runs only for an option of the call or of the model's config (labels passed in, a layer drop ...).
Where one does, change it, or compute that part outside the compiled function": layerdrop=0.0, the feature encoder
frozen (model.freeze_feature_encoder(), which turns off its requires_grad), the logits compiled and the CTC loss (and
the labels check) computed outside (the round's expert fix)."""
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


@torch.compile(backend="aot_eager")
def forward_logits(model, wav, mask):
    return model(input_values=wav, attention_mask=mask).logits


def train_step(model, wav, mask, labels):
    logits = forward_logits(model, wav, mask)
    cfg = model.config
    input_lengths = model._get_feat_extract_output_lengths(mask.sum(-1)).to(torch.long)
    return model.loss_function(logits=logits, labels=labels, logit_lengths=input_lengths,
                               blank_token_id=cfg.pad_token_id, reduction=cfg.ctc_loss_reduction,
                               zero_infinity=cfg.ctc_zero_infinity)


def main():
    torch.manual_seed(0)
    cfg = Wav2Vec2Config(vocab_size=12, hidden_size=32, num_hidden_layers=1, num_attention_heads=2,
                         intermediate_size=64, conv_dim=(16, 16), conv_stride=(5, 4), conv_kernel=(10, 4),
                         num_conv_pos_embeddings=16, num_conv_pos_embedding_groups=2,
                         feat_extract_norm="layer", do_stable_layer_norm=True, mask_time_prob=0.0,
                         ctc_loss_reduction="mean", pad_token_id=0, layerdrop=0.0)
    model = Wav2Vec2ForCTC(cfg)
    model.freeze_feature_encoder()
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

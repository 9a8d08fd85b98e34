"""Utterance embeddings from a small Wav2Vec2Model for a nearest-neighbour bank: a compiled embed() runs the model
with output_hidden_states=True, mean-pools layer 2, normalises and returns .numpy(); 10 clips of 8 lengths
(4000-9600 samples) at batch 1 under no_grad; transformers installs its output-capturing hooks on the first call
(blind round 9)."""
import numpy as np
import torch
from transformers import Wav2Vec2Config, Wav2Vec2Model


def main():
    torch.manual_seed(0)
    cfg = Wav2Vec2Config(hidden_size=32, num_hidden_layers=3, num_attention_heads=2, intermediate_size=64,
                         conv_dim=(16, 16, 16), conv_stride=(5, 2, 2), conv_kernel=(10, 3, 3),
                         num_conv_pos_embeddings=16, num_conv_pos_embedding_groups=4, do_stable_layer_norm=True,
                         feat_extract_norm="layer")
    model = Wav2Vec2Model(cfg).eval()

    @torch.compile(backend="aot_eager")
    def embed(wave, layer=2):
        out = model(wave, output_hidden_states=True)
        h = out.hidden_states[layer]            # (1, frames, hidden)
        vec = h.mean(dim=1)
        vec = vec / vec.norm(dim=-1, keepdim=True)
        return vec.squeeze(0).numpy()

    bank = []
    lengths = [4000, 4800, 5600, 4000, 6400, 7200, 8000, 4800, 8800, 9600]
    with torch.no_grad():
        for n in lengths:
            wave = torch.randn(1, n)
            bank.append(embed(wave))
    bank = np.stack(bank)
    sims = bank @ bank[0]
    print("bank", bank.shape, "nearest to clip 0:", np.argsort(-sims)[:3].tolist())


if __name__ == "__main__":
    main()

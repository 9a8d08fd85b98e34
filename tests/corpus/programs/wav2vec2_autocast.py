# Tiny Wav2Vec2 encoder on clips of different lengths, with bf16 autocast on some of them.
import torch
from transformers import Wav2Vec2Config, Wav2Vec2Model

torch.manual_seed(0)
config = Wav2Vec2Config(hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
                        intermediate_size=64, conv_dim=(16, 16), conv_stride=(5, 4),
                        conv_kernel=(10, 4), num_conv_pos_embeddings=16,
                        num_conv_pos_embedding_groups=4, do_stable_layer_norm=True,
                        feat_extract_norm="layer")
model = Wav2Vec2Model(config).eval()
compiled = torch.compile(model, backend="aot_eager")

with torch.no_grad():
    for i, n in enumerate([1600, 2400, 3200, 4000]):
        audio = torch.randn(1, n)
        with torch.autocast("cpu", dtype=torch.bfloat16, enabled=(i % 2 == 1)):
            h = compiled(audio).last_hidden_state
        print(n, tuple(h.shape), h.dtype, round(h[0, 1, :4].float().sum().item(), 4))

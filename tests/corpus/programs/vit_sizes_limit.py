# Tiny ViT embeddings at several image sizes, static shapes and a low recompile limit.
import torch
import torch._dynamo
from transformers import ViTConfig, ViTModel

torch.manual_seed(0)
torch._dynamo.config.recompile_limit = 2
config = ViTConfig(hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
                   intermediate_size=64, image_size=32, patch_size=8, num_channels=3)
model = ViTModel(config, add_pooling_layer=False).eval()
compiled = torch.compile(model, backend="aot_eager", dynamic=False)

with torch.no_grad():
    for size in [32, 48, 64, 80, 64]:
        pixels = torch.randn(1, 3, size, size)
        out = compiled(pixel_values=pixels, interpolate_pos_encoding=True)
        print(size, tuple(out.last_hidden_state.shape), round(out.last_hidden_state[0, 1, :4].sum().item(), 5))

# Regional compilation: each RoBERTa layer compiled on its own, batches of different lengths.
import torch
from transformers import RobertaConfig, RobertaModel

torch.manual_seed(0)
config = RobertaConfig(hidden_size=32, num_hidden_layers=3, num_attention_heads=2,
                       intermediate_size=64, vocab_size=100, max_position_embeddings=80)
model = RobertaModel(config, add_pooling_layer=False).eval()
for layer in model.encoder.layer:
    layer.compile(backend="aot_eager")

with torch.no_grad():
    for n in [8, 12, 16, 20]:
        ids = torch.randint(3, 100, (2, n))
        mask = torch.ones(2, n, dtype=torch.long)
        mask[1, n // 2:] = 0
        out = model(input_ids=ids, attention_mask=mask).last_hidden_state
        print(n, round(out[0, 1, :4].sum().item(), 5))

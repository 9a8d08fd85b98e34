"""llama_early_exit.py with its index finding's fix applied: "Pass the module itself in instead of its index": run_layer
takes the layer, the loop passes self.lm.model.layers[i] (the round's fix 1b)."""
import torch
from transformers import LlamaConfig, LlamaForCausalLM


@torch.compile(backend="aot_eager")
def exit_confidence(logits):
    return logits.softmax(-1).max(-1).values.mean()


class EarlyExitRunner:
    def __init__(self, lm, threshold, temperature):
        self.lm = lm
        self.threshold = threshold
        self.temperature = temperature

    @torch.compile(backend="aot_eager")
    def run_layer(self, layer, hidden, position_embeddings):
        hidden = layer(hidden, position_embeddings=position_embeddings)
        logits = self.lm.lm_head(self.lm.model.norm(hidden)) / self.temperature
        return hidden, logits, exit_confidence(logits)

    @torch.no_grad()
    def __call__(self, ids):
        h = self.lm.model.embed_tokens(ids)
        pos = torch.arange(ids.shape[1])[None]
        cos_sin = self.lm.model.rotary_emb(h, pos)
        for i in range(len(self.lm.model.layers)):
            h, logits, conf = self.run_layer(self.lm.model.layers[i], h, cos_sin)
            if conf.item() > self.threshold:
                break
        return i, logits[:, -1].argmax(-1)


def main():
    torch.manual_seed(0)
    cfg = LlamaConfig(vocab_size=128, hidden_size=32, intermediate_size=64, num_hidden_layers=6,
                      num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=64)
    lm = LlamaForCausalLM(cfg).eval()
    g = torch.Generator().manual_seed(0)
    for threshold, temperature, T in [(0.99, 1.0, 10), (0.99, 0.7, 10), (0.0, 1.0, 14)]:
        runner = EarlyExitRunner(lm, threshold, temperature)
        ids = torch.randint(0, 128, (2, T), generator=g)
        exit_layer, nxt = runner(ids)
        print(f"thr {threshold} temp {temperature} T={T}: exit at layer {exit_layer}, next {nxt.tolist()}, "
              f"final conf {exit_confidence(lm(ids).logits).item():.4f}")


if __name__ == "__main__":
    main()

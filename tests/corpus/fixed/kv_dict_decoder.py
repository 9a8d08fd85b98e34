"""kv_dict_decoder.py with its frame-skipped finding's fix applied: "branch in Python on the condition with a literal
in each branch": `if T > 1:` sdpa with is_causal=True, else with is_causal=False (the round's fix)."""
import torch
import torch.nn as nn
import torch.nn.functional as F

D, H, V, L = 32, 4, 50, 2


class CachedSelfAttention(nn.Module):
    def __init__(self):
        super().__init__()
        self.qkv = nn.Linear(D, 3 * D)
        self.out = nn.Linear(D, D)
        self.cache = {}          # layer-local: {"k": tensor, "v": tensor}

    def forward(self, x):
        B, T, _ = x.shape
        q, k, v = self.qkv(x).split(D, dim=-1)
        q, k, v = (t.view(B, T, H, D // H).transpose(1, 2) for t in (q, k, v))
        if "k" in self.cache:
            k = torch.cat([self.cache["k"], k], dim=2)
            v = torch.cat([self.cache["v"], v], dim=2)
        self.cache["k"], self.cache["v"] = k.detach(), v.detach()
        if T > 1:
            y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        else:
            y = F.scaled_dot_product_attention(q, k, v, is_causal=False)
        return self.out(y.transpose(1, 2).reshape(B, T, D))


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.ln1, self.ln2 = nn.LayerNorm(D), nn.LayerNorm(D)
        self.attn = CachedSelfAttention()
        self.mlp = nn.Sequential(nn.Linear(D, 4 * D), nn.GELU(), nn.Linear(4 * D, D))

    def forward(self, x):
        x = x + self.attn(self.ln1(x))
        return x + self.mlp(self.ln2(x))


class TinyDecoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(V, D)
        self.pos = nn.Embedding(64, D)
        self.blocks = nn.ModuleList(Block() for _ in range(L))
        self.head = nn.Linear(D, V)

    def reset_cache(self):
        for b in self.blocks:
            b.attn.cache.clear()

    def forward(self, tokens, start_pos: int):
        T = tokens.shape[1]
        x = self.emb(tokens) + self.pos(torch.arange(start_pos, start_pos + T))
        for blk in self.blocks:
            x = blk(x)
        return self.head(x[:, -1])


@torch.no_grad()
def generate(model, step_fn, prompt, n_new):
    model.reset_cache()
    logits = step_fn(prompt, 0)
    out = [prompt]
    pos = prompt.shape[1]
    for _ in range(n_new):
        nxt = logits.argmax(-1, keepdim=True)
        out.append(nxt)
        logits = step_fn(nxt, pos)
        pos += 1
    return torch.cat(out, 1)


def main():
    torch.manual_seed(0)
    model = TinyDecoder().eval()
    step_fn = torch.compile(model, backend="aot_eager")
    for prompt_len in (5, 7):
        prompt = torch.randint(0, V, (1, prompt_len))
        seq = generate(model, step_fn, prompt, 6)
        print(f"prompt {prompt_len}: {seq[0].tolist()}")


if __name__ == "__main__":
    main()

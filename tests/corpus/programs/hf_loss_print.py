"""A compiled train step whose loss helper prints the loss (a graph break), and a shorter last batch."""
import torch
import torch.nn.functional as F
from transformers import BertConfig, BertForMaskedLM


def masked_lm_loss(logits, labels):
    loss = F.cross_entropy(logits.view(-1, logits.size(-1)), labels.view(-1), ignore_index=-100)
    print("loss", loss.item())
    return loss


def main():
    torch.manual_seed(0)
    config = BertConfig(vocab_size=100, hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
                        intermediate_size=64, max_position_embeddings=64)
    model = BertForMaskedLM(config)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)

    @torch.compile(backend="aot_eager")
    def train_step(input_ids, labels):
        logits = model(input_ids=input_ids).logits
        loss = masked_lm_loss(logits, labels)
        loss.backward()
        return loss

    data = torch.randint(0, 100, (10, 12))
    for start in range(0, len(data), 4):  # 4, 4, then 2
        batch = data[start:start + 4]
        train_step(batch, batch.clone())
        optimizer.step()
        optimizer.zero_grad()


if __name__ == "__main__":
    main()

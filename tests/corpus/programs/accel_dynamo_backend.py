"""Fine-tune a small BERT classifier with accelerate compiling it: Accelerator(dynamo_backend=...), prepare(), the
usual accelerate loop, and an evaluation pass each epoch."""
import torch
from accelerate import Accelerator
from torch.utils.data import DataLoader, TensorDataset
from transformers import BertConfig, BertForSequenceClassification


def main():
    torch.manual_seed(0)
    config = BertConfig(vocab_size=200, hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
                        intermediate_size=64, max_position_embeddings=64, num_labels=3)
    model = BertForSequenceClassification(config)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    ids = torch.randint(1, 200, (44, 16))
    labels = torch.randint(0, 3, (44,))
    train = DataLoader(TensorDataset(ids, labels), batch_size=8, shuffle=True)
    evals = DataLoader(TensorDataset(ids[:20], labels[:20]), batch_size=8)

    accelerator = Accelerator(cpu=True, dynamo_backend="aot_eager")
    model, optimizer, train, evals = accelerator.prepare(model, optimizer, train, evals)
    for epoch in range(2):
        model.train()
        for input_ids, y in train:
            out = model(input_ids=input_ids, labels=y)
            accelerator.backward(out.loss)
            optimizer.step()
            optimizer.zero_grad()
        model.eval()
        correct = 0
        with torch.no_grad():
            for input_ids, y in evals:
                logits = model(input_ids=input_ids).logits
                correct += (logits.argmax(-1) == y).sum().item()
        print(f"epoch {epoch}: loss {out.loss.item():.4f}  accuracy {correct / 20:.2f}")


if __name__ == "__main__":
    main()

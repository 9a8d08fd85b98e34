"""bert_train_eval_lastbatch.py with its problem_type finding's fix applied: "setting `self.config.problem_type`
before the first call (for a model's config attribute, in the config the model is built with)"."""
import torch
from torch.utils.data import DataLoader, TensorDataset
from transformers import BertConfig, BertForSequenceClassification


def main():
    torch.manual_seed(0)
    cfg = BertConfig(vocab_size=120, hidden_size=32, num_hidden_layers=2,
                     num_attention_heads=2, intermediate_size=64, num_labels=2,
                     problem_type="single_label_classification")
    model = BertForSequenceClassification(cfg)
    opt_model = torch.compile(model, backend="aot_eager")
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
    ids = torch.randint(0, 120, (22, 16))
    labels = torch.randint(0, 2, (22,))
    loader = DataLoader(TensorDataset(ids, labels), batch_size=8, shuffle=False)
    model.train()
    for step, (input_ids, y) in enumerate(loader):
        out = opt_model(input_ids=input_ids, labels=y)
        out.loss.backward()
        optimizer.step()
        optimizer.zero_grad()
        print(f"train step {step} bs={input_ids.shape[0]} loss={out.loss.item():.4f}")
    model.eval()
    correct = 0
    with torch.no_grad():
        for input_ids, y in loader:
            pred = opt_model(input_ids=input_ids).logits.argmax(-1)
            correct += (pred == y).sum().item()
    print("eval acc", correct / len(ids))


if __name__ == "__main__":
    main()

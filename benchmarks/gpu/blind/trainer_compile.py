"""The HF Trainer compiling for the user (torch_compile=True): a tiny BERT classifier on random data, on the GPU."""

import tempfile

import torch
from torch.utils.data import Dataset
from transformers import BertConfig, BertForSequenceClassification, Trainer, TrainingArguments


class Random(Dataset):
    def __init__(self, n=40, length=24):
        g = torch.Generator(device="cpu").manual_seed(0)
        self.ids = torch.randint(0, 200, (n, length), generator=g, device="cpu")
        self.labels = torch.randint(0, 2, (n,), generator=g, device="cpu")

    def __len__(self):
        return len(self.ids)

    def __getitem__(self, i):
        return {"input_ids": self.ids[i], "labels": self.labels[i]}


def main():
    torch.manual_seed(0)
    model = BertForSequenceClassification(BertConfig(vocab_size=200, hidden_size=64, num_hidden_layers=2,
                                                     num_attention_heads=2, intermediate_size=128))
    args = TrainingArguments(output_dir=tempfile.mkdtemp(prefix="trainer-out-"), per_device_train_batch_size=16,
                             num_train_epochs=1,
                             torch_compile=True, report_to=[], logging_steps=1, save_strategy="no",
                             disable_tqdm=True)
    result = Trainer(model=model, args=args, train_dataset=Random()).train()
    print("train loss", round(result.training_loss, 4))


if __name__ == "__main__":
    main()

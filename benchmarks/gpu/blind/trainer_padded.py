"""The HF Trainer compiling for the user (torch_compile=True), each batch padded to its longest example (what
DataCollatorWithPadding does), on the GPU: lengths vary from batch to batch."""

import tempfile

import torch
from torch.utils.data import Dataset
from transformers import BertConfig, BertForSequenceClassification, Trainer, TrainingArguments


class Varied(Dataset):
    def __init__(self, n=64):
        g = torch.Generator().manual_seed(0)
        self.lengths = torch.randint(9, 40, (n,), generator=g).tolist()
        self.ids = [torch.randint(1, 200, (length,), generator=g) for length in self.lengths]
        self.labels = torch.randint(0, 2, (n,), generator=g).tolist()

    def __len__(self):
        return len(self.ids)

    def __getitem__(self, i):
        return {"input_ids": self.ids[i], "labels": self.labels[i]}


def pad_batch(examples):
    """Pad to the batch's longest example, with an attention mask, as DataCollatorWithPadding does."""
    longest = max(len(example["input_ids"]) for example in examples)
    ids = torch.zeros(len(examples), longest, dtype=torch.long)
    mask = torch.zeros(len(examples), longest, dtype=torch.long)
    for row, example in enumerate(examples):
        ids[row, :len(example["input_ids"])] = example["input_ids"]
        mask[row, :len(example["input_ids"])] = 1
    return {"input_ids": ids, "attention_mask": mask, "labels": torch.tensor([e["labels"] for e in examples])}


def main():
    torch.manual_seed(0)
    model = BertForSequenceClassification(BertConfig(vocab_size=200, hidden_size=64, num_hidden_layers=2,
                                                     num_attention_heads=2, intermediate_size=128))
    args = TrainingArguments(output_dir=tempfile.mkdtemp(prefix="trainer-out-"), per_device_train_batch_size=8,
                             num_train_epochs=1, torch_compile=True, report_to=[], logging_steps=4,
                             save_strategy="no", disable_tqdm=True)
    result = Trainer(model=model, args=args, train_dataset=Varied(), data_collator=pad_batch).train()
    print("train loss", round(result.training_loss, 4))


if __name__ == "__main__":
    main()

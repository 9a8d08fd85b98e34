"""Token classification with the HF Trainer and torch_compile=True, sentences padded per batch, evaluation every epoch."""
import os
import random
import tempfile
import warnings

import torch
from tokenizers import Tokenizer, models, pre_tokenizers
from transformers import (BertConfig, BertForTokenClassification, DataCollatorForTokenClassification,
                          PreTrainedTokenizerFast, Trainer, TrainingArguments)


def make(n):
    rows = []
    for _ in range(n):
        L = random.randint(5, 40)
        ids = [random.randrange(4, 204) for _ in range(L)]
        rows.append({"input_ids": ids, "attention_mask": [1] * L, "labels": [i % 5 for i in ids]})
    return rows


def main():
    os.environ.setdefault("WANDB_DISABLED", "true")
    warnings.filterwarnings("ignore")
    torch.manual_seed(0)
    random.seed(0)
    vocab = {"[PAD]": 0, "[UNK]": 1, "[CLS]": 2, "[SEP]": 3, **{f"w{i}": i + 4 for i in range(200)}}
    tk = Tokenizer(models.WordLevel(vocab=vocab, unk_token="[UNK]"))
    tk.pre_tokenizer = pre_tokenizers.Whitespace()
    tok = PreTrainedTokenizerFast(tokenizer_object=tk, pad_token="[PAD]", unk_token="[UNK]",
                                  cls_token="[CLS]", sep_token="[SEP]")
    train, val = make(90), make(30)
    cfg = BertConfig(vocab_size=204, hidden_size=64, num_hidden_layers=2, num_attention_heads=4,
                     intermediate_size=128, num_labels=5)
    model = BertForTokenClassification(cfg)
    args = TrainingArguments(output_dir=tempfile.mkdtemp(), per_device_train_batch_size=8,
                             per_device_eval_batch_size=16, num_train_epochs=2, learning_rate=5e-4,
                             eval_strategy="epoch", save_strategy="no", logging_steps=50, report_to=[],
                             torch_compile=True, torch_compile_backend="aot_eager", seed=0,
                             dataloader_num_workers=0, use_cpu=True, disable_tqdm=True)
    trainer = Trainer(model=model, args=args, train_dataset=train, eval_dataset=val,
                      data_collator=DataCollatorForTokenClassification(tok))
    res = trainer.train()
    print(f"train loss {res.training_loss:.4f}")
    m = trainer.evaluate()
    print(f"eval loss {m['eval_loss']:.4f}")


if __name__ == "__main__":
    main()

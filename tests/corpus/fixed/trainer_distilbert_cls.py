"""trainer_distilbert_cls with its finding's fix: problem_type "set it before the first call", and sizes that never
change (the round's expert fix): model.config.problem_type set before training and every batch padded to 20."""
import tempfile

import torch
from tokenizers import Tokenizer, models, pre_tokenizers
from transformers import (DataCollatorWithPadding, DistilBertConfig, DistilBertForSequenceClassification,
                          PreTrainedTokenizerFast, Trainer, TrainingArguments)


def main():
    torch.manual_seed(0)
    vocab = {"[PAD]": 0, "[UNK]": 1, **{f"w{i}": i + 2 for i in range(60)}}
    tk = Tokenizer(models.WordLevel(vocab=vocab, unk_token="[UNK]")); tk.pre_tokenizer = pre_tokenizers.Whitespace()
    tok = PreTrainedTokenizerFast(tokenizer_object=tk, pad_token="[PAD]", unk_token="[UNK]")

    g = torch.Generator().manual_seed(0)
    texts = [" ".join(f"w{int(t)}" for t in torch.randint(0, 60, (int(torch.randint(4, 20, (1,), generator=g)),),
                                                            generator=g)) for _ in range(48)]
    labels = [len(t.split()) % 2 for t in texts]
    train = [dict(**tok(t), labels=label) for t, label in zip(texts, labels)]

    cfg = DistilBertConfig(vocab_size=62, dim=32, n_layers=2, n_heads=2, hidden_dim=64, max_position_embeddings=64,
                           num_labels=2)
    model = DistilBertForSequenceClassification(cfg)
    model.config.problem_type = "single_label_classification"
    args = TrainingArguments(output_dir=tempfile.mkdtemp(), per_device_train_batch_size=8, num_train_epochs=1,
                             learning_rate=1e-3, logging_steps=2, report_to=[], save_strategy="no", use_cpu=True,
                             torch_compile=True, torch_compile_backend="aot_eager", disable_tqdm=True)
    collator = DataCollatorWithPadding(tok, padding="max_length", max_length=20)
    trainer = Trainer(model=model, args=args, train_dataset=train, data_collator=collator)
    res = trainer.train()
    print("train loss", round(res.training_loss, 4))


if __name__ == "__main__":
    main()

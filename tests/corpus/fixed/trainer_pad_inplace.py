"""trainer_pad.py with its uncompiled-evaluation finding's fix applied: "Compile the model in place before handing it
to the Trainer, `model.compile(backend="aot_eager")`, and leave `torch_compile`, `torch_compile_backend` and
`torch_compile_mode` out of `TrainingArguments`": training and evaluation both run compiled."""
import random
import tempfile

import torch
from tokenizers import Tokenizer, models, pre_tokenizers
from transformers import (DataCollatorWithPadding, DistilBertConfig,
                          DistilBertForSequenceClassification, PreTrainedTokenizerFast,
                          Trainer, TrainingArguments)

WORDS = "the a movie film was good bad great awful plot acting boring fun long short really not".split()


def make_tokenizer():
    vocab = {"[PAD]": 0, "[UNK]": 1, "[CLS]": 2, "[SEP]": 3}
    for w in WORDS:
        vocab[w] = len(vocab)
    tok = Tokenizer(models.WordLevel(vocab=vocab, unk_token="[UNK]"))
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    return PreTrainedTokenizerFast(tokenizer_object=tok, pad_token="[PAD]", unk_token="[UNK]",
                                   cls_token="[CLS]", sep_token="[SEP]")


def make_dataset(tokenizer, n, seed):
    rng = random.Random(seed)
    rows = []
    for _ in range(n):
        words = [rng.choice(WORDS) for _ in range(rng.randint(4, 14))]
        enc = tokenizer(" ".join(words))
        enc["labels"] = int("good" in words or "great" in words or "fun" in words)
        rows.append(dict(enc))
    return rows


def main():
    torch.manual_seed(0)
    tokenizer = make_tokenizer()
    train = make_dataset(tokenizer, 32, 1)
    evals = make_dataset(tokenizer, 12, 2)
    config = DistilBertConfig(vocab_size=len(tokenizer), dim=32, hidden_dim=64, n_layers=2, n_heads=2,
                              max_position_embeddings=64, num_labels=2, pad_token_id=0)
    model = DistilBertForSequenceClassification(config)

    with tempfile.TemporaryDirectory() as out:
        args = TrainingArguments(
            output_dir=out,
            per_device_train_batch_size=8,
            per_device_eval_batch_size=8,
            num_train_epochs=1,
            learning_rate=1e-3,
            eval_strategy="epoch",
            logging_steps=2,
            save_strategy="no",
            report_to=[],
            use_cpu=True,
            dataloader_num_workers=0,
            seed=0,
            disable_tqdm=True,
        )
        model.compile(backend="aot_eager")
        trainer = Trainer(model=model, args=args, train_dataset=train, eval_dataset=evals,
                          data_collator=DataCollatorWithPadding(tokenizer), processing_class=tokenizer)
        result = trainer.train()
        metrics = trainer.evaluate()
    print(f"train loss {result.training_loss:.4f}  eval loss {metrics['eval_loss']:.4f}")


if __name__ == "__main__":
    main()

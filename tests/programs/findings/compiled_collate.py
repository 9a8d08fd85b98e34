"""A collate function compiled as well as the model: it reads a list of examples, item by item."""
import torch


@torch.compile(backend="aot_eager")
def collate(examples):
    longest = max(len(example["ids"]) for example in examples)
    ids = torch.stack([torch.nn.functional.pad(example["ids"], (0, longest - len(example["ids"])))
                       for example in examples])
    return ids, torch.tensor([example["label"] for example in examples])


def main():
    torch.manual_seed(0)
    data = [{"ids": torch.randint(0, 9, (length,)), "label": length % 2} for length in (5, 7, 6, 4, 8, 5, 6, 7)]
    for start in range(0, 8, 2):
        ids, labels = collate(data[start:start + 2])
        print(tuple(ids.shape), labels.tolist())


if __name__ == "__main__":
    main()

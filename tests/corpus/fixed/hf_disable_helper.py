"""hf_disable_helper.py with its finding's fix applied: "call it outside the compiled function, on what it returns":
the forward returns its hidden states and `record_stats` runs on them after the compiled call."""
import torch
from torch import nn
from transformers import PretrainedConfig, PreTrainedModel


class TinyConfig(PretrainedConfig):
    model_type = "tiny-disable"

    def __init__(self, hidden=32, classes=4, **kwargs):
        super().__init__(**kwargs)
        self.hidden = hidden
        self.classes = classes


@torch.compiler.disable
def record_stats(hidden_states):
    return hidden_states.mean().item()


class TinyClassifier(PreTrainedModel):
    config_class = TinyConfig

    def __init__(self, config):
        super().__init__(config)
        self.encoder = nn.Sequential(nn.Linear(config.hidden, config.hidden), nn.GELU())
        self.head = nn.Linear(config.hidden, config.classes)
        self.post_init()

    def forward(self, features, labels=None):
        hidden_states = self.encoder(features)
        logits = self.head(hidden_states)
        loss = nn.functional.cross_entropy(logits, labels) if labels is not None else None
        return {"loss": loss, "logits": logits, "hidden_states": hidden_states}


def main():
    torch.manual_seed(0)
    model = torch.compile(TinyClassifier(TinyConfig()), backend="aot_eager")
    for step in range(3):
        out = model(features=torch.randn(8, 32), labels=torch.randint(0, 4, (8,)))
        record_stats(out["hidden_states"].detach())
        out["loss"].backward()
    print(out["loss"].item())


if __name__ == "__main__":
    main()

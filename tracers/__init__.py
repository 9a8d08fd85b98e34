"""Record what torch.compile does, stage by stage, for any script."""

__version__ = "0.1.0"

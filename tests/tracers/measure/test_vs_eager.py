"""--vs-eager's start of the eager run: what the traced process hands back first."""

import torch

from tracers.measure.vs_eager import hand_back_cached_memory


def test_the_cache_is_handed_back(monkeypatch):
    calls = []
    monkeypatch.setattr(torch.cuda, "empty_cache", lambda: calls.append("empty_cache"))
    hand_back_cached_memory()
    assert calls == ["empty_cache"]


def test_a_failed_device_does_not_stop_the_eager_run(monkeypatch):
    def empty_cache() -> None:
        raise RuntimeError("CUDA error: an illegal memory access was encountered")

    monkeypatch.setattr(torch.cuda, "empty_cache", empty_cache)
    hand_back_cached_memory()  # no exception: the eager run goes ahead and meets the device itself

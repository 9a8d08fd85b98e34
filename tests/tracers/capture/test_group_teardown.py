"""The process-group teardown: torch's function called through, its outcome unchanged, every binding put back."""

import pytest


@pytest.mark.torch
def test_destroy_process_group_is_wrapped_while_tracing_and_torch_s_own_after() -> None:
    import torch.distributed as dist
    from torch.distributed import distributed_c10d

    from tracers.capture.group_teardown import GroupTeardown

    original = dist.destroy_process_group
    teardown = GroupTeardown()
    assert teardown.start() is None
    try:
        assert dist.destroy_process_group is not original
        assert distributed_c10d.destroy_process_group is dist.destroy_process_group
        assert dist.destroy_process_group.__wrapped__ is original
        with pytest.raises(AssertionError):  # no group: torch's own error, as without the tracer
            dist.destroy_process_group()
    finally:
        teardown.stop()
    assert dist.destroy_process_group is original and distributed_c10d.destroy_process_group is original


@pytest.mark.torch
def test_a_binding_replaced_by_the_script_is_left_as_the_script_made_it() -> None:
    import torch.distributed as dist

    from tracers.capture.group_teardown import GroupTeardown

    original = dist.destroy_process_group
    teardown = GroupTeardown()
    teardown.start()
    mine = lambda *args: None  # noqa: E731 - the script's own replacement
    dist.destroy_process_group = mine
    try:
        teardown.stop()
        assert dist.destroy_process_group is mine
    finally:
        dist.destroy_process_group = original

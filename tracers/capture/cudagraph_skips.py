"""What CUDA graphs did with a graph: why torch skipped them (its logged message), and each recording with its sizes."""

from __future__ import annotations

from typing import Any

from .recorder import Recorder

TARGET = "torch._inductor.cudagraph_utils:log_cudagraph_skip_and_bump_counter"
# Called for each CUDA graph the tree manager records, with (self, new_inputs, function_id) (2.11–2.15).
RECORD_TARGET = "torch._inductor.cudagraph_trees:CUDAGraphTreeManager.record_function"
RECORDING = "cudagraph_recording"  # the artifact's name: one per recording
_SIZES_KEPT = 16  # inputs whose sizes are kept per recording: enough to tell recordings apart, small on big models


def file_skip(recorder: Recorder, args: tuple[Any, ...], _result: Any) -> None:
    if args and isinstance(args[0], str):
        message = args[0]
        recorder.add_artifact("cudagraphs", "cudagraph_skip", None, {"reason": message.splitlines()[0]},
                              message, len(message))


def _size(value: Any) -> list[int] | int | None:
    shape = getattr(value, "shape", None)
    if shape is not None:
        return [int(size) for size in shape]
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def file_recording(recorder: Recorder, args: tuple[Any, ...]) -> None:
    """The recording's compiled function (torch's compile id, forward or backward) and the sizes of the inputs it
    copies in (parameters and other static inputs left out: they are the same in every recording). Read from the
    manager's own tables as the recording starts; a recording happens once per size, so this costs no call."""
    manager, inputs, function_id = args[0], args[1], args[2]
    compile_id = manager.id_to_compile_id.get(function_id)
    mode = getattr(manager.id_to_mode.get(function_id), "name", None)
    static = set(getattr(manager.ids_to_funcs.get(function_id), "static_input_idxs", ()))
    sizes = [_size(value) for index, value in enumerate(inputs) if index not in static]
    recorder.add_artifact("cudagraphs", RECORDING, str(compile_id) if compile_id is not None else None,
                          {"function": getattr(function_id, "id", None), "mode": mode,
                           "sizes": sizes[:_SIZES_KEPT], "inputs": len(sizes)}, None, 0)


def install(recorder: Recorder) -> None:
    recorder.result_observers[TARGET] = file_skip
    recorder.argument_observers[RECORD_TARGET] = file_recording

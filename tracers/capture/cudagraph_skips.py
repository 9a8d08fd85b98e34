"""Why CUDA graphs were not used for a graph: the message torch logs when it skips them."""

from __future__ import annotations

from typing import Any

from .recorder import Recorder

TARGET = "torch._inductor.cudagraph_utils:log_cudagraph_skip_and_bump_counter"


def file_skip(recorder: Recorder, args: tuple[Any, ...], _result: Any) -> None:
    if args and isinstance(args[0], str):
        message = args[0]
        recorder.add_artifact("cudagraphs", "cudagraph_skip", None, {"reason": message.splitlines()[0]},
                              message, len(message))


def install(recorder: Recorder) -> None:
    recorder.result_observers[TARGET] = file_skip

"""Small TORCH_TRACE rank logs written in the tests: one frame compile per log, at a chosen time, with chosen graphs."""

from __future__ import annotations

import hashlib
import json


def record(metadata: dict, payload: str | None = None, pid: int = 4242) -> str:
    """One record as torch's trace formatter writes it: a header, the metadata as JSON, the payload tab-indented."""
    if payload is not None:
        metadata = {**metadata, "has_payload": hashlib.md5(payload.encode()).hexdigest()}
    line = f"V1125 14:43:24.891000 {pid} torch/_dynamo/utils.py:2350] {json.dumps(metadata)}"
    return line + ("".join(f"\n\t{part}" for part in payload.split("\n")) if payload is not None else "") + "\n"


def region(phase: str, name: str, ts_us: float, compile_id: str, ids: dict) -> str:
    event = {"name": name, "ts": ts_us, "args": {"compile_id": compile_id}, "ph": phase, "cat": "dynamo_timed",
             "tid": 0, "pid": 0}
    return record({"chromium_event": {}, **ids}, json.dumps(event, indent=0))


# The frames that call a function run by multiprocessing (mp.spawn, Process(target=...)): the standard library's
SPAWNED = (("/usr/lib/python3.11/multiprocessing/process.py", 314, "_bootstrap", "self.run()"),
           ("/usr/lib/python3.11/multiprocessing/process.py", 108, "run", "self._target(*self._args, **self._kwargs)"))


def compile_log(rank: int, start_us: float = 1.7e15, compile_id: str = "0/0", graph: str = "",
                extra: tuple[tuple[dict, str | None], ...] = (), guards: tuple[str, ...] = (),
                callers: tuple[tuple[str, int, str, str], ...] | None = None) -> str:
    """A rank's log of one frame compile starting at ``start_us`` (torch's wall clock, µs): regions, frame start, graph
    (``graph``: its printed body), guards (``guards``: lines below the root); ``extra``: more (metadata, payload)
    records inside the compile; ``callers``: (file, line, function, code) of the frames that called ``f``, outermost
    first (default: the script's ``f(x)``)."""
    frame, number = (int(part) for part in compile_id.split("/"))
    ids = {"frame_id": frame, "frame_compile_id": number, "attempt": 0, "rank": rank}
    body = graph or "class GraphModule(torch.nn.Module):\n    def forward(self, L_x_: \"f32[4][1]cpu\"):\n        return (L_x_,)"
    files = ["/srv/app/prog.py", *dict.fromkeys(path for path, *_ in callers or ())]
    stack = [{"line": line, "name": name, "filename": files.index(path), "loc": code}
             for path, line, name, code in callers or (("/srv/app/prog.py", 3, "<module>", "f(x)"),)]
    parts = [region("B", "dynamo", start_us, compile_id, ids),
             *(record({"str": [path, index]}) for index, path in enumerate(files)),
             record({"dynamo_start": {"stack": [*stack, {"line": 1, "name": "f", "filename": 0}]}, **ids}),
             record({"dynamo_output_graph": {"sizes": {"l_x_": [4]}}, **ids}, body),
             record({"dynamo_cpp_guards_str": {}, **ids},
                    "\n".join(["TREE_GUARD_MANAGER:", "+- RootGuardManager", *(f"| +- {guard}" for guard in guards)])),
             *(record({**metadata, **ids}, payload) for metadata, payload in extra),
             record({"compilation_metrics": {"co_name": "f", "co_filename": "/srv/app/prog.py", "co_firstlineno": 1,
                                             "graph_op_count": 1, "guard_count": 1}, **ids}),
             region("E", "dynamo", start_us + 2_000.0, compile_id, ids)]
    return "".join(parts)

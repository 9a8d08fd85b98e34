"""Put on PYTHONPATH by tests/corpus (counters.py, run.py): in every Python the run starts (the tracer's process, the
ranks torchrun or torch.multiprocessing.spawn start), write torch's own Dynamo counters to
``$CORPUS_COUNTERS_DIR/counters-<pid>.json`` when the process exits. Nothing here reads the tracer; it reads torch.

Chains to the next ``sitecustomize`` on the path, as if this one were absent."""

import atexit
import importlib
import json
import logging
import os
import sys

_OUT = os.environ.get("CORPUS_COUNTERS_DIR")
_limit_hits = []


class _LimitHits(logging.Handler):
    """Counts Dynamo's "hit config.recompile_limit" warnings (torch has no counter for them)."""

    def emit(self, record: logging.LogRecord) -> None:
        try:
            message = record.getMessage()
        except Exception:  # noqa: BLE001 - a log record we cannot format is not ours to fail on
            return
        if "recompile_limit" in message or "cache_size_limit" in message:
            _limit_hits.append(message.splitlines()[0][:300])


def _dump() -> None:
    if "torch._dynamo.utils" not in sys.modules:
        return
    from torch._dynamo import convert_frame
    from torch._dynamo.utils import counters, graph_break_reasons

    per_frame = list(convert_frame.FRAME_COMPILE_COUNTER.values())
    record = {
        "pid": os.getpid(),
        "rank": os.environ.get("RANK"),
        "argv": sys.argv,
        "graphs": counters["stats"]["unique_graphs"] + counters["compiled_autograd"]["captures"],
        "graph_breaks": len(graph_break_reasons),
        "frame_compiles": sum(per_frame),
        "recompiles": sum(max(count - 1, 0) for count in per_frame),
        "recompile_limit_hits": len(_limit_hits),
        "graph_break_reasons": sorted({str(reason.reason).splitlines()[0][:200] for reason in graph_break_reasons}),
        "counters": {key: {str(k): v for k, v in value.items()} for key, value in counters.items()},
    }
    os.makedirs(_OUT, exist_ok=True)
    with open(os.path.join(_OUT, f"counters-{os.getpid()}.json"), "w") as handle:
        json.dump(record, handle, indent=1, default=str)


if _OUT:
    logging.getLogger("torch._dynamo.convert_frame").addHandler(_LimitHits(logging.WARNING))
    atexit.register(_dump)

# the sitecustomize this one hides (a virtualenv's, a distribution's, the tracer's bootstrap's next one)
def _chain() -> None:
    here = os.path.dirname(os.path.abspath(__file__))
    ours = sys.modules.pop(__name__, None)
    saved = sys.path[:]
    sys.path[:] = [entry for entry in sys.path if os.path.abspath(entry or ".") != here]
    try:
        importlib.import_module("sitecustomize")
    except ImportError:
        if ours is not None:
            sys.modules[__name__] = ours
    finally:
        sys.path[:] = saved


_chain()

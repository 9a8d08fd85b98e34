"""One measured run in a fresh process: ``python -m tracers.measure.worker SPEC.json`` times one mode at one batch size."""

from __future__ import annotations

import contextlib
import importlib.util
import json
import math
import os
import resource
import statistics
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, replace
from pathlib import Path

from tracers.capture.cachemode import cache_mode

from .measurement import EAGER, Run, Samples

# A timed sample is a block of calls at least this long, so the clock's and the synchronize's own cost
# (microseconds) stays small against what is timed; at most this many calls per block.
MIN_SAMPLE_S = 2e-3
MAX_CALLS_PER_SAMPLE = 10_000


@dataclass(frozen=True)
class RunSpec:
    script: str
    mode: str
    batch_size: int
    cache: str  # cold, fill or warm (measurement.CACHES)
    device: str
    backend: str
    warmup: int
    repeats: int
    result: str  # where the worker writes its Run as JSON, after every phase
    cache_dir: str = ""  # fill and warm: the cache directory the two runs share
    steady: bool = True  # time the steady state (warm runs reuse the cold run's)
    threads: int = 0  # torch's CPU threads (torch.set_num_threads); 0 keeps torch's default


class _Stopped(Exception):
    """A phase failed; the run so far has been written."""


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: python -m tracers.measure.worker SPEC.json", file=sys.stderr)
        return 2
    spec = RunSpec(**json.loads(Path(argv[0]).read_text(encoding="utf-8")))
    with _cache_environment(spec):
        return measure(spec)


@contextlib.contextmanager
def _cache_environment(spec: RunSpec) -> Iterator[None]:
    """Cold: the tracer's cold mode (caches off, empty cache dir). Fill and warm: caches on, in the shared dir."""
    if spec.cache == "cold":
        with cache_mode("cold"):
            yield
        return
    os.environ.update({
        "TORCHINDUCTOR_CACHE_DIR": os.path.join(spec.cache_dir, "inductor"),
        "TRITON_CACHE_DIR": os.path.join(spec.cache_dir, "triton"),
        # On, whatever the caller's environment says: the warm run must find what the fill run stored.
        "TORCHINDUCTOR_FX_GRAPH_CACHE": "1",
        "TORCHINDUCTOR_AUTOGRAD_CACHE": "1",
    })
    yield


def measure(spec: RunSpec) -> int:
    """Time the phases in order, writing the run after each, so a crash or a kill leaves what was measured."""
    started = time.perf_counter()
    run = Run(spec.mode, spec.batch_size, spec.cache)

    def save(**changes: object) -> None:
        nonlocal run
        run = replace(run, **changes, wall_s=time.perf_counter() - started)
        _write(Path(spec.result), run)

    def phase(name: str, action: Callable[[], object]) -> object:
        try:
            return action()
        except Exception as error:  # noqa: BLE001 - the example's own errors, reported as the run's
            message = " ".join(str(error).split())[:400]
            save(error=f"{type(error).__name__}: {message}" if message else type(error).__name__, phase=name)
            raise _Stopped from None

    try:
        clock = time.perf_counter()
        torch = phase("import", lambda: __import__("torch"))
        sync = _prepare_device(torch, spec.device)
        if spec.threads:
            torch.set_num_threads(spec.threads)
        module = phase("import", lambda: _load_example(spec.script))
        save(import_s=time.perf_counter() - clock, device_name=_device_name(torch, spec.device),
             memory_kind="CUDA max allocated" if spec.device == "cuda" else "peak RSS")

        clock = time.perf_counter()
        built = phase("build", lambda: module.build(spec.batch_size))
        if spec.device == "cuda":
            # Only build() needs the default device: it is a torch function mode that every later torch call
            # would pass through, slowing eager (and the compiled code's library calls) in what is timed.
            torch.set_default_device(None)
        fn, args = phase("build", lambda: _unpack(built))
        eager = fn
        sync()
        save(build_s=time.perf_counter() - clock, baseline_memory_bytes=_current_memory(torch, spec.device))

        if spec.mode != EAGER:
            options = {} if spec.mode == "default" else {"mode": spec.mode}
            clock = time.perf_counter()
            # torch.compile only wraps, but its first use in a process imports Dynamo and the backend: paid once.
            fn = phase("compile", lambda: torch.compile(fn, backend=spec.backend, **options))
            save(wrap_s=time.perf_counter() - clock)

        def call() -> object:
            return fn(*args)

        first = phase("first call", lambda: _time_block(call, 1, sync))
        graphs = _graph_count(torch)
        save(first_call_s=first, graphs=graphs, peak_memory_bytes=_peak_memory(torch, spec.device),
             compile_times=_compile_times(torch) if spec.mode != EAGER else {})
        if spec.cache == "fill":
            return 0

        warmup = phase("warm-up", lambda: tuple(_time_block(call, 1, sync) for _ in range(spec.warmup)))
        save(warmup_s=warmup, recompiled=_graph_count(torch) != graphs,
             peak_memory_bytes=_peak_memory(torch, spec.device))
        if not spec.steady:
            return 0

        if spec.mode == EAGER:
            steady = phase("steady state", lambda: _steady_state([call], sync, spec.repeats, [warmup or (first,)]))[0]
            save(steady=steady, peak_memory_bytes=_peak_memory(torch, spec.device))
            return 0

        def call_eager() -> object:
            return eager(*args)

        # Eager again in this process, its blocks alternating with the compiled ones: a burst of other work on
        # the machine then slows both alike, and their ratio (the speedup) stays honest.
        memory = _peak_memory(torch, spec.device)  # the compiled calls' peak, before eager's own tensors count
        eager_warmup = phase("steady state", lambda: tuple(_time_block(call_eager, 1, sync)
                                                           for _ in range(max(spec.warmup, 1))))
        steady, paired = phase("steady state", lambda: _steady_state(
            [call, call_eager], sync, spec.repeats, [warmup or (first,), eager_warmup]))
        save(steady=steady, eager_steady=paired, recompiled=_graph_count(torch) != graphs, peak_memory_bytes=memory)
        return 0
    except _Stopped:
        return 1


def _load_example(script: str):  # noqa: ANN202 - the example's module
    """Import the example by path, as a module of its own (its ``main()`` does not run: no ``__main__``)."""
    path = Path(script).resolve()
    sys.path.insert(0, str(path.parent))  # as running the script would: its folder's modules import
    name = f"_measured_{path.stem}"
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses and pickling look the module up by name
    spec.loader.exec_module(module)
    if not callable(getattr(module, "build", None)):
        raise TypeError(f"{path.name} has no build(batch_size) function")
    return module


def _unpack(built: object) -> tuple[Callable[..., object], tuple]:
    if not (isinstance(built, tuple) and len(built) == 2 and callable(built[0])):
        raise TypeError(f"build() returned {type(built).__name__}, expected (callable, args tuple)")
    fn, args = built
    return fn, tuple(args) if isinstance(args, (list, tuple)) else (args,)


def _prepare_device(torch, device: str) -> Callable[[], None]:  # noqa: ANN001 - the torch module
    """Make the device torch's default for build() and return what waits for it: CUDA runs asynchronously."""
    if device != "cuda":
        return lambda: None
    torch.set_default_device("cuda")
    return torch.cuda.synchronize


def _time_block(call: Callable[[], object], number: int, sync: Callable[[], None]) -> float:
    """Seconds for ``number`` calls, with the device idle before and finished after."""
    sync()
    start = time.perf_counter()
    for _ in range(number):
        call()
    sync()
    return time.perf_counter() - start


def _steady_state(calls: list[Callable[[], object]], sync: Callable[[], None], repeats: int,
                  warmups: list[tuple[float, ...]]) -> list[Samples]:
    """``repeats`` blocks of each callable, the callables' blocks in turn; per-call times of each."""
    numbers = [max(1, min(MAX_CALLS_PER_SAMPLE, math.ceil(MIN_SAMPLE_S / max(min(times), 1e-7))))
               for times in warmups]
    samples: list[list[float]] = [[] for _ in calls]
    for _ in range(repeats):
        for call, number, found in zip(calls, numbers, samples):
            found.append(_time_block(call, number, sync) / number)
    return [_timing(tuple(found), number) for found, number in zip(samples, numbers)]


def _timing(samples: tuple[float, ...], number: int) -> Samples:
    ordered = sorted(samples)
    if len(ordered) > 1:
        p25, _, p75 = statistics.quantiles(ordered, n=4, method="inclusive")
    else:
        p25 = p75 = ordered[0]
    return Samples(statistics.median(ordered), p25, p75, ordered[0], number, samples)


def _graph_count(torch) -> int:  # noqa: ANN001
    """Graphs Dynamo has compiled in this process (its own counter)."""
    from torch._dynamo.utils import counters

    return int(counters["stats"]["unique_graphs"])


def _compile_times(torch) -> dict[str, float]:  # noqa: ANN001
    """Dynamo's own timers of the compile (``dynamo_timed`` sections, summed per name), in seconds."""
    from torch._dynamo.utils import compile_times

    try:
        names, values = compile_times(repr="csv", aggregate=True)
        return {str(name): round(float(value), 6) for name, value in zip(names, values)}
    except (TypeError, ValueError):  # another release's shape of the table: the timings are optional
        return {}


def _current_memory(torch, device: str) -> int | None:  # noqa: ANN001
    if device == "cuda":
        return int(torch.cuda.memory_allocated())
    try:
        with open("/proc/self/statm", encoding="ascii") as statm:  # Linux: pages resident, second field
            return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return None


def _peak_memory(torch, device: str) -> int:  # noqa: ANN001
    if device == "cuda":
        return int(torch.cuda.max_memory_allocated())
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return int(peak if sys.platform == "darwin" else peak * 1024)  # bytes on macOS, KiB on Linux


def _device_name(torch, device: str) -> str:  # noqa: ANN001
    from tracers.vocabulary.machine import device_description

    return device_description(device)


def _write(path: Path, run: Run) -> None:
    temporary = path.with_name(path.name + ".tmp")
    temporary.write_text(json.dumps(asdict(run)), encoding="utf-8")
    os.replace(temporary, path)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

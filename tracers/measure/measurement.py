"""The measurement file: runs of one example per mode and batch size, the numbers derived from them, JSON in and out."""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path

from tracers.tracefile.atomic import write_text_atomic

FORMAT = "torch-measure/1"
EAGER = "eager"
# torch.compile's modes, and "eager" for the uncompiled callable every speedup is measured against.
MODES = (EAGER, "default", "reduce-overhead", "max-autotune-no-cudagraphs", "max-autotune")
CUDA_GRAPH_MODES = ("reduce-overhead", "max-autotune")  # these record CUDA graphs: CUDA only
# What a run's process found in the compile caches: ``cold`` (caches off, everything empty), ``fill`` (caches on,
# empty: it compiles and stores), ``warm`` (a second process with the cache the fill run left).
CACHES = ("cold", "fill", "warm")
STATUSES = ("complete", "partial", "interrupted")


class MeasureFileError(ValueError):
    """A measurement file that cannot be read; the message is one line."""


@dataclass(frozen=True)
class Samples:
    """Steady-state time per call: ``samples_s`` are per-call times of blocks of ``calls_per_sample`` calls."""

    median_s: float
    p25_s: float
    p75_s: float
    min_s: float
    calls_per_sample: int
    samples_s: tuple[float, ...]


@dataclass(frozen=True)
class Run:
    """One fresh process: one mode, one batch size, one cache state. ``error`` is empty when it ran to the end."""

    mode: str
    batch_size: int
    cache: str
    error: str = ""
    phase: str = ""  # the phase an error stopped it in: import, build, first call, warm-up, steady state, process
    import_s: float | None = None  # importing torch and the example
    build_s: float | None = None  # the example's build(batch_size)
    wrap_s: float | None = None  # torch.compile(...) itself: the first in a process imports Dynamo and the backend
    first_call_s: float | None = None  # the first call: for a compiled mode, Dynamo + the backend + one run
    warmup_s: tuple[float, ...] = ()  # each warm-up call after the first
    steady: Samples | None = None
    # Compiled runs time eager too, in the same process, its blocks alternating with the compiled ones.
    eager_steady: Samples | None = None
    graphs: int | None = None  # graphs Dynamo compiled, after the first call
    recompiled: bool = False  # Dynamo compiled again during warm-up or timing: the steady state is not steady
    memory_kind: str = ""  # "peak RSS" (CPU: the process's resident set) or "CUDA max allocated"
    peak_memory_bytes: int | None = None
    baseline_memory_bytes: int | None = None  # after build, before the first call: model and inputs
    compile_times: dict[str, float] = field(default_factory=dict)  # Dynamo's timers of the first call, by section
    wall_s: float | None = None  # the process from the worker's start to its last phase
    device_name: str = ""

    @property
    def ok(self) -> bool:
        return not self.error


@dataclass(frozen=True)
class Result:
    """What the runs of one mode and batch size add up to (None where a run is missing or failed)."""

    mode: str
    batch_size: int
    steady_s: float | None = None
    p25_s: float | None = None
    p75_s: float | None = None
    # Eager's time per call / this mode's, both from this mode's process, timed in alternating blocks
    # (so that load on the machine hits both alike); eager's own process for a run that has no pair.
    speedup: float | None = None
    eager_paired_s: float | None = None
    # From torch.compile(...) to the first output: the wrapper's imports, the compile, one run.
    first_call_cold_s: float | None = None
    first_call_warm_s: float | None = None
    # Time the first call and the warm-up calls took beyond their steady-state cost, minus eager's: what
    # compiling costs once. Break-even: calls after which the compiled callable has caught up with eager.
    one_time_cold_s: float | None = None
    one_time_warm_s: float | None = None
    break_even_cold: int | None = None
    break_even_warm: int | None = None
    pays_off: bool | None = None  # False: not faster than eager in steady state, so never breaks even
    peak_memory_bytes: int | None = None
    baseline_memory_bytes: int | None = None


@dataclass(frozen=True)
class Settings:
    backend: str
    modes: tuple[str, ...]
    batch_sizes: tuple[int, ...]
    repeats: int
    warmup: int
    warm: bool  # fill and warm runs were made for the compiled modes
    threads: int = 0  # torch's CPU threads in every run; 0: torch's default (machine["torch_threads"])


@dataclass(frozen=True)
class Plot:
    file: str  # beside the JSON
    kind: str  # steady, speedup, first-call, break-even, memory
    title: str


@dataclass(frozen=True)
class Measurement:
    example: str
    script: str
    device: str
    machine: dict[str, object]
    settings: Settings
    runs: tuple[Run, ...]
    results: tuple[Result, ...]
    status: str
    command: tuple[str, ...] = ()
    started: str = ""
    seconds: float = 0.0
    plots: tuple[Plot, ...] = ()
    format: str = FORMAT
    notes: tuple[str, ...] = field(default=())


def first_result(run: Run) -> float | None:
    """From ``torch.compile(...)`` to the first output (eager: the first call alone)."""
    if run.first_call_s is None:
        return None
    return (run.wrap_s or 0.0) + run.first_call_s


def one_time_cost(run: Run, steady_s: float) -> float | None:
    """Time torch.compile(), the first call and the warm-up calls took beyond ``1 + warm-ups`` steady-state calls."""
    first = first_result(run)
    if first is None:
        return None
    calls = 1 + len(run.warmup_s)
    return first + sum(run.warmup_s) - calls * steady_s


def break_even(extra_s: float, eager_s: float, compiled_s: float) -> int | None:
    """Calls after which ``extra_s`` paid once is won back at ``eager_s - compiled_s`` a call; None: never."""
    gain = eager_s - compiled_s
    if gain <= 0:
        return None
    return max(1, math.ceil(extra_s / gain))


def summarize(runs: tuple[Run, ...] | list[Run], modes: tuple[str, ...], batch_sizes: tuple[int, ...]) -> tuple[Result, ...]:
    """One result per mode and batch size, from the runs that finished."""
    found = {(run.mode, run.batch_size, run.cache): run for run in runs}
    results = []
    for batch in batch_sizes:
        eager = found.get((EAGER, batch, "cold"))
        eager_ok = eager is not None and eager.steady is not None
        eager_cost = one_time_cost(eager, eager.steady.median_s) if eager_ok else None
        for mode in modes:
            cold, warm = found.get((mode, batch, "cold")), found.get((mode, batch, "warm"))
            if cold is None or cold.steady is None:
                partial = cold if cold is not None else None
                results.append(Result(mode, batch, first_call_cold_s=first_result(partial) if partial else None,
                                      peak_memory_bytes=partial.peak_memory_bytes if partial else None))
                continue
            steady = cold.steady
            # The eager time this mode is compared with: its own alternating blocks, else eager's process.
            eager_s = cold.eager_steady.median_s if cold.eager_steady else (
                eager.steady.median_s if eager_ok else None)
            values = dict(mode=mode, batch_size=batch, steady_s=steady.median_s, p25_s=steady.p25_s,
                          p75_s=steady.p75_s, speedup=eager_s / steady.median_s if eager_s else None,
                          eager_paired_s=cold.eager_steady.median_s if cold.eager_steady else None,
                          first_call_cold_s=first_result(cold),
                          peak_memory_bytes=cold.peak_memory_bytes, baseline_memory_bytes=cold.baseline_memory_bytes)
            if mode != EAGER and eager_s and eager_ok and eager_cost is not None:
                values["pays_off"] = steady.median_s < eager_s
                cost = one_time_cost(cold, steady.median_s)
                if cost is not None:
                    values["one_time_cold_s"] = cost - eager_cost
                    values["break_even_cold"] = break_even(cost - eager_cost, eager_s, steady.median_s)
                if warm is not None and warm.ok:
                    values["first_call_warm_s"] = first_result(warm)
                    cost = one_time_cost(warm, steady.median_s)
                    if cost is not None:
                        values["one_time_warm_s"] = cost - eager_cost
                        values["break_even_warm"] = break_even(cost - eager_cost, eager_s, steady.median_s)
            results.append(Result(**values))
    return tuple(results)


# ---- JSON ------------------------------------------------------------------------------------------------


def to_json(measurement: Measurement) -> str:
    return json.dumps(asdict(measurement), indent=1, ensure_ascii=False) + "\n"


def write_atomic(measurement: Measurement, path: Path) -> None:
    """Write through a temporary file in the same folder, so a reader never sees half a file."""
    write_text_atomic(path, to_json(measurement))


def load(path: Path) -> Measurement:
    """Read a measurement file; MeasureFileError (one line) for anything that is not one."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as error:
        raise MeasureFileError(f"{path}: cannot read it ({error.strerror or error})") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise MeasureFileError(f"{path}: not a JSON file ({error})") from None
    try:
        return from_dict(data)
    except (TypeError, ValueError, KeyError, AttributeError) as error:
        raise MeasureFileError(f"{path}: not a measurement file this tool can read ({type(error).__name__}: "
                               f"{error})") from None


def from_dict(data: dict) -> Measurement:
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        found = data.get("format") if isinstance(data, dict) else type(data).__name__
        raise ValueError(f"format is {found!r}, expected {FORMAT!r}")
    if data["status"] not in STATUSES:
        raise ValueError(f"status {data['status']!r}")
    settings = _build(Settings, data["settings"])
    runs = tuple(run_from_dict(item) for item in data["runs"])
    results = tuple(_build(Result, item) for item in data["results"])
    plots = tuple(_build(Plot, item) for item in data.get("plots", ()))
    values = {**data, "settings": settings, "runs": runs, "results": results, "plots": plots}
    if not isinstance(values["machine"], dict):
        raise TypeError("machine is not an object")
    return _build(Measurement, values)


def run_from_dict(item: dict) -> Run:
    """A run as the worker writes it (and as the measurement file holds it)."""
    timings = {key: _build(Samples, item[key]) for key in ("steady", "eager_steady") if item.get(key) is not None}
    return _build(Run, {**item, **timings})


def _build(cls, values: dict):  # noqa: ANN001, ANN202 - any of the dataclasses above
    """The dataclass from a JSON object: unknown keys are an error, lists become tuples."""
    if not isinstance(values, dict):
        raise TypeError(f"{cls.__name__} is not an object")
    names = {f.name for f in fields(cls)}
    unknown = set(values) - names
    if unknown:
        raise KeyError(f"{cls.__name__} has no field(s) {', '.join(sorted(unknown))}")
    converted = {key: tuple(value) if isinstance(value, list) else value for key, value in values.items()}
    hints = {f.name: f.type for f in fields(cls)}
    for key, value in converted.items():
        if not _has_type(value, hints[key]):
            raise TypeError(f"{cls.__name__}.{key} is {value!r}, expected {hints[key]}")
    return cls(**converted)


_SIMPLE = {"int": (int,), "float": (int, float), "str": (str,), "bool": (bool,), "None": (type(None),)}


def _has_type(value: object, annotation: str) -> bool:
    """Check a JSON value against a field's annotation (``float | None``, ``tuple[int, ...]``, a dataclass)."""
    for option in (part.strip() for part in annotation.split("|")):
        head = option.split("[", 1)[0]
        if head == "tuple":
            if isinstance(value, tuple):
                inner = option[len("tuple["):-1].split(",")[0].strip()
                if inner not in _SIMPLE or all(_has_type(item, inner) for item in value):
                    return True
        elif head == "dict":
            if isinstance(value, dict):
                return True
        elif head in _SIMPLE:
            # bool is an int to Python; a JSON true is no batch size
            if isinstance(value, _SIMPLE[head]) and not (isinstance(value, bool) and head != "bool"):
                return True
        elif type(value).__name__ == head:
            return True
    return False

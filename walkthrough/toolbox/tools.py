"""The tool table: each debugging tool, how a user runs it, and the commands the recorder runs for it."""

from __future__ import annotations

import importlib.metadata
import importlib.util
import shutil
import subprocess
from dataclasses import dataclass

# What TORCH_LOGS prints in the recording: breaks, recompiles, guards and the graphs of every stage up to the
# generated code. All six are registered artifact names in torch 2.13 (TORCH_LOGS=+help lists them).
TORCH_LOGS_PRESET = "graph_breaks,recompiles,guards,graph_code,aot_graphs,output_code"

OUT = "<out>"  # in a step's argv and env: the tool's own output directory
EXAMPLE = "<example>"  # the example script, as the user gave it
ARGS = "<args>"  # the example's own arguments, spliced in place
PYTHON = "<python>"  # the interpreter running the recorder


@dataclass(frozen=True)
class Requirement:
    """Something a tool needs beyond torch: a Python module or an executable, and how to get it."""

    kind: str  # "module" or "executable"
    name: str
    install: str

    def missing(self) -> bool:
        if self.kind == "module":
            return importlib.util.find_spec(self.name) is None
        return shutil.which(self.name) is None

    def version(self) -> str:
        """``depyf 0.20.0``, ``tlparse 0.4.3``: what the recording was made with ("" when unknown)."""
        if self.kind == "module":
            try:
                return f"{self.name} {importlib.metadata.version(self.name)}"
            except importlib.metadata.PackageNotFoundError:
                return ""
        try:
            result = subprocess.run([self.name, "--version"], capture_output=True, text=True, timeout=30)
        except (OSError, subprocess.TimeoutExpired):
            return ""
        return result.stdout.strip().splitlines()[0] if result.returncode == 0 and result.stdout.strip() else ""


@dataclass(frozen=True)
class Newest:
    """An argv element resolved when the step starts: the newest file matching a glob under the output dir
    (tlparse must be given the log file TORCH_TRACE chose a random name for)."""

    pattern: str


@dataclass(frozen=True)
class Step:
    """One command of a tool. The step that runs the example is timed against the plain run."""

    label: str
    argv: tuple[str | Newest, ...]
    env: tuple[tuple[str, str], ...] = ()
    runs_example: bool = True


@dataclass(frozen=True)
class Tool:
    id: str
    name: str
    kind: str  # how it is switched on: baseline, environment variable, API, CLI
    usage: str  # what a user types or writes to use it on their own program
    steps: tuple[Step, ...]
    requires: tuple[Requirement, ...] = ()
    note: str = ""  # what the recorder does differently from the usage line, if anything
    # Where a user looks first (fnmatch patterns under the tool's directory, in order): evidence is taken from there
    # when it has it, before the raw logs the same facts are also in.
    look_first: tuple[str, ...] = ()

    def versions(self) -> tuple[str, ...]:
        return tuple(version for requirement in self.requires if (version := requirement.version()))

    def missing(self) -> str | None:
        """One line naming the first missing requirement, or None when the tool can run."""
        for requirement in self.requires:
            if requirement.missing():
                return f"{requirement.name} not installed: {requirement.install}"
        return None


def _example_step(*prefix: str, env: tuple[tuple[str, str], ...] = ()) -> Step:
    return Step("run", (*prefix, EXAMPLE, ARGS), env)


_DRIVER = (PYTHON, "-m", "walkthrough.toolbox.drivers")
_DEPYF = Requirement("module", "depyf", "pip install depyf")
_TLPARSE = Requirement("executable", "tlparse", "pip install tlparse")

PLAIN = Tool(
    "plain", "plain run", "baseline", "python EXAMPLE",
    (_example_step(PYTHON),),
)

TOOLS: tuple[Tool, ...] = (
    Tool(
        "torch_logs", "TORCH_LOGS", "environment variable",
        f'TORCH_LOGS="{TORCH_LOGS_PRESET}" python EXAMPLE',
        (_example_step(PYTHON, env=(("TORCH_LOGS", TORCH_LOGS_PRESET),)),),
    ),
    Tool(
        "torch_trace", "TORCH_TRACE + tlparse", "environment variable + CLI",
        "TORCH_TRACE=trace_dir python EXAMPLE; tlparse trace_dir/LOG -o tl_out",
        (_example_step(PYTHON, env=(("TORCH_TRACE", f"{OUT}/trace"),)),
         Step("tlparse", ("tlparse", Newest("trace/*.log"), "-o", f"{OUT}/tl_out", "--no-browser", "--overwrite"),
              runs_example=False)),
        requires=(_TLPARSE,),
        look_first=("tl_out/index.html", "tl_out/-_*", "tl_out/*"),  # the report, then its per-compile pages
    ),
    Tool(
        "torch_compile_debug", "TORCH_COMPILE_DEBUG", "environment variable",
        "TORCH_COMPILE_DEBUG=1 python EXAMPLE",
        # The debug directory defaults to the working directory; the recorder keeps it out of the checkout.
        (_example_step(PYTHON, env=(("TORCH_COMPILE_DEBUG", "1"), ("TORCH_COMPILE_DEBUG_DIR", OUT))),),
        note="TORCH_COMPILE_DEBUG_DIR points the dump at the tool's own directory",
        look_first=("torch_compile_debug/run_*",),  # its own dump, before the trace log it also writes
    ),
    Tool(
        "explain", "torch._dynamo.explain", "API",
        "print(torch._dynamo.explain(fn)(*args))",
        (_example_step(*_DRIVER, "explain", "--out", OUT),),
        note="a driver swaps torch.compile for a wrapper that explains each call, then runs the function "
             "eagerly for its result: every call runs twice, and explain resets Dynamo each time",
    ),
    Tool(
        "depyf", "depyf", "API (context manager)",
        'with depyf.prepare_debug("depyf_out"): main()',
        (_example_step(*_DRIVER, "depyf", "--out", OUT),),
        requires=(_DEPYF,),
        note="a driver runs the example inside depyf.prepare_debug",
    ),
    Tool(
        "toolkit", "this toolkit", "CLI",
        "python -m tracers trace --inductor-ir EXAMPLE",
        # --cache warm leaves torch's caches as they are: the recorder already gave every tool an empty
        # cache directory, so the compiles miss, as in every other tool's run.
        (Step("run", (PYTHON, "-m", "tracers", "trace", "--cache", "warm", "--inductor-ir", "--out", OUT,
                      EXAMPLE, ARGS)),),
        note="--cache warm: torch's caches left on, in the empty cache directory every tool gets",
    ),
)

TOOL_BY_ID = {tool.id: tool for tool in (PLAIN, *TOOLS)}



def on_device(step: Step, device: str) -> Step:
    """The step for a GPU run: a bare ``python EXAMPLE`` goes through the driver, which sets torch's default
    device first (this toolkit has its own --device, the drivers take one too)."""
    if device == "cpu":
        return step
    argv = list(step.argv)
    if argv[:1] == [PYTHON] and argv[1:2] == [EXAMPLE]:
        argv = [*_DRIVER, "run", "--device", device, *argv[1:]]
    elif argv[:3] == list(_DRIVER):
        argv = [*argv[:4], "--device", device, *argv[4:]]
    elif argv[1:4] == ["-m", "tracers", "trace"]:
        argv = [*argv[:4], "--device", device, *argv[4:]]
    return Step(step.label, tuple(argv), step.env, step.runs_example)

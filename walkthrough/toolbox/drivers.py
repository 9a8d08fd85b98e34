"""Run an example under a tool used from code (explain, depyf), or on a GPU: ``-m walkthrough.toolbox.drivers``."""

from __future__ import annotations

import argparse
import functools
import inspect
import itertools
import runpy
import sys
from pathlib import Path


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m walkthrough.toolbox.drivers",
        description="Run SCRIPT as __main__ under one debugging tool (the toolbox recorder starts these).",
    )
    parser.add_argument("driver", choices=("run", "explain", "depyf"),
                        help="run: just the script; explain: torch._dynamo.explain on every call of a compiled "
                             "function; depyf: inside depyf.prepare_debug")
    parser.add_argument("--device", choices=("cpu", "cuda"), default="cpu",
                        help="cuda: make the GPU torch's default device first (default: cpu)")
    parser.add_argument("--out", default=".", metavar="DIR", help="where explain and depyf write (default: .)")
    parser.add_argument("script", metavar="SCRIPT")
    parser.add_argument("args", nargs=argparse.REMAINDER, metavar="ARGS")
    return parser


def explaining_compile(out: Path):  # noqa: ANN201 - returns a stand-in for torch.compile
    """A stand-in for ``torch.compile``: each call of the "compiled" function is run through
    ``torch._dynamo.explain`` and its report written to ``out/explain-N.txt``; the function then runs
    eagerly, because explain discards the result. The compile options are ignored: explain always uses
    its own graph-collecting backend."""
    import torch

    calls = itertools.count(1)

    def compile_(model=None, **options):  # noqa: ANN001, ANN202 - torch.compile's signature, decorator form too
        if model is None:
            return lambda function: compile_(function, **options)
        name = getattr(model, "__qualname__", type(model).__name__)

        def explained(*args, **kwargs):  # noqa: ANN202
            number = next(calls)
            report = torch._dynamo.explain(model)(*args, **kwargs)
            graphs = "".join(f"\nGraph {index}:\n{graph.print_readable(print_output=False)}"
                             for index, graph in enumerate(report.graphs, 1))
            out.mkdir(parents=True, exist_ok=True)
            (out / f"explain-{number}.txt").write_text(f"# explain({name}), call {number}\n{report}{graphs}",
                                                       encoding="utf-8")
            return model(*args, **kwargs)

        if inspect.isfunction(model) or inspect.ismethod(model):  # a module instance keeps the plain wrapper
            functools.update_wrapper(explained, model)
        return explained

    return compile_


def run_script(script: Path, args: list[str]) -> int:
    """Run ``script`` as ``python SCRIPT ARGS`` would (its folder first on ``sys.path``); its exit status."""
    sys.argv = [str(script), *args]
    sys.path.insert(0, str(script.resolve().parent))
    try:
        runpy.run_path(str(script), run_name="__main__")
    except SystemExit as exit_:
        code = exit_.code
        if code is None or isinstance(code, int):
            return code or 0
        print(code, file=sys.stderr)
        return 1
    return 0


def main(argv: list[str] | None = None) -> int:
    options = _parser().parse_args(argv)
    script = Path(options.script)
    if not script.is_file():
        print(f"drivers: {script}: no such file", file=sys.stderr)
        return 2
    out = Path(options.out)
    import torch

    if options.device == "cuda":
        if not torch.cuda.is_available():
            print("drivers: --device cuda: no CUDA GPU is available to this torch", file=sys.stderr)
            return 2
        torch.set_default_device("cuda")
    if options.driver == "explain":
        torch.compile = explaining_compile(out)
    if options.driver == "depyf":
        try:
            import depyf
        except ImportError as error:
            print(f"drivers: depyf not installed: pip install depyf ({error})", file=sys.stderr)
            return 2
        with depyf.prepare_debug(str(out / "depyf_out")):
            return run_script(script, options.args)
    return run_script(script, options.args)


if __name__ == "__main__":
    sys.exit(main())

"""The import order ``tracers/__init__.py`` states holds in the code: no wing imports one above it, inside a
function or not; nothing in ``tracers`` imports ``walkthrough``; ``report/`` and ``walkthrough/`` need nothing from
``capture/``."""

from __future__ import annotations

import ast
from pathlib import Path

from tests.conftest import ROOT
import pytest

pytestmark = pytest.mark.pure

# Highest first, as the package docstring lists them; wings on one line may import each other's lower neighbour
# only as listed in ``SAME_LEVEL``.
ORDER = (
    ("__main__", "commands", "__init__"),
    ("api",),
    ("torchlogs",),
    ("ranks",),
    ("report", "terminal"),
    ("measure",),
    ("capture",),
    ("analysis",),
    ("tracefile",),
    ("vocabulary",),
)
LEVEL = {wing: len(ORDER) - index for index, wings in enumerate(ORDER) for wing in wings}


def _imports(path: Path, package: str) -> list[tuple[int, str]]:
    """Every module ``path`` imports (relative imports made absolute), with its line."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                module = ".".join(base + ([node.module] if node.module else []))
                names = [module] if node.module else [f"{module}.{alias.name}" for alias in node.names]
            else:
                names = [node.module or ""]
            found += [(node.lineno, name) for name in names]
        elif isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
    return found


def _wing(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def _modules(top: str):  # noqa: ANN202 - (path, its package, its module name)
    for path in sorted((ROOT / top).rglob("*.py")):
        parts = path.relative_to(ROOT).with_suffix("").parts
        module = ".".join(parts)
        package = module.removesuffix(".__init__") if parts[-1] == "__init__" else module.rsplit(".", 1)[0]
        yield path, package, module


def test_no_import_climbs_the_tracers_layers():
    climbing = []
    for path, package, module in _modules("tracers"):
        mine = "__init__" if module == "tracers.__init__" else _wing(package + ".x" if module.endswith("__init__") else module)
        for line, name in _imports(path, package):
            if name.startswith("walkthrough"):
                climbing.append(f"{path.relative_to(ROOT)}:{line} imports {name}")
            if not name.startswith("tracers."):
                continue
            theirs = _wing(name)
            if theirs != mine and LEVEL[theirs] >= LEVEL[mine] and LEVEL[mine] != LEVEL["__main__"]:
                climbing.append(f"{path.relative_to(ROOT)}:{line} ({mine}) imports {name} ({theirs})")
    assert not climbing, "\n".join(climbing)


def test_the_page_and_the_walkthrough_need_nothing_from_capture():
    users = [f"{path.relative_to(ROOT)}:{line} imports {name}"
             for top in ("walkthrough", "tracers/report", "tracers/terminal")
             for path, package, _ in _modules(top)
             for line, name in _imports(path, package) if name.startswith("tracers.capture")]
    assert not users, "\n".join(users)


def test_every_wing_is_placed():
    wings = {path.name.removesuffix(".py") for path in (ROOT / "tracers").iterdir()
             if path.suffix == ".py" or (path.is_dir() and (path / "__init__.py").exists())}
    assert wings <= set(LEVEL), wings - set(LEVEL)


def test_reading_a_log_loads_no_capture_or_measure_module(tmp_path):
    """``report`` on one TORCH_TRACE log, in a fresh process: the trace, page and summary are written, and not one
    module of ``tracers.capture`` or ``tracers.measure`` was imported to do it."""
    import subprocess
    import sys

    log = ROOT / "tests" / "data" / "tlparse" / "inputs" / "simple.log.gz"
    code = ("import sys; from tracers.commands import main; status = main(['report', sys.argv[1], '--out', sys.argv[2], "
            "'--site', 'https://example.invalid/']); "
            "print(sorted(m for m in sys.modules if m.startswith(('tracers.capture', 'tracers.measure')))); "
            "sys.exit(status)")
    done = subprocess.run([sys.executable, "-c", code, str(log), str(tmp_path)], capture_output=True, text=True,
                          cwd=ROOT, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-1] == "[]", done.stdout
    assert (tmp_path / "simple.json").exists() and (tmp_path / "simple.html").exists()
    assert "Findings" in done.stderr  # the summary was printed


def test_the_top_level_help_loads_no_command_torch_or_analysis_module():
    """``python -m tracers --help`` in a fresh process lists every command with its help line, and imports no torch,
    no analysis module and no command module (their help lines are read from source): help costs no start-up."""
    import subprocess
    import sys

    from tracers.commands import COMMANDS

    code = ("import sys, contextlib, io; from tracers.commands import main\n"
            "with contextlib.redirect_stdout(io.StringIO()) as text, contextlib.suppress(SystemExit): main(['--help'])\n"
            "print(text.getvalue()); print(sorted(m for m in sys.modules if m == 'torch' or m.startswith(("
            "'torch.', 'tracers.analysis', 'tracers.commands.'))))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert done.returncode == 0, done.stderr
    *help_text, loaded = done.stdout.strip().splitlines()
    assert loaded == "['tracers.commands.parsing']", loaded
    assert all(any(line.split()[:1] == [name] for line in help_text) for name in COMMANDS), help_text


def test_each_help_line_read_from_source_is_the_modules_own():
    """The help lines ``--help`` reads without importing are the ones the command modules define."""
    import importlib

    from tracers.commands import COMMANDS, _help

    for name, module in COMMANDS.items():
        assert _help(name) == importlib.import_module(f"tracers.commands.{module}").HELP, name

"""What the README tells a newcomer stays true: where it starts, the two fresh-machine commands, the requirements
and install lines against the project's own pins, figures quoted from the benchmarks, the code layout."""

from __future__ import annotations

import re
import tomllib

from tracers.vocabulary.releases import REFERENCE_TORCH
from walkthrough.releases.catalog import SUPPORTED

from tests.conftest import ROOT
import pytest

pytestmark = pytest.mark.pure

README = (ROOT / "README.md").read_text(encoding="utf-8")
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def _section(title: str) -> str:
    return README.split(f"\n## {title}\n", 1)[1].split("\n## ", 1)[0]


def _code_lines(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines() if line.startswith("    ") and line.strip()]


def test_it_starts_with_what_it_is_and_three_commands_that_trace_and_open():
    top = README.split("\n## ", 1)[0]
    assert "**Start here.**" in top and len(top.splitlines()) <= 12
    commands = [line.split("#", 1)[0].strip() for line in _code_lines(top)]
    assert commands == [f"python -m pip install torch=={REFERENCE_TORCH} '.[docs,page]'",
                        "torch-compile-trace trace my_script.py", "torch-compile-walkthrough open"]
    assert set(PYPROJECT["project"]["scripts"]) == {"torch-compile-trace", "torch-compile-walkthrough"}


def test_exactly_two_fresh_machine_commands_and_ci_runs_the_test_one():
    fresh = re.findall(r"^    (pip install nox && nox -s \w+)$", README, flags=re.M)
    assert fresh == ["pip install nox && nox -s docs", "pip install nox && nox -s tests"]
    assert re.search(r"^python3 -m nox -s tests$", (ROOT / ".ci" / "run").read_text(), flags=re.M)


def test_requirements_and_install_lines_match_the_project():
    python = PYPROJECT["project"]["requires-python"]
    assert python == ">=3.11" and "**Python 3.11 or newer.**" in _section("Requirements")
    assert f"{SUPPORTED[0]} to {SUPPORTED[-1]}" in _section("Requirements")
    assert set(re.findall(r"torch==([\d.]+)", README)) == {REFERENCE_TORCH}  # every pin is the reference
    named = re.findall(r"reference torch \(([\d.]+)\)|torch ([\d.]+), the reference", README)
    assert named and {version for pair in named for version in pair if version} == {REFERENCE_TORCH}
    assert "numpy" in PYPROJECT["project"]["dependencies"]  # torch warns on every import without it
    extras = set(PYPROJECT["project"]["optional-dependencies"])
    for named in re.findall(r"\[([a-z,]+)\]'", README):  # '.[docs,page]', 'torch-compile-walkthrough[docs]'
        assert set(named.split(",")) <= extras, named
    install = _code_lines(_section("Install"))
    assert install[0] == _code_lines(README.split("\n## ", 1)[0])[0].split("#", 1)[0].strip()  # one clone line


def test_ratios_quoted_from_the_benchmarks_are_in_their_results():
    """A ratio the README quotes (``0.999×``) is one `nox -s bench` wrote, not one typed by hand."""
    results = (ROOT / "benchmarks" / "RESULTS.md").read_text(encoding="utf-8")
    quoted = re.findall(r"\d+\.\d+×", README)
    assert quoted
    assert [ratio for ratio in quoted if ratio not in results] == []
    assert not re.search(r"\d{1,3}(,\d{3})+ bytes", README)  # sizes are RESULTS.md's ("Wheel size"), never copied
    assert "<!-- wheel-size:start -->" in results


def test_the_code_layout_comes_last_and_names_every_wing():
    headings = re.findall(r"^## (.+)$", README, flags=re.M)
    assert headings[-1] == "Code layout" and headings.index("Tracing your own script") < 5
    layout = _section("Code layout")
    wings = {path.parent.name for path in (ROOT / "tracers").glob("*/__init__.py")}
    assert wings and {wing for wing in wings if f"`{wing}/`" not in layout} == set()


def test_what_it_costs_gives_time_and_disk_for_each_fresh_machine_command_and_the_start():
    rows = [line.split("|")[1:4] for line in _section("What it costs").splitlines() if line.startswith("| ")]
    steps = {step.strip(): (time.strip(), disk.strip()) for step, time, disk in rows[1:]}
    for session in ("docs", "tests"):  # the two fresh-machine commands, first runs
        first = [step for step in steps if step.startswith(f"`nox -s {session}`")]
        assert first and all(steps[step][0] and steps[step][1] for step in first), session
    assert any(step.startswith("the install line") for step in steps)
    assert all(re.search(r"\d+ (min|s)|instant", time) for time, _ in steps.values()), steps
    assert all(re.search(r"\d+(\.\d+)? (GB|MB)|—", disk) for _, disk in steps.values()), steps


def test_the_readme_names_the_one_venv_the_sessions_share():
    noxfile = (ROOT / "noxfile.py").read_text(encoding="utf-8")
    assert 'SHARED = ROOT / ".nox" / f"torch-{REFERENCE_TORCH}"' in noxfile
    fresh = _section("On a fresh machine")
    assert f"`.nox/torch-{REFERENCE_TORCH}/`" in fresh and "share one virtual environment per torch release" in fresh
    assert "`nox -s clean`" in _section("What it costs")

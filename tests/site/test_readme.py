"""What the README tells a newcomer stays true, and the reference it links to stays whole: the README is a front door
(where it starts, the two fresh-machine commands as CI runs them, the first steps, links to the site's "Using the
tracer" pages); those pages (docs/using/) hold the reference: requirements and install lines against the project's
own pins, every command's options, figures quoted from the benchmarks, the costs, the code layout."""

from __future__ import annotations

import argparse
import importlib
import re
import tomllib

from tracers.vocabulary.releases import REFERENCE_TORCH
from walkthrough.releases.catalog import SUPPORTED

from tests.conftest import ROOT
import pytest

pytestmark = pytest.mark.pure

README = (ROOT / "README.md").read_text(encoding="utf-8")
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
USING = ROOT / "docs" / "using"
PAGES = {path.stem: path.read_text(encoding="utf-8") for path in sorted(USING.glob("*.md"))}
INSTALL = PAGES["install"]
REFERENCE = "\n".join(PAGES.values())  # every "Using the tracer" page


def _section(title: str, text: str = README) -> str:
    return text.split(f"\n## {title}\n", 1)[1].split("\n## ", 1)[0]


def _code_lines(text: str) -> list[str]:
    """The README's indented code lines, or a page's fenced ones."""
    indented = [line.strip() for line in text.splitlines() if line.startswith("    ") and line.strip()]
    fenced = [line.strip() for block in re.findall(r"^```\w*\n(.*?)^```", text, flags=re.M | re.S)
              for line in block.splitlines() if line.strip()]
    return indented + fenced


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
    assert 'nox.options.sessions = ["tests"]' in (ROOT / "noxfile.py").read_text(encoding="utf-8")


def test_the_readme_is_a_front_door_that_links_every_using_page():
    """Set-up, what you get, the first three steps and links; the reference itself lives on the site."""
    assert len(README.splitlines()) < 150
    headings = re.findall(r"^## (.+)$", README, flags=re.M)
    assert headings[:2] == ["On a fresh machine", "What you get"] and len(headings) <= 5
    steps = re.findall(r"^\d\. \*\*(.+?)\*\*", _section("The first three things to do"), flags=re.M)
    assert len(steps) == 3 and steps[0] == "Trace your script."
    linked = set(re.findall(r"\]\(docs/using/([\w-]+)\.md(?:#[\w-]+)?\)", README))
    assert linked == set(PAGES), set(PAGES) ^ linked  # every page linked, and every link a page that exists
    for anchor in re.findall(r"\]\(docs/using/install\.md#([\w-]+)\)", README):
        assert f"\n## {anchor.replace('-', ' ').capitalize()}\n" in INSTALL, anchor


def test_every_using_page_is_in_the_sites_toctree():
    index = PAGES["index"]
    toctree = re.search(r"```\{toctree\}\n(.*?)```", index, flags=re.S).group(1)
    listed = {line.strip() for line in toctree.splitlines() if line.strip() and not line.startswith(":")}
    assert listed == set(PAGES) - {"index"}
    assert re.search(r"^using/index$", (ROOT / "docs" / "index.md").read_text(encoding="utf-8"), flags=re.M)
    assert all(text.startswith("# ") for text in PAGES.values())


def _public_options(parser: argparse.ArgumentParser) -> set[str]:
    found = set()
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                found |= _public_options(sub)
        elif action.help != argparse.SUPPRESS:
            found |= {option for option in action.option_strings if option.startswith("--") and option != "--help"}
    return found


def test_every_option_of_every_command_is_on_a_using_page():
    """Nothing of the reference is lost: each option the tracer's and the walkthrough's commands take is named."""
    from tracers.commands import COMMANDS
    import walkthrough.__main__ as walkthrough_main

    options = _public_options(walkthrough_main._parser())
    for module in COMMANDS.values():
        parser = argparse.ArgumentParser()
        importlib.import_module(f"tracers.commands.{module}").add_arguments(parser)
        options |= _public_options(parser)
    assert options and sorted(option for option in options if f"`{option}" not in REFERENCE) == []


def test_requirements_and_install_lines_match_the_project():
    python = PYPROJECT["project"]["requires-python"]
    assert python == ">=3.11" and "**Python 3.11 or newer.**" in _section("Requirements", INSTALL)
    assert "Python 3.11 or newer" in README.split("\n## ", 1)[0]
    assert f"{SUPPORTED[0]} to {SUPPORTED[-1]}" in _section("Requirements", INSTALL)
    for text in (README, *PAGES.values()):
        assert set(re.findall(r"torch==([\d.]+)", text)) <= {REFERENCE_TORCH}  # every pin is the reference
    assert re.findall(r"torch==([\d.]+)", README) and re.findall(r"torch==([\d.]+)", INSTALL)
    named = re.findall(r"reference torch \(([\d.]+)\)|torch ([\d.]+), the reference", INSTALL)
    assert named and {version for pair in named for version in pair if version} == {REFERENCE_TORCH}
    assert "numpy" in PYPROJECT["project"]["dependencies"]  # torch warns on every import without it
    extras = set(PYPROJECT["project"]["optional-dependencies"])
    for named in re.findall(r"\[([a-z,]+)\]'", README + REFERENCE):  # '.[docs,page]', 'torch-compile-walkthrough[docs]'
        assert set(named.split(",")) <= extras, named
    install = _code_lines(_section("Install", INSTALL))
    assert install[0] == _code_lines(README.split("\n## ", 1)[0])[0].split("#", 1)[0].strip()  # one clone line


def test_ratios_quoted_from_the_benchmarks_are_in_their_results():
    """A ratio the README or a "Using the tracer" page quotes (``0.999×``) is one `nox -s bench` wrote."""
    results = (ROOT / "benchmarks" / "RESULTS.md").read_text(encoding="utf-8")
    quoted = re.findall(r"\d+\.\d+×", README + REFERENCE)
    assert quoted
    assert [ratio for ratio in quoted if ratio not in results] == []
    assert not re.search(r"\d{1,3}(,\d{3})+ bytes", README + REFERENCE)  # sizes are RESULTS.md's ("Wheel size")
    assert "<!-- wheel-size:start -->" in results


def test_the_code_layout_comes_last_and_names_every_wing():
    page = PAGES["contributing"]
    headings = re.findall(r"^## (.+)$", page, flags=re.M)
    assert headings[-1] == "Code layout"
    layout = _section("Code layout", page)
    wings = {path.parent.name for path in (ROOT / "tracers").glob("*/__init__.py")}
    assert wings and {wing for wing in wings if f"`{wing}/`" not in layout} == set()
    assert "(docs/using/contributing.md)" in README


def test_what_it_costs_gives_time_and_disk_for_each_fresh_machine_command_and_the_start():
    rows = [line.split("|")[1:4] for line in _section("What it costs", INSTALL).splitlines() if line.startswith("| ")]
    steps = {step.strip(): (time.strip(), disk.strip()) for step, time, disk in rows[1:]}
    for session in ("docs", "tests"):  # the two fresh-machine commands, first runs
        first = [step for step in steps if step.startswith(f"`nox -s {session}`")]
        assert first and all(steps[step][0] and steps[step][1] for step in first), session
    assert any(step.startswith("the install line") for step in steps)
    assert all(re.search(r"\d+ (min|s)|instant", time) for time, _ in steps.values()), steps
    assert all(re.search(r"\d+(\.\d+)? (GB|MB)|—", disk) for _, disk in steps.values()), steps
    first_docs = next(steps[step] for step in steps if step.startswith("`nox -s docs`, first run"))
    assert first_docs[1].split(" in ")[0] in _section("On a fresh machine")  # the README's figure is the table's


def test_the_readme_names_the_one_venv_the_sessions_share():
    noxfile = (ROOT / "noxfile.py").read_text(encoding="utf-8")
    assert 'SHARED = ROOT / ".nox" / f"torch-{REFERENCE_TORCH}"' in noxfile
    assert f"`.nox/torch-{REFERENCE_TORCH}/`" in _section("On a fresh machine")
    fresh = _section("On a fresh machine", INSTALL)
    assert f"`.nox/torch-{REFERENCE_TORCH}/`" in fresh and "share one virtual environment per torch release" in fresh
    assert "`nox -s clean`" in _section("What it costs", INSTALL)
    # noxfile's install messages send a CPU-only machine to the README for the CPU index
    assert "PIP_EXTRA_INDEX_URL=https://download.pytorch.org/whl/cpu" in noxfile
    assert "`export PIP_EXTRA_INDEX_URL=https://download.pytorch.org/whl/cpu`" in _section("On a fresh machine")


def test_the_license_is_an_spdx_expression_not_setuptools_deprecated_table():
    """issue 55: ``license = {text = ...}`` made setuptools warn of its deprecation on every build; an SPDX string needs
    setuptools 77 (PEP 639), which the build asks for."""
    assert PYPROJECT["project"]["license"] == "BSD-3-Clause"
    assert "setuptools>=77" in PYPROJECT["build-system"]["requires"]
    assert not any(key.startswith("License ::") for key in PYPROJECT["project"].get("classifiers", ()))

"""Why an optional import failed: a package to install only where none is found (issue 52, item 7)."""

from __future__ import annotations

import sys
import types

import pytest

from tracers.vocabulary.imports import import_failure

pytestmark = pytest.mark.pure


def test_a_module_found_nowhere_is_a_package_to_install() -> None:
    error = ImportError("No module named 'no_such_page_kit'", name="no_such_page_kit")
    assert import_failure("the HTML page", error) == "the HTML page needs no_such_page_kit: pip install no_such_page_kit"


def test_pythons_own_module_shadowed_by_a_file_names_the_file_never_pip_install(monkeypatch, tmp_path) -> None:
    shadow = types.ModuleType("json")
    shadow.__file__ = str(tmp_path / "json.py")
    monkeypatch.setitem(sys.modules, "json", shadow)
    said = import_failure("the HTML page", ImportError("cannot import name 'dumps' from 'json'", name="json"))
    assert "pip install" not in said
    assert said.startswith(f"the HTML page cannot import Python's own json: {tmp_path / 'json.py'} stands in for it")


def test_an_installed_package_that_fails_says_which_file_failed() -> None:
    said = import_failure("the HTML page", ImportError("cannot import name 'nope' from 'pytest'", name="pytest"))
    assert said.startswith("the HTML page cannot import pytest from ") and "pip install" not in said

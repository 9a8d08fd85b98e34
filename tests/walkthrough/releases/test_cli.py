"""The release commands' bad input: one line and exit status 2, nothing built, nothing installed."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.walkthrough_fixtures import write_wheel
from walkthrough.__main__ import main

pytestmark = pytest.mark.pure


def test_build_with_a_bad_spec_is_one_line_and_exit_2(tmp_path, capsys):
    corrupt = tmp_path / "torch-9.0.0-py3-none-any.whl"
    corrupt.write_bytes(b"PK\x03\x04 not a zip")
    for spec, message in ((str(corrupt), "not a readable wheel"), (str(tmp_path / "gone.whl"), "no such file"),
                          ("two point oh", "not 'installed', a directory")):
        assert main(["build", "--torch", spec, "--out", str(tmp_path / "out")]) == 2
        err = capsys.readouterr().err.strip()
        assert err.startswith("walkthrough: error: ") and message in err and "\n" not in err
    assert not (tmp_path / "out").exists()


def test_build_all_refuses_a_release_that_is_not_supported(tmp_path, capsys):
    assert main(["build", "--all", "--releases", "2.13.0,1.9.0", "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert "not a supported release: 1.9.0" in err and "walkthrough/releases/catalog.py" in err


def test_open_with_a_release_outside_the_supported_ones_says_the_range_before_fetching(tmp_path, capsys, monkeypatch):
    """issue 55: `open --torch 2.99.0` ran pip before it said which releases are supported."""
    from walkthrough import source
    from walkthrough.releases.catalog import supported

    monkeypatch.setattr(source, "fetch_wheel", lambda *a, **k: pytest.fail("fetched a wheel for an unsupported release"))
    for command in ("open", "build"):
        assert main([command, "--torch", "2.99.0", "--out", str(tmp_path / "out")]) == 2
        err = capsys.readouterr().err.strip()
        assert f"torch 2.99.0: not a release the walkthrough is built for (supported: {', '.join(supported())})" in err and "\n" not in err
    assert not (tmp_path / "out").exists()


def test_record_with_a_release_outside_the_supported_ones_says_the_range_before_pip(tmp_path, capsys, monkeypatch):
    """issue 55: as open does, no release venv is made (pip never runs) for a release outside the supported ones;
    compare's own check says the same (tests/walkthrough/compare/test_compare.py)."""
    from walkthrough.releases import venvs
    from walkthrough.releases.catalog import supported

    monkeypatch.setenv("TORCH_WALKTHROUGH_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr(venvs, "runnable_wheel", lambda *a, **k: pytest.fail("a wheel fetched for it"))
    assert main(["record", "--torch", "2.99.0"]) == 2
    err = capsys.readouterr().err.strip()
    assert err == (f"walkthrough: error: torch 2.99.0: not a release the tracer and walkthrough are checked against "
                   f"(supported: {', '.join(supported())})")
    assert not (tmp_path / "cache").exists()


def test_build_without_a_docs_directory(tmp_path, capsys):
    wheel = write_wheel(tmp_path / "torch-9.0.0-py3-none-any.whl", "9.0.0")
    assert main(["build", "--torch", str(wheel), "--docs", str(tmp_path / "nodocs")]) == 2
    assert "nodocs: no docs directory" in capsys.readouterr().err


def test_record_with_a_release_that_is_not_a_version(tmp_path):
    result = subprocess.run([sys.executable, "-m", "walkthrough", "record", "--torch", "latest", "--lines"],
                            capture_output=True, text=True, cwd=tmp_path)
    assert result.returncode == 2
    assert result.stderr.strip() == "walkthrough: error: 'latest': not a torch version like 2.15.0"
    assert not (tmp_path / ".venvs").exists()


def test_build_into_a_file_or_with_releases_but_not_all(tmp_path, capsys):
    taken = tmp_path / "a-file"
    taken.write_text("")
    for args in (["--all", "--out", str(taken)], ["--torch", "installed", "--out", str(taken)]):
        assert main(["build", *args]) == 2
        assert capsys.readouterr().err.strip() == f"walkthrough: error: --out {taken}: a file, not a directory"
    with pytest.raises(SystemExit) as stop:
        main(["build", "--releases", "2.15.0"])
    assert stop.value.code == 2  # argparse's own usage error
    assert "--releases chooses among the releases --all builds" in capsys.readouterr().err

"""Reading a release is not installing it: a pip constraint that caps torch never stops the wheel's fetch.

Real pip, offline: a find-links folder holds a small torch wheel; the cap comes from $PIP_CONSTRAINT and
from a pip config file, as on machines whose global pip config caps torch."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tests.walkthrough_fixtures import write_wheel
from walkthrough import source
from walkthrough.releases.pip import unconstrained
from walkthrough.source import SourceError, open_source

pytestmark = pytest.mark.pure

VERSION = "9.9.9"


@pytest.fixture
def capped(tmp_path, monkeypatch):
    """pip configured as a user would be: own index settings (no index, a find-links dir) and a cap on torch."""
    for name in [n for n in os.environ if n.startswith("PIP_")]:
        monkeypatch.delenv(name)  # this machine's own pip settings stay out of the test
    links = tmp_path / "links"
    links.mkdir()
    write_wheel(links / f"torch-{VERSION}-py3-none-any.whl", VERSION)
    cap = tmp_path / "cap.txt"
    cap.write_text("torch<=2.14.1\n")
    config = tmp_path / "pip.conf"
    config.write_text(f"[global]\nno-index = true\nfind-links = {links}\nconstraint = {cap}\n")
    monkeypatch.setenv("PIP_CONFIG_FILE", str(config))
    monkeypatch.setenv("PIP_CONSTRAINT", str(cap))
    monkeypatch.setenv("PIP_DISABLE_PIP_VERSION_CHECK", "1")
    monkeypatch.setenv(source.CACHE_ENV, str(tmp_path / "cache"))
    monkeypatch.setattr(source, "PIP_COMMAND", [sys.executable, "-m", "pip"])
    return {"links": links, "cap": cap, "config": config, "tmp": tmp_path}


def test_plain_pip_is_stopped_by_the_cap(capped):
    """The situation being fixed: pip download itself refuses the release."""
    result = subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", f"torch=={VERSION}",
                             "-d", str(capped["tmp"] / "plain")], capture_output=True, text=True)
    assert result.returncode != 0 and "torch<=2.14.1" in result.stdout + result.stderr


def test_the_fetch_ignores_the_cap_and_keeps_the_index_settings(capped, capsys):
    tree = open_source(VERSION)
    assert tree.version == f"{VERSION}+cpu"
    assert (capped["tmp"] / "cache" / "wheels" / f"torch-{VERSION}-py3-none-any.whl").is_file()
    assert "fetching torch 9.9.9 with pip download ... done" in capsys.readouterr().err


def test_the_environment_keeps_settings_and_says_what_it_left_out(capped):
    env = unconstrained("download")
    assert env.env["PIP_CONFIG_FILE"] == os.devnull and "PIP_CONSTRAINT" not in env.env
    assert env.env["PIP_FIND_LINKS"] == str(capped["links"]) and env.env["PIP_NO_INDEX"] == "true"
    assert env.dropped == (f"{capped['cap']} (from $PIP_CONSTRAINT)",
                           f"{capped['cap']} (from global.constraint in {capped['config']})")


def test_when_pip_still_cannot_fetch_one_line_says_why_and_what_to_pass(capped):
    (capped["links"] / f"torch-{VERSION}-py3-none-any.whl").unlink()
    with pytest.raises(SourceError) as info:
        open_source(VERSION)
    message = str(info.value)
    assert "\n" not in message
    assert message.startswith(f"torch {VERSION}: pip download failed: Could not find a version that satisfies "
                              f"the requirement torch=={VERSION}")
    assert f"constraints left out, as reading is not installing: {capped['cap']} (from $PIP_CONSTRAINT)" in message
    assert message.endswith(f"pass a torch {VERSION} wheel file or a directory holding its torch/ instead")

"""Traces leave this machine's paths behind: prefixes become placeholders unless --keep-paths."""

from __future__ import annotations

import json
import os
import sys
import sysconfig
import tempfile
from pathlib import Path

from tracers.tracefile.scrub import scrub

from tests.conftest import SCRIPTS, run_python, run_trace
import pytest

pytestmark = pytest.mark.pure


def _as_json(value: object) -> str:
    return json.dumps(value)


def test_known_prefixes_become_placeholders():
    site_packages = sysconfig.get_paths()["purelib"]
    text = _as_json({
        "torch": f"{site_packages}/torch/_dynamo/guards.py",
        "script": f"{os.getcwd()}/docs/examples/mlp.py",
        "cache": f"{tempfile.gettempdir()}/tracers-cold-cache-x/ab/c.py",
        "python": sys.executable,
        "home": f"{Path.home()}/notes.txt",
        "elsewhere": "/opt/other/.venv/lib/python3.12/site-packages/torch/fx/graph.py",
        "code": "x = 1  # a/b/c.py is not a path prefix",
    })
    scrubbed = json.loads(scrub(text))
    assert scrubbed["torch"] == "<site-packages>/torch/_dynamo/guards.py"
    assert scrubbed["script"] == "./docs/examples/mlp.py"
    assert scrubbed["cache"] == "<tmp>/tracers-cold-cache-x/ab/c.py"
    assert scrubbed["python"].startswith("<python>/") or scrubbed["python"].startswith("<site-packages>")
    assert scrubbed["home"] == "~/notes.txt"
    assert scrubbed["elsewhere"] == "<site-packages>/torch/fx/graph.py"
    assert scrubbed["code"] == "x = 1  # a/b/c.py is not a path prefix"


def test_trace_files_hold_no_absolute_paths_of_this_machine_unless_asked(tmp_path):
    scrubbed = run_trace(SCRIPTS / "raises.py", tmp_path / "a", "--no-page")
    kept = run_trace(SCRIPTS / "raises.py", tmp_path / "b", "--no-page", "--keep-paths")
    here = json.dumps(str(Path(__file__).resolve().parents[3]))[1:-1]
    assert here not in scrubbed.trace_path.read_text()
    assert json.dumps(sys.prefix)[1:-1] not in scrubbed.trace_path.read_text()
    assert here in kept.trace_path.read_text() or json.dumps(sys.prefix)[1:-1] in kept.trace_path.read_text()
    assert scrubbed.trace().info.status == "error"  # still a valid trace


def test_help_documents_keep_paths():
    assert "--keep-paths" in run_python(["-m", "tracers", "trace", "--help"]).stdout


def test_other_machines_package_dirs_replaced_as_the_whole_text_regex_does():
    import random

    from tracers.tracefile.scrub import _ANY_PACKAGES_DIR, _other_packages_dirs

    pieces = ['"', " ", "\t", "\n", "\u2003", "\x85", "\\", "(", "'", "`", "/", ":", "a", "lib", "python3.12/",
              "site-packages/", "dist-packages/", "site-packages", "/opt/x/", "<site-packages>/", "é"]
    generator = random.Random(27)
    for _ in range(3000):
        text = "".join(generator.choice(pieces) for _ in range(generator.randrange(0, 40)))
        assert _other_packages_dirs(text) == _ANY_PACKAGES_DIR.sub("<site-packages>/", text), repr(text)
    # a stretch longer than one look back, and many package dirs far apart
    long = '"/' + "d/" * 5000 + 'site-packages/torch" ' + ' "/u/site-packages/a"' * 300 + " x" * 2000
    assert _other_packages_dirs(long) == _ANY_PACKAGES_DIR.sub("<site-packages>/", long)
    assert _other_packages_dirs("no package directory here") == "no package directory here"


def test_a_path_torch_quotes_in_backquotes_is_scrubbed():
    """torch's graph-break explanations quote files in backquotes: `/…/site-packages/torch/_dynamo/decorators.py`."""
    from tracers.tracefile.scrub import scrub

    text = json.dumps("the function `disable` in file `/opt/py/lib/python3.11/site-packages/torch/x.py` should not")
    assert json.loads(scrub(text)) == "the function `disable` in file `<site-packages>/torch/x.py` should not"


def test_packages_installed_outside_site_packages_are_packages_too(tmp_path, monkeypatch):
    # pip install --target DIR, with DIR on PYTHONPATH: a library's code, not the user's, though no
    # site-packages is in its path; a folder of the working directory stays the user's even so.
    vendored = tmp_path / "vendored"
    (vendored / "accelerate-1.0.dist-info").mkdir(parents=True)
    project = tmp_path / "project"
    (project / "libs" / "mine-0.1.dist-info").mkdir(parents=True)
    monkeypatch.chdir(project)
    monkeypatch.setattr(sys, "path", [*sys.path, str(vendored), str(project / "libs")])
    text = scrub(_as_json({"a": f"{vendored}/accelerate/accelerator.py", "b": f"{project}/libs/mine/m.py"}))
    assert json.loads(text) == {"a": "<site-packages>/accelerate/accelerator.py", "b": "./libs/mine/m.py"}

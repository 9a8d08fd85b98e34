"""Incremental builds: the lock check is reused only while its inputs hold; the pipeline map follows new chapters."""

from __future__ import annotations

import io

import pytest

pytest.importorskip("sphinx")
pytest.importorskip("myst_parser")

from sphinx.application import Sphinx  # noqa: E402
from sphinx.util.docutils import docutils_namespace  # noqa: E402

import walkthrough.sphinx.directives as directives  # noqa: E402
from tests.walkthrough.sphinx.test_extension import PAGE, make_project  # noqa: E402
from tests.walkthrough_fixtures import write_tree  # noqa: E402

pytestmark = pytest.mark.sphinx


def _build(src, fresh: bool = False) -> None:
    # In a docutils namespace, as sphinx-build runs: registered nodes and directives must not leak into
    # the Sphinx builds of later tests in this process.
    with docutils_namespace():
        app = Sphinx(str(src), str(src), str(src.parent / "html"), str(src.parent / "doctrees"), "html",
                     status=io.StringIO(), warning=io.StringIO(), freshenv=fresh)
        app.build()


def test_unchanged_inputs_skip_the_check_and_any_change_runs_it(tmp_path, monkeypatch):
    src = make_project(tmp_path, write_tree(tmp_path / "torch-tree"))
    _build(src, fresh=True)
    assert (tmp_path / "doctrees" / "walkthrough-lock-check").exists()

    calls = []
    real = directives.compute_lock
    monkeypatch.setattr(directives, "compute_lock", lambda *args: calls.append(1) or real(*args))
    (src / "index.md").touch()
    _build(src)
    assert calls == []  # same pages, same torch tree, same lock: the last check stands

    (src / "index.md").write_text(PAGE + "\nMore prose, same references.\n")
    _build(src)
    assert calls == []  # prose is not an input of the check

    (src / "index.md").write_text(PAGE + "\nAnd {torch-symbol}`torch._pipeline.driver:Cache.load`.\n")
    with pytest.raises(directives.WalkthroughError, match="Cache.load is not in the lock"):
        _build(src)  # a new reference is a new input
    assert calls == [1]

    (src / "index.md").write_text(PAGE)
    lock = src / "walkthrough.lock.json"
    lock.write_text(lock.read_text().replace('"start": ', '"start": 1', 1))
    with pytest.raises(directives.WalkthroughError, match="stale"):
        _build(src)  # so is an edited lock
    assert calls == [1, 1]

    (src / "walkthrough.lock.json").unlink()
    with pytest.raises(directives.WalkthroughError, match="no lock file"):
        _build(src)


def test_pipeline_map_links_a_chapter_once_it_is_written(tmp_path):
    from tracers.tracefile.stages import STAGES

    src = make_project(tmp_path, write_tree(tmp_path / "torch-tree"), page="# Home\n\n```{pipeline-map}\n```\n",
                       lock=False)
    conf = src / "conf.py"
    conf.write_text(conf.read_text().replace("'walkthrough']", "'walkthrough', 'walkthrough.sphinx.site']"))
    chapter = STAGES[0].chapter
    _build(src, fresh=True)
    index = (tmp_path / "html" / "index.html").read_text()
    assert f'href="{chapter}.html"' not in index and "chapter to come" in index

    (src / f"{chapter}.md").parent.mkdir(parents=True)
    (src / f"{chapter}.md").write_text("---\norphan: true\n---\n\n# Entry\n")
    _build(src)  # index.md itself did not change: the new page alone must bring it up to date
    assert f'href="{chapter}.html"' in (tmp_path / "html" / "index.html").read_text()

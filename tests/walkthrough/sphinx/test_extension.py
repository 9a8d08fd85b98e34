"""The Sphinx extension, built for real on a small MyST project: excerpts, roles, facts and the lock check."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

pytest.importorskip("sphinx")
pytest.importorskip("myst_parser")

from sphinx.application import Sphinx  # noqa: E402
from sphinx.util.docutils import docutils_namespace  # noqa: E402

from tests.walkthrough_fixtures import DRIVER, PIPELINE, edit, write_tree  # noqa: E402
from walkthrough.sphinx.directives import WalkthroughError  # noqa: E402
from walkthrough.lock import compute_lock, write_lock  # noqa: E402
from walkthrough.pages import scan_docs  # noqa: E402
from walkthrough.source import open_source  # noqa: E402
from walkthrough.symbols import resolver_for  # noqa: E402

pytestmark = pytest.mark.sphinx

M = "torch._pipeline.driver"
PAGE = f'''\
# Entry

The driver calls {{torch-symbol}}`{M}:helper` and keeps
{{torch-fact}}`torch._pipeline.config.recompile_cap == 8` compiles.

```{{torch-excerpt}} {M}:entry
:start: prepared =
:caption: How a frame is prepared

emphasize: helper(x)
if options => only <when> options are given
```
'''


def make_project(root: Path, tree: Path, page: str = PAGE, lock: bool = True) -> Path:
    src = root / "src"
    src.mkdir(parents=True)
    (src / "conf.py").write_text(
        "extensions = ['myst_parser', 'walkthrough']\n"
        f"walkthrough_torch = {str(tree)!r}\n"
        "walkthrough_stage_hooks = False\n"
        f"walkthrough_lock = {'walkthrough.lock.json' if lock else ''!r}\n"
    )
    (src / "index.md").write_text(page)
    if lock:
        write_lock(compute_lock(resolver_for(open_source(str(tree))), scan_docs(src), []),
                   src / "walkthrough.lock.json")
    return src


def build(src: Path) -> str:
    out = src.parent / "html"
    # docutils_namespace undoes the node and directive registrations the build makes, so a later
    # in-process build in the same test session does not find them already registered.
    with docutils_namespace():
        app = Sphinx(str(src), str(src), str(out), str(src.parent / "doctrees"), "html",
                     status=io.StringIO(), warning=io.StringIO(), freshenv=True)
        app.build()
    return (out / "index.html").read_text()


@pytest.fixture
def tree(tmp_path):
    return write_tree(tmp_path / "torch-tree")


def test_page_renders_excerpt_links_and_facts(tmp_path, tree):
    html = build(make_project(tmp_path, tree))
    start = DRIVER.splitlines().index("    prepared = [helper(x) for x in frame]") + 1
    end = DRIVER.splitlines().index("    return tuple(prepared)") + 1
    base = "https://github.com/pytorch/pytorch/blob/" + "a" * 40 + "/" + PIPELINE
    assert f'href="{base}#L{start}-L{end}"' in html  # header link at the exact commit, with line anchors
    assert f'href="{base}#L{start}">{start}</a>' in html  # the file's real line numbers
    assert "torch 1.0.0+cpu" in html and "How a frame is prepared" in html
    assert html.count("wt-emph") == 1
    assert "only &lt;when&gt; options are given" in html  # callout notes are escaped
    assert 'class="wt-callout" data-callout="1"' in html
    helper = DRIVER.splitlines().index("def helper(value):") + 1
    assert f'href="{base}#L{helper}-L{helper + 1}"' in html and "<code" in html  # the symbol role
    assert "walkthrough.css" in html
    assert '<span class="pre">8</span>' in html  # the fact shows its value


def test_stale_lock_fails_the_build(tmp_path, tree):
    src = make_project(tmp_path, tree)
    (src / "index.md").write_text(PAGE + f"\nAnd {{torch-symbol}}`{M}:Cache.load`.\n")
    with pytest.raises(WalkthroughError, match=rf"stale \(symbol {M}:Cache.load is not in the lock\)"):
        build(src)


def test_false_fact_fails_the_build(tmp_path, tree):
    src = make_project(tmp_path, tree, PAGE.replace("recompile_cap == 8", "recompile_cap == 3"), lock=False)
    with pytest.raises(WalkthroughError, match="fact torch._pipeline.config.recompile_cap == 3 is false: "
                                               "torch 1.0.0\\+cpu has 8"):
        build(src)


def test_excerpt_whose_anchor_is_gone_fails_the_build(tmp_path):
    tree = write_tree(tmp_path / "t", files={PIPELINE: edit(DRIVER, "    if options:\n        "
                                                                    "prepared.append(options)\n", "")})
    src = make_project(tmp_path, tree, lock=False)
    with pytest.raises(WalkthroughError, match=r"index:\d+: .*annotation pattern 'if options' not found"):
        build(src)


def test_page_against_the_installed_torch(tmp_path):
    import torch._dynamo.config as config

    page = (f"At most {{torch-fact}}`torch._dynamo.config.recompile_limit == {config.recompile_limit!r}` "
            "recompiles.\n\n```{torch-excerpt} torch._dynamo.convert_frame:ConvertFrameAssert.__call__\n"
            ":start: def __call__\n:end: ):\n```\n")
    src = make_project(tmp_path, Path("unused"), page, lock=False)
    (src / "conf.py").write_text((src / "conf.py").read_text().replace("'unused'", "'installed'"))
    html = build(src)
    assert "/torch/_dynamo/convert_frame.py#L" in html and "def</span>" in html

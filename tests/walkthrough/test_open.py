"""``open``: one rule for where the site is (a clone's build/html built for this torch, else the per-user cache),
the same for the console script and ``python -m``; no browser is a printed path, one line and exit 3."""

from __future__ import annotations

import pytest

from tracers.commands.browser import NO_BROWSER
from tracers.vocabulary.sites import user_sites
from walkthrough.__main__ import _parser, main
from walkthrough.releases import build

pytestmark = pytest.mark.pure


@pytest.fixture
def world(tmp_path, monkeypatch):
    """A clone with no build yet, an empty user cache, builds that only leave an index and a marker."""
    clone = tmp_path / "clone"
    (clone / "docs").mkdir(parents=True)
    (clone / "conf.py").write_text("")
    (clone / "docs" / "index.md").write_text("# home\n")
    monkeypatch.chdir(clone)
    monkeypatch.setenv("TORCH_WALKTHROUGH_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr(build, "site_sources", lambda: None)  # the package itself runs from no clone here
    built, opened = [], []

    def fake_build(planned, target, where):
        built.append(target)
        target.mkdir(parents=True, exist_ok=True)
        (target / "index.html").write_text("")
        build.marker(planned).write(target)
        return 0

    monkeypatch.setattr(build, "_build_release", fake_build)
    monkeypatch.setattr(build, "_checked_place", lambda docs: None)
    monkeypatch.setattr(build.webbrowser, "open", lambda url: opened.append(url) or True)
    return clone, built, opened


def nox_docs_build(clone, git: str):
    """What ``nox -s docs`` leaves: pages linking torch's source at its commit, and no marker."""
    site = clone / "build" / "html"
    (site / "chapters").mkdir(parents=True)
    (site / "index.html").write_text("<html></html>")
    (site / "chapters" / "dynamo.html").write_text(f'<a href="https://github.com/pytorch/pytorch/blob/{git}/x.py">')
    return site


def test_open_uses_the_clone_s_build_html_when_built_for_this_torch(world, capsys):
    clone, built, opened = world
    site = nox_docs_build(clone, build.plan("installed").git)
    assert main(["open"]) == 0
    assert built == [] and opened == [(site / "index.html").resolve().as_uri()]
    assert capsys.readouterr().out.strip() == f"opening {site.resolve() / 'index.html'}"


def test_open_builds_into_the_user_cache_when_the_clone_s_build_is_for_another_torch(world):
    clone, built, opened = world
    nox_docs_build(clone, "0" * 40)
    assert main(["open"]) == 0
    target = user_sites() / build.plan("installed").release
    assert built == [target] and opened == [(target / "index.html").resolve().as_uri()]
    assert main(["open"]) == 0 and len(built) == 1  # built once, then only opened


def test_open_with_no_browser_prints_the_path_a_line_and_exits_non_zero(world, monkeypatch, capsys):
    monkeypatch.setattr(build.webbrowser, "open", lambda url: False)
    assert main(["open"]) == NO_BROWSER != 0
    out, err = capsys.readouterr()
    assert out.strip().endswith("index.html")
    assert err.strip() == "no browser: printed the path instead (set $BROWSER to one to open it)"


def test_open_help_states_the_rule_above_its_options():
    text = _parser()._subparsers._group_actions[0].choices["open"].format_help()
    assert "see Where below" not in text and "see Where above" in text
    assert text.index("Where:") < text.index("--out OUT  ")
    assert "build/html" in text and "per-user cache" in text and "chapters read / all" in text


def test_a_mistyped_option_gets_a_suggestion(capsys):
    with pytest.raises(SystemExit) as exited:
        main(["verify", "--difs"])
    assert exited.value.code == 2
    assert capsys.readouterr().err.strip().endswith("unrecognized option --difs (did you mean --diffs?)")
    with pytest.raises(SystemExit):
        main(["open", "--torhc", "2.15.0"])
    assert capsys.readouterr().err.strip().endswith("(did you mean --torch?)")

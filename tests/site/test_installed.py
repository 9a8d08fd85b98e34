"""An installed package: the site's sources it carries, where it builds, ``open``, and its console commands."""

from __future__ import annotations

import tomllib
from importlib import import_module

import pytest

from tracers.vocabulary.sites import SiteMarker, user_sites
from walkthrough import bundle
from walkthrough.__main__ import main
from walkthrough.packaging import site_files
from walkthrough.releases import build

from tests.conftest import ROOT

pytestmark = pytest.mark.sphinx


def sources(root, *, pages=True):
    (root / "docs").mkdir(parents=True)
    (root / "conf.py").write_text("")
    if pages:
        (root / "docs" / "index.md").write_text("# home\n")
    return root


def test_a_checkout_comes_first_then_the_wheel_s_copy(tmp_path):
    checkout, bundled = sources(tmp_path / "clone"), sources(tmp_path / "site-packages" / "walkthrough" / "_site")
    assert bundle.site_sources(checkout, bundled) == bundle.SiteSources(checkout, checkout / "docs", True)
    assert bundle.site_sources(tmp_path / "nothing", bundled) == bundle.SiteSources(bundled, bundled / "docs", False)
    assert bundle.site_sources(tmp_path / "nothing", sources(tmp_path / "half", pages=False)) is None
    assert bundle.site_sources().checkout  # these tests run from the checkout


def test_the_wheel_carries_conf_and_every_page_example_and_recording():
    files = set(site_files(ROOT))
    assert "conf.py" in files and "docs/index.md" in files and "docs/walkthrough.lock.json" in files
    for folder in ("chapters", "examples", "_traces", "_measure", "_toolbox", "_outputs", "_static", "verify"):
        assert any(f.startswith(f"docs/{folder}/") for f in files), folder
    tracked = {p.relative_to(ROOT).as_posix() for p in (ROOT / "docs").rglob("*.md")}
    assert tracked <= files
    assert not any("__pycache__" in f or f.endswith(".pyc") or "/." in f for f in files)


def test_a_checkout_builds_into_build_an_install_into_the_user_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("TORCH_WALKTHROUGH_CACHE", str(tmp_path / "cache"))
    here = build.place(None)
    assert (here.conf, here.docs, here.root) == (ROOT, build.Path("docs"), build.Path("build") / "releases")
    installed = sources(tmp_path / "site-packages" / "walkthrough" / "_site")
    monkeypatch.setattr(build, "site_sources", lambda: bundle.SiteSources(installed, installed / "docs", False))
    there = build.place(None)
    assert (there.conf, there.docs, there.root) == (installed, installed / "docs", tmp_path / "cache" / "site")
    assert build.place(tmp_path / "mine").docs == tmp_path / "mine"
    monkeypatch.setattr(build, "site_sources", lambda: None)
    with pytest.raises(build.SourceError, match="carries no site sources"):
        build.place(None)


def test_building_without_sphinx_is_one_line_and_exit_2(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(build, "SITE_MODULES", ("sphinx", "no_such_module_for_the_site"))
    for command in ("build", "open"):
        assert main([command, "--out", str(tmp_path / "out")]) == 2
        err = capsys.readouterr().err.strip()
        assert err == ("walkthrough: error: building the walkthrough needs no_such_module_for_the_site: "
                       "pip install 'torch-compile-walkthrough[docs]'")
    assert not (tmp_path / "out").exists()


@pytest.fixture
def fake_builds(monkeypatch):
    """Builds that only leave what a real one leaves (index and marker), and a browser that only records."""
    built, opened = [], []

    def fake_build(planned, target, where):
        built.append(target)
        (target / "index.html").parent.mkdir(parents=True, exist_ok=True)
        (target / "index.html").write_text("")
        build.marker(planned).write(target)
        return 0

    monkeypatch.setattr(build, "_build_release", fake_build)
    monkeypatch.setattr(build.webbrowser, "open", lambda url: opened.append(url) or True)
    return built, opened


def test_open_builds_first_when_needed_then_only_opens(tmp_path, monkeypatch, fake_builds, capsys):
    built, opened = fake_builds
    monkeypatch.setenv("TORCH_WALKTHROUGH_CACHE", str(tmp_path / "cache"))
    installed = build.plan("installed")
    out = tmp_path / "site"
    assert main(["open", "--out", str(out)]) == 0
    assert built == [out] and opened == [(out / "index.html").resolve().as_uri()]
    assert capsys.readouterr().out.strip() == f"opening {out / 'index.html'}"
    assert main(["open", "--out", str(out)]) == 0
    assert len(built) == 1 and len(opened) == 2  # fresh: opened, not rebuilt
    SiteMarker(installed.release, installed.version, installed.git, "0.0.1").write(out)  # built by another version
    assert main(["open", "--out", str(out)]) == 0
    assert len(built) == 2


def test_open_with_no_out_uses_the_same_place_as_build(tmp_path, monkeypatch, fake_builds):
    built, opened = fake_builds
    monkeypatch.chdir(tmp_path)  # away from a checkout whose build/html open would take first
    monkeypatch.setenv("TORCH_WALKTHROUGH_CACHE", str(tmp_path / "cache"))
    installed = sources(tmp_path / "site-packages" / "walkthrough" / "_site")
    monkeypatch.setattr(build, "site_sources", lambda: bundle.SiteSources(installed, installed / "docs", False))
    monkeypatch.setattr(build, "require_site_modules", lambda: None)
    assert main(["open"]) == 0
    release = build.plan("installed").release
    assert built == [user_sites() / release] and opened == [(user_sites() / release / "index.html").as_uri()]


def test_open_with_a_bad_spec_is_one_line_and_exit_2(tmp_path, fake_builds, capsys):
    assert main(["open", "--torch", "two point oh", "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("walkthrough: error: ") and "\n" not in err
    assert fake_builds == ([], [])


def test_open_all_builds_the_whole_site_once(tmp_path, monkeypatch, capsys):
    calls, opened = [], []
    monkeypatch.setattr(build.webbrowser, "open", opened.append)  # returns None: as if no browser were found
    monkeypatch.setattr(build, "plan_all", lambda chosen: calls.append(chosen) or [])

    def fake_all(planned, root, where):
        root.mkdir(parents=True, exist_ok=True)
        (root / "index.html").write_text("")
        return 0

    monkeypatch.setattr(build, "_build_all", fake_all)
    for _ in range(2):  # no browser here: the path is printed, a line says so, and the exit says it too
        assert main(["open", "--all", "--releases", "2.13.0", "--out", str(tmp_path / "all")]) == 3
    assert calls == [("2.13.0",)] and len(opened) == 2
    assert "no browser: printed the path instead" in capsys.readouterr().err


def test_console_commands_name_what_they_do_and_reach_the_command_lines():
    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]
    assert set(scripts) == {"torch-compile-trace", "torch-compile-walkthrough"}
    for target in scripts.values():
        module, function = target.split(":")
        assert callable(getattr(import_module(module), function))


def test_verify_reads_the_lock_the_install_carries(tmp_path, monkeypatch):
    from walkthrough.__main__ import DEFAULT_LOCK, _default_lock

    assert _default_lock() == DEFAULT_LOCK  # a checkout: its docs/walkthrough.lock.json, as always
    installed = sources(tmp_path / "site-packages" / "walkthrough" / "_site")
    monkeypatch.setattr(bundle, "site_sources", lambda: bundle.SiteSources(installed, installed / "docs", False))
    assert _default_lock() == installed / "docs" / "walkthrough.lock.json"

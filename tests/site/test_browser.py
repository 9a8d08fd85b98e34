"""A real headless Chromium loads every page of the built site: no console errors, no broken links or images.

Driven with Playwright's Python package against the system's Chromium (Debian's ``chromium``); Playwright's
own browser downloads are never used. The test installs chromium with apt-get when it can (root on Debian).
"""

from __future__ import annotations

import contextlib
import functools
import os
import shutil
import subprocess
import sys
import threading
import urllib.error
import urllib.request
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import urldefrag, urljoin, urlparse

import pytest

sync_api = pytest.importorskip("playwright.sync_api", reason="the browser test needs the test extra (playwright)")

from tests.sitebuild import ReleaseSite, SiteBuild, build_site, built_release_site_or_skip  # noqa: E402

pytestmark = pytest.mark.browser

CHROMIUM_PATHS = ("chromium", "chromium-browser", "/usr/bin/chromium", "/usr/lib/chromium/chromium")
# Flags that keep a headless Chromium from reaching out to the network (it would hang on lookups offline).
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage"]
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def find_or_install_chromium() -> str:
    for name in CHROMIUM_PATHS:
        found = shutil.which(name)
        if found:
            return found
    if os.environ.get("CHROMIUM"):
        return os.environ["CHROMIUM"]
    if shutil.which("apt-get") is None or os.geteuid() != 0:
        pytest.skip("no chromium here and no way to install it: run `apt-get install -y chromium` as root "
                    "(or set CHROMIUM to a Chromium binary)")
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    install = ["apt-get", "install", "-y", "--no-install-recommends", "chromium"]
    if subprocess.run(install, env=env, capture_output=True).returncode != 0:
        subprocess.run(["apt-get", "update"], env=env, capture_output=True)
        result = subprocess.run(install, env=env, capture_output=True, text=True)
        assert result.returncode == 0, f"apt-get install chromium failed:\n{result.stdout[-2000:]}{result.stderr[-2000:]}"
    found = shutil.which("chromium")
    assert found, "apt-get installed chromium, but no chromium binary is on PATH"
    return found


class _QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - the stdlib's signature
        pass


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> SiteBuild:
    build = build_site(tmp_path_factory.mktemp("site"))
    assert build.returncode == 0, build.stderr
    return build


@contextlib.contextmanager
def _serving(directory: Path):
    """A local HTTP server on a free port for one built site; its base URL."""
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_QuietHandler, directory=str(directory)))
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_port}/"
    finally:
        httpd.shutdown()
        thread.join()


@pytest.fixture(scope="module")
def server(site):
    with _serving(site.html) as url:
        yield url


@pytest.fixture(scope="module")
def browser():
    executable = find_or_install_chromium()
    with sync_api.sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS, headless=True)
        yield chromium
        chromium.close()


def _status(url: str) -> int:
    try:
        with urllib.request.urlopen(urllib.request.Request(url, method="HEAD"), timeout=10) as response:
            return response.status
    except urllib.error.HTTPError as exc:
        return exc.code


def crawl(root, server: str, browser, skip: frozenset[str] = frozenset()) -> tuple[list[str], dict[str, set[str]], list[str]]:
    """Load every page under ``root`` (but ``skip``) from ``server``: (pages, same-site links -> pages linking them, problems)."""
    pages = sorted(name for path in root.rglob("*.html") if (name := path.relative_to(root).as_posix()) not in skip)
    page = browser.new_page()
    problems: list[str] = []
    current = {"url": ""}
    page.on("console", lambda msg: msg.type == "error" and problems.append(f"{current['url']}: console: {msg.text}"))
    page.on("pageerror", lambda exc: problems.append(f"{current['url']}: JS error: {exc}"))
    # ERR_ABORTED is a load the next navigation cancelled (the favicon, fetched after "load"), not a failure;
    # a missing file shows up as an HTTP status below.
    page.on("requestfailed", lambda req: req.failure != "net::ERR_ABORTED" and problems.append(
        f"{current['url']}: failed to load {req.url}: {req.failure}"))
    page.on("response", lambda resp: resp.status >= 400 and problems.append(
        f"{current['url']}: HTTP {resp.status} for {resp.url}"))
    links: dict[str, set[str]] = {}  # target URL (with fragment) -> pages linking it
    ids: dict[str, set[str]] = {}  # page URL -> element ids, for #fragment links
    for name in pages:
        url = urljoin(server, name)
        current["url"] = name
        page.goto(url, wait_until="load", timeout=20_000)
        found = page.evaluate("""() => ({
            links: [...document.querySelectorAll('a[href]')].map(a => a.href),
            ids: [...document.querySelectorAll('[id]')].map(e => e.id),
            broken: [...document.images].filter(i => !i.complete || i.naturalWidth === 0).map(i => i.src),
        })""")
        ids[url] = set(found["ids"])
        problems += [f"{name}: broken image {src}" for src in found["broken"]]
        for href in found["links"]:
            if urlparse(href).netloc == urlparse(server).netloc:
                links.setdefault(href, set()).add(name)
    page.close()
    for href, sources in sorted(links.items()):
        target, fragment = urldefrag(href)
        where = ", ".join(sorted(sources)[:3])
        if target in ids:
            if fragment and fragment not in ids[target]:
                problems.append(f"{where}: link to a missing anchor {href}")
        elif _status(target) != 200:
            problems.append(f"{where}: broken link {href}")
    return pages, links, problems


def test_every_page_loads_cleanly_with_working_links_and_images(site, server, browser):
    pages, links, problems = crawl(site.html, server, browser)
    assert "index.html" in pages and len(pages) >= 3
    assert not problems, "\n".join(problems)
    assert len(links) > len(pages)  # the crawl really followed the site's navigation


def test_call_tree_opens_on_click_and_a_chapter_screenshot(site, server, browser, tmp_path):
    chapters = sorted(site.html.glob("chapters/*.html"))
    with_trace = [path for path in sorted(site.html.rglob("*.html"))
                  if 'class="wt-node"' in path.read_text(encoding="utf-8")]
    if not with_trace:
        pytest.skip("no page of the site has a recorded trace yet (walkthrough.sphinx.traces is not in conf.py)")
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.goto(urljoin(server, with_trace[0].relative_to(site.html).as_posix()), wait_until="load")
    # The tree starts folded under one line (issue 56): nothing of it shows until that line is clicked.
    fold = page.locator("details.wt-tree-fold").locator("visible=true").first
    assert fold.evaluate("d => d.open") is False
    assert page.locator("details.wt-node").locator("visible=true").count() == 0
    fold.locator(":scope > summary").click()
    assert fold.evaluate("d => d.open") is True
    # A handle, not a locator: a locator for "closed details" would find the next one after the click.
    summary = page.locator("details.wt-node:not([open]):has(> .wt-children > *) > summary").locator("visible=true").first.element_handle()
    details = summary.evaluate_handle("s => s.parentElement").as_element()
    children = details.query_selector(":scope > .wt-children")
    assert details.evaluate("d => d.open") is False and not children.is_visible()
    # Click the summary where it is not one of its links (stage titles link to their chapters).
    summary.scroll_into_view_if_needed()
    point = summary.evaluate("""s => {
        const box = s.getBoundingClientRect(), y = box.top + box.height / 2;
        for (let x = box.left + 1; x < box.right; x += 3) {
            const hit = document.elementFromPoint(x, y);
            if (hit && s.contains(hit) && !hit.closest('a')) return {x, y};
        }
        return null;
    }""")
    assert point, "the summary of a closed node has no clickable spot outside its links"
    page.mouse.click(point["x"], point["y"])
    assert details.evaluate("d => d.open") is True and children.is_visible()

    shown = chapters[0] if chapters else with_trace[0]
    page.goto(urljoin(server, shown.relative_to(site.html).as_posix()), wait_until="load")
    shot = tmp_path / f"{shown.stem}.png"
    page.screenshot(path=str(shot), full_page=True)
    page.close()
    data = shot.read_bytes()
    assert data.startswith(PNG_SIGNATURE) and len(data) > 20_000, f"{shot}: {len(data)} bytes"
    width, height = int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
    assert width == 1280 and height >= 900


@pytest.fixture(scope="module")
def release_site(tmp_path_factory) -> ReleaseSite:
    return built_release_site_or_skip(tmp_path_factory.mktemp("releases"))


@pytest.fixture(scope="module")
def release_server(release_site):
    with _serving(release_site.root) as url:
        yield url


def test_release_pages_and_the_switcher(release_site, release_server, browser):
    """Every page of both releases loads cleanly, links resolve across releases, and the switcher moves between them."""
    # The root page redirects at once (it is checked below): a crawl would lose it mid-read.
    pages, links, problems = crawl(release_site.root, release_server, browser, skip=frozenset({"index.html"}))
    assert not problems, "\n".join(problems)
    other, reference = release_site.other, release_site.reference
    assert f"{other}/chapters/01-entry.html" in pages and f"{reference}/changes.html" in pages
    assert urljoin(release_server, f"{reference}/chapters/01-entry.html") in links  # the switcher's link was followed
    page = browser.new_page()
    errors: list[str] = []
    page.on("console", lambda msg: msg.type == "error" and errors.append(msg.text))
    page.goto(urljoin(release_server, "index.html"), wait_until="load")
    page.wait_for_url(f"**/{reference}/index.html")  # the root opens the reference
    page.goto(urljoin(release_server, f"{other}/chapters/01-entry.html"), wait_until="load")
    assert page.locator("div.wt-drift").count() > 0 and page.locator("sup.wt-drift-mark").count() > 0
    diff = page.locator("details.wt-drift-diff").first
    diff.locator("summary").click()
    assert diff.evaluate("d => d.open") and diff.locator("pre").is_visible()  # the diff is one click away
    page.locator(".wt-switcher a.wt-switch", has_text=reference).click()
    page.wait_for_url(f"**/{reference}/chapters/01-entry.html")
    assert page.locator(".wt-switcher .wt-switch-current").inner_text() == f"{reference} (reference)"
    assert page.locator("div.wt-drift").count() == 0 and page.locator("sup.wt-drift-mark").count() == 0
    page.close()
    assert not errors, errors


def test_a_personal_page_opens_with_findings_and_its_timeline_zooms(browser, tmp_path):
    """The page `trace` writes, from disk: findings first, and the zoom script works without any request."""
    from tracers.report.save import write_report
    from tracers.tracefile.chrome import load

    recorded = Path(__file__).resolve().parents[2] / "docs" / "_traces" / "cpu" / "2.13.0" / "graph_breaks-cpu-cold.json"
    trace_file = tmp_path / recorded.name
    trace_file.write_bytes(recorded.read_bytes())
    # No chapter links (a site built in this checkout would get them, and a double click could follow one).
    page_path = write_report(load(trace_file), trace_file, site=str(tmp_path / "no-site"))
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    errors, requests = [], []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.on("request", lambda request: requests.append(request.url))
    page.goto(page_path.resolve().as_uri(), wait_until="load")
    first = page.locator(".wt-trace-part").first
    assert first.get_attribute("data-part") == "findings" and first.is_visible()
    assert "graph breaks: Failed to trace builtin operator" in first.inner_text()
    svg = page.locator(".wt-trace-timeline svg.wt-trace-svg").first
    width = lambda: svg.evaluate("s => s.viewBox.baseVal.width")  # noqa: E731
    full = width()
    svg.hover()
    page.mouse.wheel(0, -300)  # zoom in around the pointer
    assert width() < full
    assert page.locator(".wt-trace-axis span").first.inner_text() != "0"  # the axis follows the visible range
    svg.dblclick()
    assert width() == full
    assert not errors and all(url.startswith("file:") for url in requests), (errors, requests)
    page.close()


# The recorded traces whose pages hold the widest tables: kernels by line, compiles with long frames, many ranks,
# the --vs-eager/--profile tables, failed guards and recompiles.
_WIDE_PAGES = ["by_code-cpu-cold", "ddp_python_reducer-cpu-cold-ranks", "speed-cpu-cold", "guards_recompile-cpu-cold",
               "rank_divergent-cpu-cold-ranks", "compiled_autograd-cpu-cold"]


@pytest.mark.parametrize("name", _WIDE_PAGES)
def test_a_personal_page_s_tables_fit_at_1400_px(browser, tmp_path, name):
    """The page `trace` writes, at 1,400 px with every fold open: no table reaches past the window (long cells wrap
    or fold) and the page never scrolls sideways."""
    recorded = Path(__file__).resolve().parents[2] / "docs" / "_traces" / "cpu" / "2.13.0" / f"{name}.json"
    # The report command, as a user runs it (a merged ranks file too); no site, so no chapter links.
    subprocess.run([sys.executable, "-m", "tracers", "report", str(recorded), "--out", str(tmp_path),
                    "--site", str(tmp_path / "no-site")], check=True, capture_output=True)
    page_path = tmp_path / f"{name}.html"
    page = browser.new_page(viewport={"width": 1400, "height": 900})
    page.goto(page_path.resolve().as_uri(), wait_until="load")
    found = page.evaluate("""() => {
        document.querySelectorAll('details').forEach(d => { d.open = true; });
        const edge = window.innerWidth;
        const tables = [...document.querySelectorAll('table')].filter(t => t.getClientRects().length);
        return {count: tables.length,
                wide: tables.filter(t => t.getBoundingClientRect().right > edge + 1)
                    .map(t => `${t.className || t.parentElement.className}: right ${Math.round(t.getBoundingClientRect().right)} > ${edge}`),
                page: document.documentElement.scrollWidth - window.innerWidth};
    }""")
    page.close()
    assert found["count"] > 0
    assert not found["wide"], "\n".join(found["wide"])
    assert found["page"] <= 0, f"the page scrolls sideways by {found['page']} px"


@pytest.mark.parametrize("chapter", ["04-guards", "05-graph-breaks", "06-dynamic-shapes", "10-scheduling", "14-caches"])
def test_chapter_tables_fit_the_text_column_at_1400_px(site, server, browser, chapter):
    """A table on a chapter page (the compile counts, "Your lines behind each kernel") stays inside the
    article column: it scrolls sideways in it rather than spilling under the contents or squeezing its code."""
    path = site.html / "chapters" / f"{chapter}.html"
    if not path.exists():
        pytest.skip(f"{path.name} is not in this build")
    page = browser.new_page(viewport={"width": 1400, "height": 900})
    page.goto(urljoin(server, path.relative_to(site.html).as_posix()), wait_until="load")
    found = page.evaluate("""() => {
        const article = document.querySelector('.bd-article, article[role="main"]') || document.body;
        const edge = article.getBoundingClientRect().right;
        return {count: article.querySelectorAll('table').length,
                wide: [...article.querySelectorAll('table')]
                    .filter(t => t.getBoundingClientRect().right > edge + 1)
                    .map(t => `${t.className}: right ${Math.round(t.getBoundingClientRect().right)} > ${Math.round(edge)}`),
                page: document.documentElement.scrollWidth - window.innerWidth};
    }""")
    page.close()
    assert found["count"] > 0
    assert not found["wide"], "\n".join(found["wide"])
    assert found["page"] <= 0  # nothing makes the whole page scroll sideways


@pytest.mark.parametrize(("chapter", "selector", "text"), [
    ("14-caches", "article table", "Mega-Cache"),  # the caches a second process consults
    ("17-measuring", ".wt-formula pre", "break-even calls"),
])
def test_a_chapter_s_wide_table_and_formula_fit_at_1280_px(site, server, browser, chapter, selector, text):
    """Issue 56: at 1,280 px chapter 14's table of caches showed its last column only after scrolling sideways at its
    foot, and chapter 17's formula ran past its box. Both fit their column now: nothing inside them is hidden."""
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.goto(urljoin(server, f"chapters/{chapter}.html"), wait_until="load")
    found = page.evaluate("""([selector, text]) => {
        const article = document.querySelector('article[role="main"]') || document.body;
        const el = [...article.querySelectorAll(selector)].find(e => e.innerText.includes(text));
        if (!el) return null;
        return {hidden: el.scrollWidth - el.clientWidth, right: el.getBoundingClientRect().right,
                edge: article.getBoundingClientRect().right};
    }""", [selector, text])
    page.close()
    assert found, f"no {selector} holding {text!r} on {chapter}"
    assert found["hidden"] <= 0, f"{chapter}: {found['hidden']} px of {selector} hidden to the right"
    assert found["right"] <= found["edge"] + 1


def test_the_front_page_s_symptoms_land_in_the_chapters_boxes(site, server, browser):
    """Each link of "Start from what you see" opens its chapter at a bullet of that chapter's "What to do about it"
    box, scrolled into view."""
    page = browser.new_page(viewport={"width": 1400, "height": 900})
    page.goto(urljoin(server, "index.html"), wait_until="load")
    hrefs = page.evaluate("""() => {
        const start = document.getElementById('by-symptom');
        const list = start && start.querySelector('ul');
        return list ? [...list.querySelectorAll('a.reference.internal')].map(a => a.href) : [];
    }""")
    assert len(hrefs) >= 25
    problems = []
    for href in hrefs:
        page.goto(href, wait_until="load")
        landed = page.evaluate("""() => {
            const el = document.getElementById(decodeURIComponent(location.hash.slice(1)));
            if (!el) return 'missing';
            const box = el.closest('.admonition');
            if (!box || !box.querySelector('.admonition-title').innerText.includes('What to do about it')) return 'not in a box';
            const r = el.getBoundingClientRect();
            return r.top >= 0 && r.top < innerHeight ? 'ok' : `out of view (top ${Math.round(r.top)})`;
        }""")
        if landed != "ok":
            problems.append(f"{href}: {landed}")
    page.close()
    assert not problems, "\n".join(problems)


def test_the_front_page_s_stage_map_names_each_box_by_its_chapter(site, server, browser):
    """Issue 56: the stage map numbered its boxes 1-20, which read as chapter numbers. Each box shows "ch. N" beside
    its title, not over it, and its link opens chapter N, whose title starts with "N."."""
    page = browser.new_page(viewport={"width": 1400, "height": 900})
    page.goto(urljoin(server, "index.html"), wait_until="load")
    boxes = page.evaluate("""() => [...document.querySelectorAll('.wt-pipeline .wt-stage')].map(box => {
        const label = box.querySelector('.wt-stage-chapter'), title = box.querySelector('.wt-stage-title');
        const a = label.getBoundingClientRect(), link = title.querySelector('a');
        // the title wraps as inline text: each of its line boxes must stay clear of the label
        const overlap = [...title.getClientRects()].some(b =>
            !(a.right <= b.left + 0.5 || b.right <= a.left + 0.5 || a.bottom <= b.top + 0.5 || b.bottom <= a.top + 0.5));
        return {label: label.innerText.trim(), visible: a.width > 0 && a.height > 0 && getComputedStyle(label).visibility !== 'hidden',
                overlap,
                href: link && link.href, title: title.innerText.trim()};
    })""")
    assert len(boxes) >= 19
    problems = []
    for box in boxes:
        number = box["label"].removeprefix("ch. ")
        if not box["visible"] or box["overlap"] or not number.isdigit():
            problems.append(f"{box['title']}: label {box['label']!r} visible={box['visible']} overlap={box['overlap']}")
            continue
        page.goto(box["href"], wait_until="load")
        heading = page.locator("article h1").first.inner_text().strip()
        if not heading.startswith(f"{number}. "):
            problems.append(f"{box['title']}: {box['label']} opens {heading!r}")
    page.close()
    assert not problems, "\n".join(problems)


def test_each_cpu_cuda_tab_set_switches_its_own_panel(site, server, browser):
    """Issue 56: every CPU/CUDA tab set repeated id="cpu"/"cuda", so a label could switch another set's panel. On a
    page with several sets, the live page holds no id twice, and a set's CUDA label shows that set's CUDA panel."""
    page = browser.new_page(viewport={"width": 1400, "height": 900})
    page.goto(urljoin(server, "chapters/17-measuring.html"), wait_until="load")
    found = page.evaluate("""() => {
        const ids = [...document.querySelectorAll('[id]')].map(el => el.id);
        const repeated = [...new Set(ids.filter((id, i) => ids.indexOf(id) !== i))];
        const sets = [...document.querySelectorAll('.sd-tab-set')].filter(set =>
            [...set.querySelectorAll(':scope > label')].some(l => l.innerText.trim() === 'CUDA'));
        return {repeated, sets: sets.length};
    }""")
    assert not found["repeated"], found["repeated"][:10]
    assert found["sets"] >= 2
    for index in (found["sets"] - 1, 0):  # the last set first: a duplicate id would switch the first set instead
        tab_set = page.locator(".sd-tab-set", has=page.locator(":scope > label", has_text="CUDA")).nth(index)
        label = tab_set.locator(":scope > label", has_text="CUDA")
        label.scroll_into_view_if_needed()
        label.click()
        panel = label.get_attribute("for")
        assert tab_set.locator(f"#{panel}").is_checked()
        assert tab_set.locator(":scope > .sd-tab-content").nth(1).is_visible()
    page.close()


# A colour a newcomer reads as an error: strongly red, and not nearly transparent.
_RED = r"""c => { const m = c.match(/rgba?\((\d+), (\d+), (\d+)(?:, ([\d.]+))?\)/);
                  return !!m && (m[4] === undefined || +m[4] > 0.3) && +m[1] >= 150 && +m[2] <= 110 && +m[3] <= 110; }"""


def test_the_front_page_s_first_screen_says_where_to_start(site, server, browser):
    """At 1,400 x 900 the three ways in (first chapter, tracing your program, other releases) show without
    scrolling and each card takes you there; nothing on that screen is red; the sidebar groups the verify pages."""
    page = browser.new_page(viewport={"width": 1400, "height": 900})
    page.goto(urljoin(server, "index.html"), wait_until="load")
    found = page.evaluate("""() => {
        const red = RED;
        const cards = [...document.querySelectorAll('.wt-start .sd-card')].map(card => {
            const box = card.getBoundingClientRect(), link = card.querySelector('a.sd-stretched-link');
            return {title: card.querySelector('.sd-card-title').innerText.trim(), href: link && link.href,
                    top: box.top, bottom: box.bottom, left: box.left, right: box.right};
        });
        const reds = [];
        for (const el of document.querySelectorAll('body *')) {
            const box = el.getBoundingClientRect(), style = getComputedStyle(el);
            if (!box.width || !box.height || box.top >= innerHeight || box.bottom <= 0 || style.visibility === 'hidden') continue;
            const edges = ['Top', 'Right', 'Bottom', 'Left'].filter(
                side => parseFloat(style[`border${side}Width`]) >= 2 && red(style[`border${side}Color`]));
            if (edges.length || red(style.backgroundColor) || red(style.color))
                reds.push(`${el.tagName.toLowerCase()}.${el.className}: ${(el.innerText || '').slice(0, 60)}`);
        }
        const top = [...document.querySelectorAll('.sidebar-tree li.toctree-l1 > a')].map(a => a.innerText.trim());
        return {cards, reds, top, width: innerWidth, height: innerHeight};
    }""".replace("RED", _RED))
    assert [card["title"] for card in found["cards"]] == ["Start reading", "Trace your own program", "Other torch releases"]
    for card in found["cards"]:
        assert 0 <= card["top"] and card["bottom"] <= found["height"] and card["right"] <= found["width"], card
    assert not found["reds"], "\n".join(found["reds"])
    assert "Other torch releases" in found["top"] and not any(t.startswith("Walkthrough verify") for t in found["top"])
    for card, landing in zip(found["cards"], ("chapters/01-entry.html", "index.html#trace-your-own-program",
                                              "verify/index.html")):
        assert card["href"] == urljoin(server, landing)
        page.goto(urljoin(server, "index.html"), wait_until="load")
        page.locator(".wt-start .sd-card", has_text=card["title"]).click()  # anywhere on the card
        page.wait_for_url(urljoin(server, landing))
    assert page.locator("#trace-your-own-program").is_visible() or page.url.endswith("verify/index.html")
    page.close()

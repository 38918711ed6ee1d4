"""The built report in a real headless Chromium (Debian's, driven by its own chromedriver via selenium).

Needs scripts/setup-browser.sh to have run; installs nothing itself. Serves the site from a local HTTP
server on 127.0.0.1 as GitHub Pages would, checks that every chart has drawn marks with a real size,
that the console has no error, and saves full-page screenshots under build/.
"""

import contextlib
import functools
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
import synthetic
from kcliff.report.site import build_site
from kcliff.results import history

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]
# under .kcliff/ (make clean removes it): a build/ here would shadow the PyPA build package `python -m build` runs
SCREENSHOT = ROOT / ".kcliff" / "screenshots" / "report-screenshot.png"
STUDY = ROOT / "benchmarks" / "data" / "study-repro-local-2c.json"
CHROMIUM, CHROMEDRIVER = "/usr/bin/chromium", "/usr/bin/chromedriver"
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--window-size=1280,900")


class QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@contextlib.contextmanager
def _serve(site: Path):
    """The site over HTTP on 127.0.0.1, as GitHub Pages would serve it."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(QuietHandler, directory=str(site)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture(scope="module")
def served_site(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("browser")
    for f in synthetic.history_files(tmp / "results", 12, step_at=8, step={"pairwise-05": 0.6}):
        history.add(f, tmp / "hist")
    with _serve(build_site(tmp / "hist", tmp / "site").parent) as url:
        yield url


@pytest.fixture(scope="module")
def study_site(tmp_path_factory):
    """The committed reproduction run (benchmarks/bench_study.py), with its confirmation."""
    tmp = tmp_path_factory.mktemp("study")
    with _serve(build_site(None, tmp / "site", results=STUDY).parent) as url:
        yield url


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    for tool in (CHROMIUM, CHROMEDRIVER):
        if not Path(tool).exists():
            pytest.fail(f"{tool} is missing: run scripts/setup-browser.sh (make test does)")
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in FLAGS:
        options.add_argument(flag)
    options.add_argument(f"--user-data-dir={tmp_path_factory.mktemp('chromium-profile')}")
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(executable_path=CHROMEDRIVER), options=options)
    driver.set_page_load_timeout(60)
    try:
        yield driver
    finally:
        driver.quit()


def _open(driver, url):
    driver.get(url)
    assert driver.execute_script("return document.readyState") == "complete"
    return [e for e in driver.get_log("browser") if e["level"] in ("SEVERE", "WARNING")]


CHART_SIZES = """
return Array.from(document.querySelectorAll('svg.chart')).map(svg => {
  const box = svg.getBoundingClientRect();
  return {w: box.width, h: box.height, marks: svg.querySelectorAll('rect, circle, polyline').length};
});
"""


@pytest.mark.parametrize("page, charts", [("index.html", 1), ("trends.html", 2 * len(synthetic.scenarios()))])
def test_charts_render_with_marks_and_no_console_errors(served_site, browser, page, charts):
    problems = _open(browser, f"{served_site}/{page}")
    assert problems == []
    sizes = browser.execute_script(CHART_SIZES)
    assert len(sizes) == charts
    assert all(s["w"] > 100 and s["h"] > 100 and s["marks"] > 0 for s in sizes), sizes


def test_change_point_marker_is_drawn_on_the_stepped_scenario(served_site, browser):
    _open(browser, f"{served_site}/trends.html#pairwise-05")
    marks = browser.execute_script(
        "return Array.from(document.querySelectorAll('#pairwise-05 .change.regression line'))"
        ".map(l => l.getBoundingClientRect().height)")
    assert len(marks) == 2 and all(h > 50 for h in marks)


def test_factor_tables_render_and_a_screenshot_is_saved(served_site, browser):
    assert _open(browser, f"{served_site}/factors.html") == []
    assert browser.execute_script("return document.querySelectorAll('table.dataframe tbody tr').length") > 5
    assert _open(browser, f"{served_site}/index.html") == []
    height = browser.execute_script("return document.documentElement.scrollHeight")
    browser.set_window_size(1280, min(height + 100, 4000))
    SCREENSHOT.parent.mkdir(parents=True, exist_ok=True)
    assert browser.save_screenshot(str(SCREENSHOT))
    browser.get(f"{served_site}/trends.html")
    assert browser.save_screenshot(str(SCREENSHOT.with_name("report-trends-screenshot.png")))
    assert SCREENSHOT.stat().st_size > 20_000


def test_confirmed_factor_page_says_its_conclusion_in_the_first_screen(study_site, browser):
    browser.set_window_size(1280, 900)
    assert _open(browser, f"{study_site}/factors.html") == []
    box = browser.execute_script("const b = document.querySelector('.conclusion').getBoundingClientRect();"
                                 "return {top: b.top, bottom: b.bottom};")
    assert box["bottom"] < 900, box  # top setting, prediction and its confirmation without scrolling
    text = browser.execute_script("return document.querySelector('.conclusion').innerText")
    assert "Top setting" in text and "Confirmed by measuring it" in text
    sizes = browser.execute_script(CHART_SIZES)
    assert len(sizes) == 1 and sizes[0]["w"] > 100 and sizes[0]["h"] > 200 and sizes[0]["marks"] > 10, sizes
    assert browser.execute_script("return document.querySelectorAll('table.confirmation tbody tr').length") >= 1
    height = browser.execute_script("return document.documentElement.scrollHeight")
    browser.set_window_size(1280, min(height + 100, 6000))
    shot = SCREENSHOT.with_name("report-factors-screenshot.png")
    shot.parent.mkdir(parents=True, exist_ok=True)  # on its own xdist worker, no other test made it first
    assert browser.save_screenshot(str(shot)) and shot.stat().st_size > 20_000

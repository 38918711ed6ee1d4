"""The report site from a SYNTHETIC history with a deliberate step at a known run."""

import json
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
import synthetic
from kcliff.errors import InputError
from kcliff.judge.tiers import TIERS
from kcliff.pairwise import confirm, design
from kcliff.report.site import build_site
from kcliff.results import history, model

ROOT = Path(__file__).resolve().parents[2]

STEP_RUN = 7
STEP_RUN_ID = "20260108T030000Z-syn007"


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("report")
    for f in synthetic.history_files(tmp / "results", 10, step_at=STEP_RUN, step={"pairwise-05": 0.6}):
        history.add(f, tmp / "hist")
    index = build_site(tmp / "hist", tmp / "site")
    return index.parent


class Links(HTMLParser):
    def __init__(self):
        super().__init__()
        self.refs = []

    def handle_starttag(self, tag, attrs):
        self.refs += [v for k, v in attrs if k in ("href", "src") and v]


def _section(html, anchor):
    start = html.index(f'id="{anchor}"')
    end = html.find('<section class="trend"', start + 1)
    return html[start:end if end > 0 else None]


def test_site_has_its_pages_and_every_local_link_resolves(site):
    for page in ("index.html", "trends.html", "factors.html", "runs.html", "style.css"):
        assert (site / page).is_file()
    for page in ("index.html", "trends.html", "factors.html", "runs.html"):
        parser = Links()
        parser.feed((site / page).read_text())
        for ref in parser.refs:
            assert not re.match(r"^(https?:)?//", ref), f"{page} loads {ref}: the site must work offline"
            target = ref.split("#")[0]
            if target and not target.startswith("data:"):
                assert (site / target).is_file(), f"{page} links to missing {ref}"


def test_trend_chart_marks_the_change_point_at_the_step_run(site):
    trends = (site / "trends.html").read_text()
    section = _section(trends, "pairwise-05")
    assert section.count("<svg") == 2
    assert section.count('class="change regression"') == 2  # throughput down, p99 up
    assert f"from run {STEP_RUN_ID}" in section
    # the other scenarios did not move
    assert 'class="change' not in _section(trends, "reference")
    assert trends.count('class="change') == 2


def test_latest_run_page_has_tier_chart_canaries_metadata_and_raw_link(site):
    index = (site / "index.html").read_text()
    assert index.count('<g class="bar">') == len(synthetic.scenarios())
    assert index.count("cliff seen") == 2 and "cliff NOT seen" not in index
    deep = next(t for t in TIERS if t.name == "deep cliff")
    flush_bar = re.search(r'<g class="bar"><title>flush-1:.*?</g>', index).group(0)
    assert f'fill="{deep.colour}"' in flush_bar
    assert 'stroke="#111"' in re.search(r'<g class="bar"><title>reference:.*?</g>', index).group(0)
    raw = re.search(r'href="(raw/[^"]+)">raw results', index).group(1)
    assert json.loads((site / raw).read_text())["run_id"] == "20260110T030000Z-syn009"
    assert "No change point starts at this run" in index


def test_bars_are_sorted_by_throughput(site):
    index = (site / "index.html").read_text()
    values = [float(v) for v in re.findall(r'class="value">([\d.]+) MB/s', index)]
    assert values == sorted(values, reverse=True) and len(values) == len(synthetic.scenarios())


def test_factor_page_puts_the_conclusion_first_then_tables_tiers_prediction_and_warnings(site):
    page = (site / "factors.html").read_text()
    assert page.index("Top setting") < page.index("Predicted best configuration") < page.index('class="warn"')
    assert "never measured" in page and "aliased" in page and "confounded" in page
    for table in ("predictions", "measured", "ranking", "tiers", "levels", "beside"):
        assert f'<table class="dataframe data {table}"' in page, table


def test_regression_at_the_newest_run_shows_a_banner_and_a_failing_canary_shows(tmp_path):
    files = synthetic.history_files(tmp_path / "results", 8, step_at=7, step={"reference": 0.5, "flush-1": 20})
    for f in files:
        history.add(f, tmp_path / "hist")
    index = build_site(tmp_path / "hist", tmp_path / "site").read_text()
    assert "regression" in index and "start at this run" in index
    assert "cliff NOT seen" in index  # flush-1 at 20x no longer below 0.5x the (halved) reference


def test_results_file_alone_builds_a_site_and_text_is_escaped(tmp_path, kcliff):
    doc = synthetic.results(0, synthetic.START, seed=0)
    doc["scenarios"][3]["description"] = "<script>alert(1)</script>"
    src = synthetic.write(doc, tmp_path / "r.json")
    done = kcliff("report", "--results", str(src), "--out", str(tmp_path / "site"))
    assert done.returncode == 0, done.stderr
    index = (tmp_path / "site" / "index.html").read_text()
    assert "<script>" not in index and "&lt;script&gt;" in index
    assert (tmp_path / "site" / "raw" / "latest" / "r.json").is_file()


def test_nothing_to_report_is_an_input_error(tmp_path, kcliff):
    (tmp_path / "empty").mkdir()
    with pytest.raises(InputError, match="nothing to report"):
        build_site(tmp_path / "empty", tmp_path / "site")
    done = kcliff("report", "--history", str(tmp_path / "missing"), "--out", str(tmp_path / "site"))
    assert done.returncode == 2 and "missing" in done.stderr


def test_factor_page_of_a_confirmed_run_leads_with_the_confirmation_and_draws_the_tiers(tmp_path):
    """The committed reproduction run (benchmarks/bench_study.py): tiers chart and confirmation."""
    study = ROOT / "benchmarks" / "data" / "study-repro-local-2c.json"
    site = build_site(None, tmp_path / "site", results=study).parent
    page = (site / "factors.html").read_text()
    conclusion = page[page.index('class="conclusion"'):page.index("</div>", page.index('class="conclusion"'))]
    assert "Confirmed by measuring it" in conclusion
    assert page.index("Confirmed by measuring it") < page.index('class="chart tier-chart"') \
        < page.index('<table class="dataframe data confirmation"')
    doc = model.load(study)
    design_rows = [e for e in doc.scenarios if design.is_design_row(e) and e.counts]
    assert page.count('<g class="bar">') == len(design_rows) + 1  # every design row and the reference
    for entry in doc.scenarios:
        if entry.source == confirm.SOURCE:
            assert f">{entry.id}</td>" in page  # beside the design, never in it


def test_trends_chart_the_read_side_and_mark_a_consumer_step(tmp_path):
    """A history of real-shaped read runs (synthetic.reading_history): the reference gets consumer and
    end-to-end charts beside the producer's, and the consumer's step is marked on its own chart."""
    hist = synthetic.reading_history(tmp_path, 10, step_at=6, factor=0.6)
    site = build_site(hist, tmp_path / "site").parent
    section = _section((site / "trends.html").read_text(), "reference")
    assert section.count("<svg") == 4  # throughput, p99, consumed, e2e_p99
    assert section.count('class="change regression"') == 1 and "from run 20260107T030000Z-read" in section
    latest = (site / "index.html").read_text()
    assert "consumed MB/s" in latest and "e2e p99 ms" in latest

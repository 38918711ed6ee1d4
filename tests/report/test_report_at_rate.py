"""The report shows latency at a fixed rate beside peak throughput: its own chart and columns on the
latest run's page, its own trend per scenario. On nights made from a real run
(tests/data/results/run-linger500-at-rate.json: the reference and linger-500 at 1,024 records/s)."""

from __future__ import annotations

import json
import re
from pathlib import Path

from kcliff.report import latest
from kcliff.report.site import build_site
from kcliff.results import history, model

RESULTS = Path(__file__).resolve().parents[1] / "data" / "results" / "run-linger500-at-rate.json"


def night(tmp_path: Path, day: int, behind: bool = False) -> Path:
    raw = json.loads(RESULTS.read_text())
    raw["run_id"], raw["environment"]["started"] = f"night-{day}", f"2026-11-{day:02d}T02:17:00Z"
    if behind:  # linger-500's first run at rate fell behind it
        raw["scenarios"][1]["read_runs"][0]["rate_held"] = False
    path = tmp_path / f"night-{day}.json"
    path.write_text(json.dumps(raw))
    return path


def test_the_latest_run_shows_latency_at_rate_beside_throughput_and_each_scenario_trends_it(tmp_path: Path) -> None:
    for day in (20, 21):
        history.add(night(tmp_path, day), tmp_path / "hist")
    site = build_site(tmp_path / "hist", tmp_path / "site").parent
    index = (site / "index.html").read_text()
    throughput_at, rate_at = index.index("Scenarios by throughput"), index.index("Latency at a fixed rate")
    assert throughput_at < rate_at < index.index("<h2>Run</h2>")
    chart = index[rate_at:index.index("</svg>", rate_at)]
    bars = re.findall(r'<text x="\d+" y="\d+" text-anchor="end"[^>]*>([^<]+)</text>', chart)
    assert bars == ["reference", "linger-500"]  # lowest p99 at rate first
    assert "not held" not in chart
    for column in ("p99 at rate ms", "e2e p99 at rate ms", "1,024 records/s"):
        assert column in index, column
    trends = (site / "trends.html").read_text()
    for sid in ("reference", "linger-500"):
        section = trends[trends.index(f'id="{sid}"'):]
        section = section[:section.find("</section>")]
        assert "p99_at_rate (ms, lower is better)" in section and "e2e_p99_at_rate (ms, lower is better)" in section
        assert "throughput (MB/s, higher is better)" in section


def test_a_scenario_that_fell_behind_its_rate_is_drawn_as_such(tmp_path: Path) -> None:
    doc = model.load(night(tmp_path, 22, behind=True))
    bars = {b.label: b for b in latest.rate_bars(doc)}
    assert bars["linger-500"].colour == latest.NOT_HELD and "not held" in bars["linger-500"].text
    assert bars["reference"].emphasis and bars["reference"].colour != latest.NOT_HELD
    table = latest.scenario_table(doc).set_index("scenario")
    assert table.loc["linger-500", "rate"] == "1,024 records/s, not held"
    assert table.loc["reference", "rate"] == "1,024 records/s"


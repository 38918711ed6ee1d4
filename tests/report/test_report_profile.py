"""The report beside each series says the rig profile (and its caps) and which resource bound the
series' newest run, and lists the history's other profiles the way it lists other runner classes. On
real results (tests/data/results/, see tests/results/test_rig.py): a check at aws-m5.xlarge-gp3 and a
CPU-bound one of the same host, and an interrupted run at the profile whose runs the link and the
disk bound; a synthetic run stands for another host's runner class."""

from __future__ import annotations

import re
from datetime import datetime, timezone
from pathlib import Path

import pytest
import synthetic
from kcliff.report.site import build_site
from kcliff.results import history

DATA = Path(__file__).resolve().parents[1] / "data" / "results"
AT_PROFILE = DATA / "profile-check-aws-m5.xlarge-gp3.json"   # 20261129T102831Z-4b6e, local-2c-24g@aws-m5.xlarge-gp3
CPU_BOUND_RUN = DATA / "check-cpu-bound.json"                # 20261129T101015Z-74ef, local-2c-24g
INTERRUPTED = DATA / "profile-run-interrupted-aws-m5.xlarge-gp3.json"
# `kcliff run --profile aws-m5.xlarge-gp3 --only reference --repeats 2 --records 30000` at this branch's b556acc
# (20261129T114300Z-e715): the reference held at its disk cap, 2.26 and 2.27 of 2.33 MB/s
DISK_BOUND = DATA / "profile-run-aws-m5.xlarge-gp3.json"
CAPS = "each broker&#39;s link 22.22 Mbit/s, disk 2.33 MB/s; disk meant to bind"


@pytest.fixture(scope="module")
def hist(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("profiles")
    other_host = synthetic.write(synthetic.results(0, datetime(2026, 11, 1, tzinfo=timezone.utc), 1),
                                 tmp / "synthetic.json")
    for results in (CPU_BOUND_RUN, AT_PROFILE, other_host):
        history.add(results, tmp / "hist")
    return tmp / "hist"


def _section(html: str, scenario: str) -> str:
    start = html.index(f'<section class="trend" id="{scenario}">')
    return html[start:html.index("</section>", start)]


def test_trends_of_a_profile_say_its_caps_and_what_bound_each_scenario(hist: Path, tmp_path: Path) -> None:
    site = build_site(hist, tmp_path / "site", results=AT_PROFILE).parent
    trends = (site / "trends.html").read_text()
    assert f'Rig profile <strong>aws-m5.xlarge-gp3</strong> ({CAPS})' in trends
    assert "Trends (local-2c-24g@aws-m5.xlarge-gp3, 1 runs)" in trends
    assert ("aws-m5.xlarge-gp3 (" + CAPS + ") · newest run 20261129T102831Z-4b6e: bound by cpu (cpu 96%)"
            in _section(trends, "batching-off"))
    assert "bound by wait (cpu 46%)" in _section(trends, "reference")
    # the CPU-bound run of the same host is another profile's series; the synthetic host another class
    assert "Runs at other rig profiles (cpu-bound: local-2c-24g) are series of their own" in trends
    assert "Runs of other runner classes (synthetic-2c) are not mixed in" in trends
    assert "20261129T101015Z-74ef" not in trends
    runs = (site / "runs.html").read_text()
    assert "Runs in the history (local-2c-24g@aws-m5.xlarge-gp3, rig profile aws-m5.xlarge-gp3)" in runs
    assert "runs at other rig profiles, cpu-bound: local-2c-24g." in runs


def test_a_series_says_what_bound_its_newest_run(tmp_path: Path) -> None:
    history.add(DISK_BOUND, tmp_path / "hist")
    history.add(AT_PROFILE, tmp_path / "hist")
    site = build_site(tmp_path / "hist", tmp_path / "site").parent
    trends = (site / "trends.html").read_text()
    assert "Trends (local-2c-24g@aws-m5.xlarge-gp3, 2 runs)" in trends
    # the reference's newest run held at the disk cap (the check's runs before it were bound by nothing)
    assert "newest run 20261129T114300Z-e715: bound by disk 2.3/2.3 MB/s" in _section(trends, "reference")
    # batching-off was not measured in it: its series' newest run is the check's
    assert "newest run 20261129T102831Z-4b6e: bound by cpu (cpu 96%)" in _section(trends, "batching-off")


def test_the_cpu_bound_report_names_the_profile_beside_it(hist: Path, tmp_path: Path) -> None:
    site = build_site(hist, tmp_path / "site", results=CPU_BOUND_RUN).parent
    trends = (site / "trends.html").read_text()
    assert "Rig profile <strong>cpu-bound</strong> (no caps: CPU binds)" in trends
    assert "cpu-bound (no caps: CPU binds) · newest run 20261129T101015Z-74ef: bound by cpu (cpu 96%)" in _section(
        trends, "batching-off")
    assert "Runs at other rig profiles (aws-m5.xlarge-gp3: local-2c-24g@aws-m5.xlarge-gp3)" in trends
    assert "20261129T102831Z-4b6e" not in trends


def test_the_latest_run_page_says_the_rig_and_each_scenarios_bound(tmp_path: Path) -> None:
    site = build_site(None, tmp_path / "site", results=INTERRUPTED).parent
    index = (site / "index.html").read_text()
    assert f'<td id="rig">aws-m5.xlarge-gp3 ({CAPS})</td>' in index
    header = re.search(r"<table[^>]*scenarios.*?</thead>", index, re.S).group(0)
    assert "<th>bound</th>" in header

    def row(scenario: str) -> str:
        return re.search(rf"<tr>\s*<td>{scenario}</td>.*?</tr>", index, re.S).group(0)
    assert "<td>link 2.4/2.8 MB/s</td>" in row("reference")
    assert "<td>disk 2.0/2.3 MB/s</td>" in row("linger-500")
    assert "<td>wait (cpu 20%)</td>" in row("flush-1")
    assert re.findall(r"<td>(.*?)</td>", row("batching-off"))[-1] == ""  # its one run stopped on its cliff


def test_a_run_from_before_bounds_has_no_bound_column(tmp_path: Path) -> None:
    doc = synthetic.write(synthetic.results(0, datetime(2026, 11, 1, tzinfo=timezone.utc), 1), tmp_path / "r.json")
    index = (build_site(None, tmp_path / "site", results=doc).parent / "index.html").read_text()
    assert "<th>bound</th>" not in index and '<td id="rig">cpu-bound (no caps: CPU binds)</td>' in index

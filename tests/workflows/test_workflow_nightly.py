"""nightly.yml run for real under nektos/act (tests/workflow_runner.py), on the compose cluster.

Two nights in a row from a repository with no gh-pages branch: a scheduled night, then a
dispatched night that also measures a canary which cannot show its cliff (it must still publish,
marked, and fail) and a scenario through a broker kill (the reference with it), whose outage figures
are published as series of their own. Sized small through the workflow's own inputs and repository variables (a
scheduled night reads the variables): the reference and the batching-off canary (and on the first
night a consumer change, measured end to end and, with the reference, at a fixed rate), 4,000 records,
one repeat.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from workflow_runner import STANDIN_IMAGE, GitHub, git

pytestmark = [pytest.mark.workflows, pytest.mark.docker, pytest.mark.kafka]

SMALL = {"records": "4000", "repeats": "1", "prime": "5"}


def _night(github: GitHub, work: Path, event_name: str, suites: str) -> object:
    if event_name == "schedule":
        variables = {**STANDIN_IMAGE, "KCLIFF_NIGHTLY_SUITES": suites,
                     **{f"KCLIFF_NIGHTLY_{k.upper()}": v for k, v in SMALL.items()}}
        return github.act(work, ".github/workflows/nightly.yml", "schedule",
                          {"schedule": "17 2 * * *"}, variables=variables)
    inputs = {"suites": suites, **SMALL}
    return github.act(work, ".github/workflows/nightly.yml", "workflow_dispatch", {"inputs": inputs},
                      inputs=inputs, variables=STANDIN_IMAGE)


def _data_js(github: GitHub, kind: str) -> dict:
    text = git("show", f"gh-pages:dev/bench/{kind}/data.js", cwd=github.bare("kcliff/kcliff"))
    return json.loads(text.removeprefix("window.BENCHMARK_DATA =").strip())


@pytest.fixture(scope="module")
def nights(tmp_path_factory: pytest.TempPathFactory, docker_engine: str) -> tuple[GitHub, list]:
    github = GitHub(tmp_path_factory.mktemp("nightly"))
    work, _ = github.kcliff()
    first = _night(github, work, "schedule",
                   "tests/data/suites/nightly-small.yaml tests/data/suites/nightly-consumer.yaml")
    second = _night(github, work, "workflow_dispatch", "tests/data/suites/nightly-small.yaml "
                    "tests/data/suites/blind-canary.yaml tests/data/suites/nightly-failover.yaml")
    return github, [first, second]


def test_two_nights_publish_the_site_from_no_gh_pages_branch(nights) -> None:
    github, (first, second) = nights
    assert first.returncode == 0, first.explain()
    assert first.job_result("measure") == "success" and first.job_result("publish") == "success", first.explain()
    assert second.step_result("publish", "deploy-pages") == "success", second.explain()
    index = github.pages / "index.html"
    assert index.exists(), "the Pages site has no index.html at its root"
    html = index.read_text()
    for link in ("report/index.html", "dev/bench/throughput/index.html", "dev/bench/p99/index.html",
                 "dev/bench/failover/index.html"):
        assert f'href="{link}"' in html and (github.pages / link).exists(), link


def test_the_trend_action_was_handed_every_measured_scenario_in_its_custom_format(nights) -> None:
    github, runs = nights
    for night in runs:
        results = json.loads((night.artifacts / "nightly-results" / "results" / "nightly.json").read_text())
        measured = {sc["id"] for sc in results["scenarios"] if sc["status"] in ("ok", "cliff")}
        assert {"reference", "batching-off"} <= measured
        calls = {c["inputs"]["tool"]: c for c in night.recorded("github-action-benchmark")
                 if c["run_id"] == night.run_id and c["inputs"]["output-file-path"] != "nightly/bench/failover.json"}
        assert set(calls) == {"customBiggerIsBetter", "customSmallerIsBetter"}
        handed = {b["name"] for b in calls["customBiggerIsBetter"]["handed"]}
        # 4,000-record runs are read in well under a second: a consumer figure only where it took two reports
        assert {f"{sid} throughput" for sid in measured} <= handed
        assert handed <= {f"{sid} {m}" for sid in measured for m in ("throughput", "consumed")}
        assert all(isinstance(b["value"], float) and b["unit"] for b in calls["customBiggerIsBetter"]["handed"])
        smaller = {b["name"] for b in calls["customSmallerIsBetter"]["handed"]}
        if night is runs[0]:  # the end-to-end tool ran in the tool container, its config file mounted
            assert {"reference e2e_p99", "consumer-polls-more e2e_p99"} <= smaller
        # latency at rate: its own series for each scenario measured at rate that held it, none for one that did not
        at_rate = {sc["id"]: all(r["rate_held"] for r in sc["read_runs"] if r["workload"] == "rate")
                   for sc in results["scenarios"] if sc["status"] in ("ok", "cliff") and "rate" in (sc.get("workloads") or [])}
        assert set(at_rate) == ({"reference", "consumer-polls-more"} if night is runs[0] else set())
        assert at_rate.get("reference", True), "the reference could not hold 1 MB/s on the compose cluster"
        for sid, held in at_rate.items():
            assert ({f"{sid} p99_at_rate", f"{sid} e2e_p99_at_rate"} <= smaller) is held, (sid, held, smaller)
        if night is not runs[0]:
            assert not any(n.endswith("_at_rate") for n in smaller), smaller
    assert len(_data_js(github, "throughput")["entries"]["kcliff throughput (MB/s)"]) == 2
    published = [{b["name"] for b in e["benches"]} for e in _data_js(github, "p99")["entries"]["kcliff p99 latency (ms)"]]
    assert {"reference p99_at_rate", "reference e2e_p99_at_rate"} <= published[0], published[0]


def test_the_report_shows_two_nights_of_history(nights) -> None:
    github, _ = nights
    runs = (github.pages / "report" / "runs.html").read_text()
    history = git("ls-tree", "-r", "--name-only", "gh-pages", "history", cwd=github.bare("kcliff/kcliff")).split()
    assert len([h for h in history if h.endswith(".json")]) == 2
    for path in history:
        run_id = json.loads(git("show", f"gh-pages:{path}", cwd=github.bare("kcliff/kcliff")))["run_id"]
        assert run_id in runs
    trends = (github.pages / "report" / "trends.html").read_text()
    reference = trends[trends.index('id="reference"'):]
    assert "p99_at_rate (ms, lower is better)" in reference[:reference.index("</section>")]  # the first night's


def test_the_second_night_is_compared_with_the_baseline_the_first_started(nights) -> None:
    github, (first, second) = nights
    assert "this night starts it" in first.summary("publish")
    summary = second.summary("publish")
    assert "kcliff compare with the stored baseline" in summary, summary
    assert re.search(r"baselines/4\.2\.0/compose-[^`]+\.json", summary), summary
    baseline = git("ls-tree", "-r", "--name-only", "gh-pages", "baselines", cwd=github.bare("kcliff/kcliff"))
    stored = json.loads(git("show", f"gh-pages:{baseline.split()[0]}", cwd=github.bare("kcliff/kcliff")))
    assert len(stored["sources"]) == 1, "a night whose canary missed must not move the baseline"


def test_a_night_whose_canary_misses_still_publishes_and_fails(nights) -> None:
    github, (_, night) = nights
    assert night.returncode != 0
    assert night.job_result("measure") == "failure" and night.job_result("publish") == "failure", night.explain()
    assert night.step_result("publish", "deploy-pages") == "success", night.explain()
    html = (github.pages / "index.html").read_text()
    assert "failed" in html and "canary blind did not show its cliff" in html
    assert any("canary blind did not show its cliff" in a.message for a in night.annotations())


def test_a_night_through_a_fault_publishes_what_a_brokers_death_costs_as_series_of_their_own(nights) -> None:
    github, (_, night) = nights
    results = json.loads((night.artifacts / "nightly-results" / "results" / "nightly.json").read_text())
    through = {sc["id"]: [r for r in sc["read_runs"] if r["workload"] == "failover"] for sc in results["scenarios"]}
    assert through["reference"] and through["retry-backoff-1s"], through
    assert all(r["fo_unavailable_s"] > 0 and r["fo_lost"] == 0 for runs in through.values() for r in runs), through
    calls = {c["inputs"]["output-file-path"]: c for c in night.recorded("github-action-benchmark")
             if c["run_id"] == night.run_id}
    handed = {b["name"]: b for b in calls["nightly/bench/failover.json"]["handed"]}
    assert calls["nightly/bench/failover.json"]["inputs"]["tool"] == "customSmallerIsBetter"
    for sid in ("reference", "retry-backoff-1s"):
        for metric in ("unavailable", "recovery", "lost"):
            assert f"{sid} {metric}" in handed, sorted(handed)
    assert handed["reference unavailable"]["unit"] == "s" and handed["reference lost"]["value"] == 0
    # a page of their own: seconds and records never share the latency page's ms
    assert not any(b["name"].endswith(" unavailable") for b in calls["nightly/bench/p99.json"]["handed"])
    published = _data_js(github, "failover")["entries"]["kcliff through a broker's death (s, records)"]
    assert {"reference unavailable", "reference lost"} <= {b["name"] for b in published[-1]["benches"]}


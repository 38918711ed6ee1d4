"""`kcliff nightly publish / verdict` on real results files (no Kafka): what a night publishes, when
it fails, and when it moves the baseline. The workflow itself runs in test_workflow_nightly.py."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from dataclasses import asdict
from pathlib import Path

import pytest
from kcliff.commands.nightly import NightOutcome

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "benchmarks" / "data"
GOOD = DATA / "early-stop-100k-on.json"           # complete, every canary seen, in the committed baseline
BLIND = DATA / "results-canaries-local-2c.json"   # flush-1 and inflight-1 did not show their cliffs
AT_RATE = ROOT / "tests" / "data" / "results" / "run-linger500-at-rate.json"  # the reference and linger-500 at rate
# a real check measured at aws-m5.xlarge-gp3 on this VM (see tests/results/test_rig.py)
AT_PROFILE = ROOT / "tests" / "data" / "results" / "profile-check-aws-m5.xlarge-gp3.json"


def kcliff(*args: str | Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "kcliff.cli", *map(str, args)], capture_output=True, text=True,
                          timeout=300)


def publish(results: Path, site: Path, outcome: Path, measured: str = "success", *more: str) -> dict:
    done = kcliff("nightly", "publish", results, "--site", site, "--seed-baselines", ROOT / "baselines",
                  "--measured", measured, "--summary", site.parent / "summary.md", "--outcome", outcome, *more)
    assert done.returncode == 0, done.stdout + done.stderr
    return json.loads(outcome.read_text())


@pytest.mark.parametrize("outcome, reasons", [
    (NightOutcome("r", "success", "complete"), []),
    (NightOutcome("r", "failure", "complete"), ["the measuring job ended with 'failure'"]),
    (NightOutcome("r", "success", "complete", canaries_missed=["flush-1"]), ["canary flush-1 did not show"]),
    (NightOutcome("r", "success", "complete", comparison="regression", baseline="b.json"), ["regression against"]),
    (NightOutcome("r", "success", "complete", comparison="inconclusive", baseline="b.json"), []),
])
def test_which_nights_fail(outcome: NightOutcome, reasons: list[str]) -> None:
    found = outcome.failures()
    assert len(found) == len(reasons) and all(r in f for r, f in zip(reasons, found)), found


def test_a_good_night_is_compared_with_the_seeded_baseline_and_moves_it(tmp_path: Path) -> None:
    site = tmp_path / "site"
    site.mkdir()
    night = publish(GOOD, site, tmp_path / "night.json")
    # the run is one of the baseline's own: never a regression (3 runs a side may not settle a pass)
    assert night["comparison"] in ("pass", "inconclusive") and night["baseline"] == "baselines/4.2.0/local-2c-24g.json"
    assert night["baseline_updated"] and not night["canaries_missed"]
    assert "kcliff compare with the stored baseline" in (tmp_path / "summary.md").read_text()
    front = (site / "index.html").read_text()
    assert "passed" in front and "failed" not in front and 'href="report/index.html"' in front and (site / "report" / "index.html").exists()
    assert kcliff("nightly", "verdict", tmp_path / "night.json").returncode == 0


def test_a_night_whose_canaries_missed_publishes_fails_and_keeps_the_baseline(tmp_path: Path) -> None:
    site = tmp_path / "site"
    shutil.copytree(ROOT / "baselines", site / "baselines")
    before = (site / "baselines/4.2.0/local-2c-24g.json").read_text()
    night = publish(BLIND, site, tmp_path / "night.json", measured="failure")
    assert set(night["canaries_missed"]) == {"flush-1", "inflight-1"} and not night["baseline_updated"]
    assert (site / "baselines/4.2.0/local-2c-24g.json").read_text() == before
    assert "canary flush-1 did not show its cliff" in (site / "index.html").read_text()
    verdict = kcliff("nightly", "verdict", tmp_path / "night.json")
    assert verdict.returncode == 1 and "::error title=kcliff nightly::canary flush-1" in verdict.stdout


def test_a_bad_outcome_file_is_refused_naming_it(tmp_path: Path) -> None:
    bad = tmp_path / "night.json"
    bad.write_text('{"run_id": 1}')
    done = kcliff("nightly", "verdict", bad)
    assert done.returncode == 2 and str(bad) in done.stderr and "Traceback" not in done.stderr


def test_the_first_night_on_a_newer_kafka_judges_the_upgrade_against_the_older_baseline(tmp_path: Path) -> None:
    # A real night relabelled as measured on Kafka 4.3.1, as a dispatch with kafka-version 4.3.1 would be.
    night_doc = json.loads(GOOD.read_text())
    night_doc["environment"]["kafka_version"] = "4.3.1"
    results = tmp_path / "night-4.3.1.json"
    results.write_text(json.dumps(night_doc))
    site = tmp_path / "site"
    shutil.copytree(ROOT / "baselines", site / "baselines")
    night = publish(results, site, tmp_path / "night.json")
    assert night["baseline"] == "baselines/4.2.0/local-2c-24g.json" and night["comparison"] in ("pass", "inconclusive")
    assert "Kafka upgrade: 4.2.0 -> 4.3.1" in (tmp_path / "summary.md").read_text()
    assert night["baseline_updated"] and (site / "baselines/4.3.1/local-2c-24g.json").is_file()  # its own from now on


def test_nights_at_a_fixed_rate_keep_publish_and_compare_latency_at_rate_and_refuse_another_rate(tmp_path: Path) -> None:
    # A real run of the reference and linger-500 at 1,024 records/s (tests/data/results). Its linger-500 missed
    # the 0.3 bound at 0.44x on the emulated 20 ms fsync: as a canary bounded at 0.5 it shows, so the nights
    # may start and move a baseline (this site has none and is seeded from none).
    def night(day: int, target: float) -> Path:
        raw = json.loads(AT_RATE.read_text())
        raw["run_id"], raw["environment"]["started"] = f"night-{day}", f"2026-11-{day:02d}T02:17:00Z"
        raw["scenarios"][1]["cliff"]["max_ratio"] = 0.5
        for sc in raw["scenarios"]:
            for run in sc["read_runs"]:
                run["rate_target_per_s"] = target
        path = tmp_path / f"night-{day}.json"
        path.write_text(json.dumps(raw))
        return path

    site = tmp_path / "site"
    site.mkdir()
    for day, target in ((20, 1024.0), (21, 2048.0)):
        done = kcliff("nightly", "publish", night(day, target), "--site", site, "--outcome", tmp_path / f"{day}.json")
        assert done.returncode == 0, done.stdout + done.stderr
    first, second = (json.loads((tmp_path / f"{day}.json").read_text()) for day in (20, 21))
    assert first["baseline_updated"] and not first["canaries_missed"]
    stored = json.loads((site / "baselines" / "4.2.0" / "local-2c-24g.json").read_text())["scenarios"]
    # the second night moved the baseline on to its own rate: latency at 1,024 records/s is no baseline for 2,048
    assert second["baseline_updated"]
    assert {r["rate_target_per_s"] for r in stored["reference"]["read_runs"]} == {2048.0}
    assert "reference: latency at rate was measured at 2048 records/s, the baseline's at 1024 records/s: not " \
           "comparable; latency at rate not compared" in (site / "report" / "compare.md").read_text()
    report = (site / "report" / "index.html").read_text()
    assert "Latency at a fixed rate" in report and "2,048 records/s" in report
    assert "e2e_p99_at_rate (ms, lower is better)" in (site / "report" / "trends.html").read_text()


def test_a_night_at_a_profile_keeps_its_own_history_and_baseline_and_says_its_rig(tmp_path: Path) -> None:
    site = tmp_path / "site"
    site.mkdir()
    night = publish(AT_PROFILE, site, tmp_path / "night.json", "success", "--profile", "aws-m5.xlarge-gp3")
    # the repository's baselines/4.2.0/local-2c-24g.json is the CPU-bound rig's: never this night's
    assert night["baseline"] is None and night["comparison"] is None and not (site / "baselines" / "4.2.0" /
                                                                               "local-2c-24g.json").exists()
    assert night["profile"] == "aws-m5.xlarge-gp3" and "link 22.22 Mbit/s, disk 2.33 MB/s" in night["rig"]
    assert [p.name for p in (site / "history").iterdir()] == ["local-2c-24g-aws-m5.xlarge-gp3"]
    # its consumer canary, in a check's short runs, missed: the night starts no baseline of its profile either
    assert night["canaries_missed"] == ["consumer-fetch-1"] and not night["baseline_updated"]
    assert not (site / "baselines").exists()
    front = (site / "index.html").read_text()
    assert "Measured at rig profile <strong>aws-m5.xlarge-gp3</strong>: aws-m5.xlarge-gp3 (each broker" in front
    # the CPU-bound night after it: compared with the CPU-bound baseline; the profile's series listed, not mixed
    cpu = publish(GOOD, site, tmp_path / "cpu.json", "success", "--profile", "cpu-bound")
    assert cpu["baseline"] == "baselines/4.2.0/local-2c-24g.json" and cpu["profile"] == "cpu-bound"
    trends = (site / "report" / "trends.html").read_text()
    assert "Runs at other rig profiles (aws-m5.xlarge-gp3: local-2c-24g@aws-m5.xlarge-gp3)" in trends
    assert "Measured at rig profile <strong>cpu-bound</strong>: cpu-bound (no caps: CPU binds)" in (
        site / "index.html").read_text()


def test_a_night_measured_at_another_profile_than_asked_publishes_nothing(tmp_path: Path) -> None:
    site = tmp_path / "site"
    site.mkdir()
    done = kcliff("nightly", "publish", AT_PROFILE, "--site", site, "--profile", "cpu-bound", "--outcome",
                  tmp_path / "night.json")
    assert done.returncode == 2 and "asked to measure at rig profile 'cpu-bound'" in done.stderr, done.stderr
    assert "measured at 'aws-m5.xlarge-gp3'" in done.stderr and "Traceback" not in done.stderr
    assert not any(site.iterdir()) and not (tmp_path / "night.json").exists()
    # an outcome written before nights knew their profile still reads: a CPU-bound night
    old = {k: v for k, v in asdict(NightOutcome("r", "success", "complete")).items() if k not in ("profile", "rig")}
    (tmp_path / "old.json").write_text(json.dumps(old))
    assert kcliff("nightly", "verdict", tmp_path / "old.json").returncode == 0

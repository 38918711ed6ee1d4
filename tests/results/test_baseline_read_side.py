"""Baselines and compare carry the read side: on a real `kcliff check` results file whose base and
head changed only max.poll.records (500 -> 1000), measured on this machine's local cluster
(tests/data/results/check-consumer-benign.json: reference, canaries with consumer-fetch-1, and
base/head with consumer and end-to-end runs)."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import ROOT, run_kcliff
from kcliff.judge import baseline_verdict, canary
from kcliff.results import baseline, metrics, model
from kcliff.results.documents import BASELINE

RESULTS = ROOT / "tests" / "data" / "results" / "check-consumer-benign.json"


def stored() -> baseline.Baseline:
    doc = baseline.load_results(RESULTS)
    new, _ = baseline.update(baseline.new_baseline("4.2.0", doc.environment["runner_class"]), doc)
    return new


def test_update_keeps_the_read_runs_of_the_scenarios_that_read() -> None:
    base = stored()
    reference = base.scenarios[model.REFERENCE_ID]
    assert {r.workload for r in reference.read_runs} == {"consume", "end-to-end"}
    assert reference.values(metrics.CONSUMED) and all(v and v > 0 for v in reference.values(metrics.CONSUMED))
    assert not base.scenarios["flush-1"].read_runs  # a producer-only canary stores no read runs


def test_a_stored_consumer_canary_is_judged_on_the_consumer_it_stands_for() -> None:
    base = stored()
    verdicts = {v.id: v for v in (canary.canary_verdict(c, base.reference()) for c in base.canaries())}
    fetch = verdicts["consumer-fetch-1"]
    assert fetch.metric == "consumed" and fetch.seen and fetch.ratio is not None and fetch.ratio < 0.5, fetch


def test_window_trims_each_read_workload_to_its_newest_runs() -> None:
    doc = baseline.load_results(RESULTS)
    new, _ = baseline.update(baseline.new_baseline("4.2.0", doc.environment["runner_class"], window=3), doc)
    reads = new.scenarios["head"].read_runs
    assert [r.workload for r in reads].count("consume") == 3 and [r.workload for r in reads].count("end-to-end") == 3


def test_compare_judges_the_consumer_against_its_stored_runs_and_skips_what_was_never_stored() -> None:
    doc = baseline.load_results(RESULTS)
    outcome = baseline_verdict.compare(doc, stored())
    head = next(s for s in outcome.scenarios if s.id == "head")
    assert {d.metric for d in head.decisions} == {"throughput", "p99", "consumed", "e2e_p99"}
    old = stored()
    for scenario in old.scenarios.values():  # as a version 1 baseline stored them: the producer only
        scenario.read_runs, scenario.workloads = [], None
    head = next(s for s in baseline_verdict.compare(doc, old).scenarios if s.id == "head")
    assert {d.metric for d in head.decisions} == {"throughput", "p99"}


def test_cli_writes_a_version_2_baseline_that_reads_back(tmp_path: Path) -> None:
    done = run_kcliff("baseline", "update", str(RESULTS), "--dir", str(tmp_path))
    assert done.returncode == 0, done.stderr
    written = next(tmp_path.rglob("*.json"))
    assert json.loads(written.read_text())["schema_version"] == BASELINE.version == 2
    assert baseline.load_baseline(written).scenarios["head"].workloads == ["produce", "consume", "end-to-end"]
    compared = run_kcliff("compare", str(RESULTS), "--baseline", str(tmp_path))
    assert compared.returncode in (0, 3), compared.stderr
    assert "consumed" in compared.stdout + compared.stderr

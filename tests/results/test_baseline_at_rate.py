"""Baselines and compare carry latency at a fixed rate, with the rate it was measured at: on a real
`kcliff run --suite canaries --only linger-500` results file (tests/data/results/run-linger500-at-rate.json:
the reference and linger-500, two interleaved rounds, each with a run at 1 MB/s = 1,024 records/s
on this machine's local cluster). Stamped with one host id, the run and the baseline made from it are
compared as a host's own (results/baseline_host.py): figure for figure, latency at rate included."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import ROOT, run_kcliff
from kcliff.judge import baseline_verdict
from kcliff.results import baseline, metrics, model

RESULTS = ROOT / "tests" / "data" / "results" / "run-linger500-at-rate.json"
AT_RATE = {metrics.RATE_P99.name, metrics.RATE_E2E_P99.name}
HOST = "dev-vm"  # the one host that measured the run and, in these tests, the baseline made of it


def at(target: float | None = None, held: bool | None = None, run_id: str | None = None) -> model.ResultsDoc:
    """The recorded run, its runs at rate aimed at `target` records/s or marked held or not."""
    raw = json.loads(RESULTS.read_text())
    for sc in raw["scenarios"]:
        for run in sc["read_runs"]:
            run.update({k: v for k, v in (("rate_target_per_s", target), ("rate_held", held)) if v is not None})
    raw["run_id"] = run_id or raw["run_id"]
    raw["environment"]["host_id"] = HOST
    return model.ResultsDoc.model_validate(raw)


def stored(doc: model.ResultsDoc | None = None) -> baseline.Baseline:
    doc = doc or at()
    new, _ = baseline.update(baseline.new_baseline("4.2.0", doc.environment["runner_class"]), doc)
    return new


def test_update_keeps_each_run_at_rate_with_its_rate_and_latency() -> None:
    doc = baseline.load_results(RESULTS)
    reference = stored().scenarios[model.REFERENCE_ID]
    runs = [r for r in reference.read_runs if r.workload == "rate"]
    measured = [r for r in doc.reference().read_runs if r.workload == "rate"]  # type: ignore[union-attr]
    assert len(runs) == len(measured) == 2
    for kept, run in zip(runs, measured):
        assert (kept.rate_target_per_s, kept.rate_achieved_per_s, kept.rate_held) == (1024.0, 1024.0, True)
        assert (kept.rate_p99_ms, kept.rate_e2e_p99_ms) == (run.rate_p99_ms, run.rate_e2e_p99_ms)
    assert reference.values(metrics.RATE_P99) == doc.reference().values(metrics.RATE_P99)  # type: ignore[union-attr]


def test_a_stored_latency_canary_is_judged_on_its_stored_latency_at_rate() -> None:
    base = stored()
    assert base.reference() is not None and base.reference().rate_targets() == (1024.0,)  # type: ignore[union-attr]
    linger = next(c for c in base.canaries() if c.id == "linger-500")
    assert linger.median(metrics.RATE_P99) == baseline.load_results(RESULTS).entry("linger-500").median(  # type: ignore[union-attr]
        metrics.RATE_P99)


def test_compare_judges_latency_at_rate_measured_at_the_baselines_rate() -> None:
    outcome = baseline_verdict.compare(at(), stored())
    reference = next(s for s in outcome.scenarios if s.id == model.REFERENCE_ID)
    assert AT_RATE <= {d.metric for d in reference.decisions}
    assert not any("latency at rate" in n for n in outcome.notes)


def test_compare_refuses_latency_at_another_rate_and_says_so() -> None:
    outcome = baseline_verdict.compare(at(target=2048.0), stored())
    reference = next(s for s in outcome.scenarios if s.id == model.REFERENCE_ID)
    assert not AT_RATE & {d.metric for d in reference.decisions}
    assert {"throughput", "p99"} <= {d.metric for d in reference.decisions}  # the rest is still judged
    assert any("2048 records/s, the baseline's at 1024 records/s: not comparable; latency at rate not compared" in n
               for n in outcome.notes), outcome.notes


def test_runs_that_did_not_hold_their_rate_are_not_stored() -> None:
    moved, notes = baseline.update(stored(), at(held=False, run_id="another-run"))
    assert len(moved.scenarios[model.REFERENCE_ID].read_runs) == 2 and len(moved.scenarios[model.REFERENCE_ID].runs) == 4
    assert "reference: 2 run(s) did not hold their rate; their latency at rate is not kept" in notes


def test_compare_refuses_a_baseline_whose_runs_did_not_hold_their_rate() -> None:
    # as a baseline written elsewhere may hold them: update() keeps such runs out
    behind = stored()
    for scenario in behind.scenarios.values():
        for run in scenario.read_runs:
            run.rate_held = False
    outcome = baseline_verdict.compare(at(), behind)
    reference = next(s for s in outcome.scenarios if s.id == model.REFERENCE_ID)
    assert not AT_RATE & {d.metric for d in reference.decisions}
    assert any("did not hold their rate of 1024 records/s" in n for n in outcome.notes), outcome.notes


def test_a_run_at_a_new_rate_starts_the_stored_latency_at_rate_again() -> None:
    moved, notes = baseline.update(stored(), at(target=2048.0, run_id="another-run"))
    reference = moved.scenarios[model.REFERENCE_ID]
    assert [r.rate_target_per_s for r in reference.read_runs] == [2048.0, 2048.0]
    assert len(reference.runs) == 4  # the producer's runs are of the same settings: kept
    assert any("reference: measured at 2048 records/s where the baseline's runs were at 1024 records/s" in n
               for n in notes), notes


def test_cli_compare_with_a_stored_baseline_judges_latency_at_rate(tmp_path: Path) -> None:
    # `kcliff baseline update` refuses this run (its linger-500 missed the 0.3 bound at 0.44x), so the
    # baseline is written as update() makes it
    baseline.save(stored(), baseline.baseline_path(tmp_path, "4.2.0", "local-2c-24g"))
    written = next(tmp_path.rglob("*.json"))
    kept = json.loads(written.read_text())["scenarios"]["reference"]["read_runs"]
    assert {r["rate_target_per_s"] for r in kept} == {1024.0} and all(r["rate_p99_ms"] > 0 for r in kept)
    results = tmp_path / "results.json"
    results.write_text(json.dumps(at().to_json()))
    compared = run_kcliff("compare", str(results), "--baseline", str(tmp_path))
    assert compared.returncode in (0, 1, 3), compared.stderr
    assert "p99_at_rate" in compared.stdout, compared.stdout


def test_every_figure_a_stored_read_run_keeps_is_a_field_of_its_own() -> None:
    # KEPT_READ_FIGURES follows METRICS: a new read-side metric without its field made every stored
    # consumer run of an older baseline unreadable (AttributeError in as_entry)
    assert set(baseline.KEPT_READ_FIGURES) <= set(baseline.StoredReadRun.model_fields)
    older = baseline.StoredScenario.model_validate({"settings_hash": "abc", "read_runs": [
        {"run_id": "r1", "workload": "consume", "consumed_mb_per_sec": 120.5, "complete": True}]})
    entry = older.as_entry("reference")
    assert entry.read_runs[0].consumed_mb_per_sec == 120.5 and entry.read_runs[0].rate_p50_ms is None

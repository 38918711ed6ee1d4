"""kcliff baseline update / kcliff compare through the real CLI, on SYNTHETIC results documents.

Nothing here was measured: results are built by `synthetic_results` in the shape of
docs/results-schema.md, with seeded lognormal run-to-run noise, so the tests check the baseline
store, the refusals and the verdict wiring, never claims about Kafka.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from conftest import run_kcliff
from kcliff.results import baseline
from kcliff.results.documents import BASELINE, RESULTS
from kcliff.results.model import ResultsDoc

CANARIES = {"flush-1": ("throughput", 0.5), "inflight-1": ("throughput", 0.7)}
SPEEDS = {"reference": 40.0, "flush-1": 2.0, "inflight-1": 14.0, "tuned": 55.0}


def synthetic_results(run_no: int = 0, speeds: dict[str, float] | None = None, runs: int = 3, cv: float = 0.05,
                      runner_class: str = "synthetic-2c", kafka_version: str = "4.2.0", status: str = "complete",
                      hashes: dict[str, str] | None = None) -> dict[str, Any]:
    """A SYNTHETIC results document: throughput = speed x lognormal noise, p99 inversely related."""
    rng = np.random.default_rng(1000 + run_no)
    sigma = float(np.sqrt(np.log(1 + cv * cv)))
    scenarios = []
    for sid, mb in (speeds or SPEEDS).items():
        values = mb * rng.lognormal(-sigma * sigma / 2, sigma, runs)
        run_docs = [{"records": 100000, "records_per_sec": v * 1024, "mb_per_sec": round(float(v), 4),
                     "avg_ms": 2000 / v, "max_ms": 9000 / v, "p50_ms": 1500 / v, "p95_ms": 3000 / v,
                     "p99_ms": round(float(4000 / v), 2), "p999_ms": 5000 / v, "elapsed_s": 100 / v,
                     "complete": True, "stopped_early": False, "interim_mb_per_sec": [float(v)]} for v in values]
        metric, max_ratio = CANARIES.get(sid, (None, None))
        scenarios.append({
            "id": sid, "description": f"synthetic {sid}", "source": "synthetic",
            "settings_hash": (hashes or {}).get(sid, f"hash-{sid}"), "applied": {},
            "cliff": {"stands_for": "synthetic", "metric": metric, "max_ratio": max_ratio} if metric else None,
            "status": "ok", "status_reason": None, "restart_forced": False, "started": None, "ended": None,
            "wall_s": 10.0, "measured_s": 8.0, "overhead_s": 2.0, "warmup": None, "runs": run_docs, "summary": None})
    return {"schema": "kcliff.results", "schema_version": 1, "run_id": f"synthetic-{run_no:03d}", "status": status,
            "environment": {"kafka_version": kafka_version, "java": "17", "cores": 2, "memory_gb": 24,
                            "backend": "local", "runner_class": runner_class, "caps": {},
                            "kcliff_revision": "synthetic", "hostname": "synthetic", "host_id": "synthetic-host",
                            "started": "2026-01-01T03:00:00Z", "ended": None, "cluster_bringup_s": 1.0},
            "parameters": {"records": 100000, "repeats": runs}, "scenarios": scenarios}


def write(doc: dict[str, Any], path: Path) -> Path:
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path


# --- kcliff baseline update --------------------------------------------------------------------------


def update(tmp_path: Path, doc: dict[str, Any], *extra: str):
    path = write(doc, tmp_path / f"{doc['run_id']}.json")
    return run_kcliff("baseline", "update", str(path), "--dir", str(tmp_path / "baselines"), *extra)


def baseline_file(tmp_path: Path, runner_class: str = "synthetic-2c") -> Path:
    return tmp_path / "baselines" / "4.2.0" / f"{runner_class}.json"


def test_update_creates_and_grows_the_file_for_its_kafka_version_and_runner_class(tmp_path):
    for n in range(3):
        done = update(tmp_path, synthetic_results(n))
        assert done.returncode == 0, done.stderr
    doc = json.loads(baseline_file(tmp_path).read_text())
    assert doc["schema"] == "kcliff.baseline" and doc["schema_version"] == BASELINE.version
    assert doc["runner_class"] == "synthetic-2c" and doc["kafka_version"] == "4.2.0"
    assert len(doc["scenarios"]["reference"]["runs"]) == 9
    assert [s["run_id"] for s in doc["sources"]] == ["synthetic-000", "synthetic-001", "synthetic-002"]


def test_the_same_run_twice_changes_nothing(tmp_path):
    update(tmp_path, synthetic_results(0))
    before = baseline_file(tmp_path).read_bytes()
    done = update(tmp_path, synthetic_results(0))
    assert done.returncode == 0 and "already in this baseline" in done.stdout
    assert baseline_file(tmp_path).read_bytes() == before


def test_window_keeps_the_newest_runs(tmp_path):
    for n in range(4):
        assert update(tmp_path, synthetic_results(n), "--window", "5").returncode == 0
    runs = json.loads(baseline_file(tmp_path).read_text())["scenarios"]["tuned"]["runs"]
    assert len(runs) == 5 and {r["run_id"] for r in runs} == {"synthetic-002", "synthetic-003"}


def test_another_runner_class_is_refused_unless_named(tmp_path):
    update(tmp_path, synthetic_results(0))
    target = tmp_path / "baselines" / "4.2.0" / "synthetic-2c.json"
    before = target.read_bytes()
    other = write(synthetic_results(1, runner_class="big-16c"), tmp_path / "other.json")
    done = run_kcliff("baseline", "update", str(other), "--file", str(target))
    assert done.returncode == 2 and "runner class 'big-16c'" in done.stderr
    assert target.read_bytes() == before
    done = run_kcliff("baseline", "update", str(other), "--file", str(target), "--runner-class", "synthetic-2c")
    assert done.returncode == 0 and "recorded as 'synthetic-2c'" in done.stdout
    assert target.read_bytes() != before


def test_another_kafka_version_is_refused(tmp_path):
    update(tmp_path, synthetic_results(0))
    other = write(synthetic_results(1, kafka_version="4.1.0"), tmp_path / "old.json")
    done = run_kcliff("baseline", "update", str(other), "--file", str(baseline_file(tmp_path)))
    assert done.returncode == 2 and "Kafka 4.1.0" in done.stderr


def test_a_failed_canary_is_refused_and_nothing_is_written(tmp_path):
    update(tmp_path, synthetic_results(0))
    before = baseline_file(tmp_path).read_bytes()
    blind = synthetic_results(1, speeds={"reference": 40.0, "flush-1": 30.0, "inflight-1": 14.0, "tuned": 55.0})
    done = update(tmp_path, blind)
    assert done.returncode == 1 and "failed canary: flush-1" in done.stderr
    assert baseline_file(tmp_path).read_bytes() == before


@pytest.mark.parametrize("mangle, words", [
    (lambda text: text[: len(text) // 2], "not valid JSON (truncated?)"),
    (lambda text: text.replace('"schema_version": 1', f'"schema_version": {RESULTS.version + 1}', 1),
     "newer than this kcliff"),
    (lambda text: text.replace('"kcliff.results"', '"something.else"', 1), "not a kcliff results file"),
    (lambda text: text.replace('"status": "complete"', '"status": "interrupted"', 1), "only complete runs"),
])
def test_unusable_results_are_refused_without_writing(tmp_path, mangle, words):
    update(tmp_path, synthetic_results(0))
    before = baseline_file(tmp_path).read_bytes()
    path = tmp_path / "bad.json"
    path.write_text(mangle(json.dumps(synthetic_results(1))), encoding="utf-8")
    done = run_kcliff("baseline", "update", str(path), "--dir", str(tmp_path / "baselines"))
    assert done.returncode == 2 and words in done.stderr and "Traceback" not in done.stderr
    assert baseline_file(tmp_path).read_bytes() == before


def test_a_newer_baseline_file_is_never_overwritten(tmp_path):
    target = baseline_file(tmp_path)
    target.parent.mkdir(parents=True)
    newer = {**baseline.new_baseline("4.2.0", "synthetic-2c").to_json(), "schema_version": BASELINE.version + 1}
    target.write_text(json.dumps(newer))
    before = target.read_bytes()
    done = update(tmp_path, synthetic_results(0))
    assert done.returncode == 2 and "newer than this kcliff reads" in done.stderr
    assert target.read_bytes() == before


def test_a_changed_scenario_definition_restarts_its_history(tmp_path):
    update(tmp_path, synthetic_results(0))
    done = update(tmp_path, synthetic_results(1, hashes={"tuned": "hash-changed"}))
    assert done.returncode == 0 and "tuned: settings changed" in done.stdout
    doc = json.loads(baseline_file(tmp_path).read_text())
    assert len(doc["scenarios"]["tuned"]["runs"]) == 3 and len(doc["scenarios"]["reference"]["runs"]) == 6


# --- kcliff compare ----------------------------------------------------------------------------------

def seeded_baseline(tmp_path: Path, runs: int = 4) -> Path:
    """A baseline of `runs` synthetic runs, built with the library (the update CLI is tested above)."""
    doc = baseline.new_baseline("4.2.0", "synthetic-2c")
    for n in range(runs):
        doc, _ = baseline.update(doc, ResultsDoc.model_validate(synthetic_results(n, runs=5)))
    baseline.save(doc, baseline_file(tmp_path))
    return tmp_path / "baselines"


def compare(tmp_path: Path, head: dict[str, Any], *extra: str):
    path = write(head, tmp_path / "head.json")
    return run_kcliff("compare", str(path), "--baseline", str(tmp_path / "baselines"), "--json",
                      str(tmp_path / "verdict.json"), *extra)


def test_compare_a_a_passes_with_a_markdown_table_and_json(tmp_path):
    seeded_baseline(tmp_path)
    done = compare(tmp_path, synthetic_results(50, runs=5))
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.startswith("## kcliff compare: pass")
    assert "| tuned | throughput (MB/s) |" in done.stdout and "| flush-1 | throughput |" in done.stdout
    doc = json.loads((tmp_path / "verdict.json").read_text())
    assert doc["verdict"] == "pass" and doc["exit_code"] == 0
    assert {s["id"] for s in doc["scenarios"]} == {"reference", "tuned"}  # canaries are the self-test


def test_compare_finds_a_regression(tmp_path):
    seeded_baseline(tmp_path)
    done = compare(tmp_path, synthetic_results(51, speeds={**SPEEDS, "tuned": 40.0}, runs=5))
    assert done.returncode == 1
    assert "**Verdict: regression**" in done.stdout and "| tuned | throughput (MB/s) |" in done.stdout
    assert "What to change" in done.stdout


def test_compare_finds_a_cliff_when_a_scenario_falls_to_the_canary_tier(tmp_path):
    seeded_baseline(tmp_path)
    done = compare(tmp_path, synthetic_results(52, speeds={**SPEEDS, "tuned": 5.0}, runs=5))
    assert done.returncode == 1 and "**Verdict: cliff**" in done.stdout


def test_compare_is_inconclusive_when_a_canary_does_not_show_its_cliff(tmp_path):
    seeded_baseline(tmp_path)
    done = compare(tmp_path, synthetic_results(53, speeds={**SPEEDS, "inflight-1": 38.0}, runs=5))
    assert done.returncode == 3 and "canary inflight-1 did not show its cliff" in done.stdout


def test_compare_refuses_another_runner_class(tmp_path):
    seeded_baseline(tmp_path, runs=1)
    head = synthetic_results(54, runner_class="big-16c")
    done = compare(tmp_path, head)
    assert done.returncode == 2 and "no baseline for Kafka 4.2.0 on runner class 'big-16c'" in done.stderr
    file = str(baseline_file(tmp_path))
    done = run_kcliff("compare", str(tmp_path / "head.json"), "--baseline", file)
    assert done.returncode == 2 and "never mixed silently" in done.stderr


def test_compare_appends_markdown_for_the_step_summary(tmp_path):
    seeded_baseline(tmp_path, runs=2)
    summary = tmp_path / "summary.md"
    summary.write_text("# earlier step\n")
    done = compare(tmp_path, synthetic_results(55, runs=5), "--markdown", str(summary))
    assert done.stdout == ""
    text = summary.read_text()
    assert text.startswith("# earlier step\n## kcliff compare: ")

"""SYNTHETIC results documents in the shape of docs/results-schema.md, for tests and the report benchmark.

Nothing here was measured: throughput comes from a multiplicative model of the settings (loosely
shaped like the pairwise study's per-level figures) times seeded noise, and p99 from the inverse.
Use them to check the analysis, never as evidence about Kafka.
"""

from __future__ import annotations

import json
import random
import statistics
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

from kcliff.scenario.suites import Cliff, Scenario

RUNNER_CLASS = "synthetic-2c"
# Multiplier on the reference throughput per setting level (defaults are 1.0).
EFFECTS: dict[tuple[str, str], dict[Any, float]] = {
    ("broker", "log.flush.interval.messages"): {1: 0.04, 1000: 0.5, 10000: 1.0},
    ("producer", "max.in.flight.requests.per.connection"): {1: 0.35, 2: 0.8, 5: 1.0},
    ("producer", "batch.size"): {16384: 1.0, 65536: 1.4, 262144: 1.6},
    ("producer", "linger.ms"): {0: 0.7, 5: 1.0, 20: 1.2},
}
REFERENCE_MB = 40.0


def scenarios() -> list[Scenario]:
    """A reference, two canaries and a small pairwise-like set over the four EFFECTS settings."""
    found = [
        Scenario("reference", "Kafka defaults", topic={"partitions": 6}),
        Scenario("flush-1", "fsync every message", broker={"log.flush.interval.messages": 1},
                 topic={"partitions": 6}, cliff=Cliff("fsync per message", "throughput", 0.5)),
        Scenario("inflight-1", "one request in flight", topic={"partitions": 6},
                 producer={"max.in.flight.requests.per.connection": 1},
                 cliff=Cliff("one batch per round trip", "throughput", 0.7)),
    ]
    # An orthogonal array L9(3^4): every pair of levels of every two settings appears once.
    rows = [(0, 0, 0, 0), (0, 1, 1, 1), (0, 2, 2, 2), (1, 0, 1, 2), (1, 1, 2, 0),
            (1, 2, 0, 1), (2, 0, 2, 1), (2, 1, 0, 2), (2, 2, 1, 0)]
    keys = list(EFFECTS)
    for n, row in enumerate(rows, 1):
        blocks: dict[str, dict[str, Any]] = {"broker": {}, "topic": {"partitions": 6}, "producer": {}}
        for (scope, name), level in zip(keys, row):
            blocks[scope][name] = list(EFFECTS[(scope, name)])[level]
        found.append(Scenario(f"pairwise-{n:02d}", "synthetic pairwise row", **blocks))
    return found


def expected_mb(sc: Scenario) -> float:
    mb = REFERENCE_MB
    for (scope, name), levels in EFFECTS.items():
        mb *= levels.get(sc.settings_in(scope).get(name), 1.0)
    return mb


def _run(mb: float, p99: float) -> dict[str, Any]:
    return {"records": 100000, "records_per_sec": mb * 1024, "mb_per_sec": round(mb, 3), "avg_ms": p99 / 2,
            "max_ms": p99 * 1.2, "p50_ms": p99 / 3, "p95_ms": p99 * 0.8, "p99_ms": round(p99, 1),
            "p999_ms": p99 * 1.1, "elapsed_s": 100 / max(mb, 0.01), "complete": True, "stopped_early": False,
            "interim_mb_per_sec": [mb]}


def _stats(values: list[float]) -> dict[str, float]:
    return {"median": statistics.median(values), "min": min(values), "max": max(values)}


def _source(sc: Scenario) -> str:
    """The suite file a real run would record: the factor analysis picks its design rows by it."""
    suite = "reference" if sc.id == "reference" else "canaries" if sc.cliff else "pairwise"
    return f"scenarios/{suite}.yaml"


def scenario_result(sc: Scenario, mb: float, rng: random.Random, repeats: int = 3, noise: float = 0.03) -> dict[str, Any]:
    runs = []
    for _ in range(repeats):
        m = mb * (1 + rng.gauss(0, noise))
        runs.append(_run(m, 4000.0 / m))
    summary = {key: _stats([r[key] for r in runs]) for key in
               ("mb_per_sec", "records_per_sec", "avg_ms", "max_ms", "p50_ms", "p95_ms", "p99_ms", "p999_ms")}
    cliff = sc.cliff
    return {
        "id": sc.id, "description": sc.description, "source": _source(sc), "settings_hash": sc.settings_hash(),
        "applied": sc.as_applied(),
        "cliff": {"stands_for": cliff.stands_for, "metric": cliff.metric, "max_ratio": cliff.max_ratio} if cliff else None,
        "status": "ok", "status_reason": None, "restart_forced": False,
        "started": None, "ended": None, "wall_s": 10.0, "measured_s": 8.0, "overhead_s": 2.0,
        "warmup": None, "runs": runs, "summary": summary,
    }


def results(run_no: int, start: datetime, seed: int, factors: dict[str, float] | None = None,
            kafka_version: str = "4.2.0", runner_class: str = RUNNER_CLASS, noise: float = 0.03) -> dict[str, Any]:
    """One synthetic suite run; `factors` scales chosen scenarios' throughput (a deliberate step)."""
    rng = random.Random(seed)
    started = start + timedelta(days=run_no)
    factors = factors or {}
    docs = [scenario_result(sc, expected_mb(sc) * factors.get(sc.id, 1.0), rng, noise=noise) for sc in scenarios()]
    return {
        "schema": "kcliff.results", "schema_version": 1,
        "run_id": f"{started:%Y%m%dT%H%M%SZ}-syn{run_no:03d}", "status": "complete",
        "environment": {
            "kafka_version": kafka_version, "java": "17", "cores": 2, "memory_gb": 24, "backend": "local",
            "runner_class": runner_class,
            "caps": {"broker_heap_mb": 1024, "broker_cpus": None, "producer_heap_mb": 512, "producer_cpus": None},
            "kcliff_revision": f"syn{run_no:04d}", "hostname": "synthetic", "host_id": "synthetic-host",
            "started": f"{started:%Y-%m-%dT%H:%M:%SZ}", "ended": f"{started + timedelta(minutes=9):%Y-%m-%dT%H:%M:%SZ}",
            "cluster_bringup_s": 14.0,
        },
        "parameters": {"records": 100000, "repeats": 3, "warmup": True, "record_size": 1024, "budget_s": 600,
                       "suites": ["synthetic"], "early_stop": True},
        "scenarios": docs,
    }


def write(doc: dict[str, Any], path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(doc, indent=1), encoding="utf-8")
    return path


START = datetime(2026, 1, 1, 3, 0, tzinfo=timezone.utc)


def history_files(out: Path, runs: int, step_at: int | None = None, step: dict[str, float] | None = None,
                  seed: int = 7) -> list[Path]:
    """`runs` synthetic results files; from run index `step_at` on, `step` scales those scenarios."""
    files = []
    for n in range(runs):
        factors = step if step_at is not None and n >= step_at else None
        files.append(write(results(n, START, seed + n, factors), out / f"results-{n:03d}.json"))
    return files


def reading_history(tmp_path: Path, runs: int, step_at: int, factor: float) -> Path:
    """A history of `runs` nights made from a recorded real check's results (tests/data/results/
    check-consumer-benign.json): each night's reference consumer figures scaled by a seeded 3% jitter,
    and by `factor` from night `step_at` on. SYNTHETIC figures in real-shaped read runs."""
    from kcliff.results import history

    real = json.loads((Path(__file__).parent / "data" / "results" / "check-consumer-benign.json").read_text())
    rng, hist = random.Random(11), tmp_path / "hist"
    for n in range(runs):
        doc = json.loads(json.dumps(real))
        doc["run_id"] = f"202601{n + 1:02d}T030000Z-read"
        doc["environment"]["started"] = f"2026-01-{n + 1:02d}T03:00:00Z"
        doc["environment"]["kcliff_revision"] = f"read{n:03d}"
        ref = next(e for e in doc["scenarios"] if e["id"] == "reference")
        scale = rng.gauss(1.0, 0.03) * (factor if n >= step_at else 1.0)
        for run in ref["read_runs"]:
            if run.get("consumed_mb_per_sec"):
                run["consumed_mb_per_sec"] *= scale
        ref.pop("summary")  # the reader sums the runs up again
        history.add(write(doc, tmp_path / "results" / f"r{n}.json"), hist)
    return hist

"""Latency at a fixed rate in the history: its own series per scenario, a new rate noted as a new
definition, and no point where a run did not hold its rate. On nights made from a real run
(tests/data/results/run-linger500-at-rate.json: the reference and linger-500 at 1,024 records/s)."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import ROOT
from kcliff.judge import regressions
from kcliff.results import history

RESULTS = ROOT / "tests" / "data" / "results" / "run-linger500-at-rate.json"


def night(tmp_path: Path, day: int, target: float | None = None, behind: str | None = None) -> Path:
    """The recorded run as the night of 2026-11-<day>, its runs at rate aimed at `target` records/s, and
    the scenario `behind`'s first run at rate marked as not holding it."""
    raw = json.loads(RESULTS.read_text())
    raw["run_id"] = f"night-{day}"
    raw["environment"]["started"] = f"2026-11-{day:02d}T02:17:00Z"
    for sc in raw["scenarios"]:
        for run in sc["read_runs"]:
            run["rate_target_per_s"] = target or run["rate_target_per_s"]
        if sc["id"] == behind:
            sc["read_runs"][0]["rate_held"] = False
    path = tmp_path / f"night-{day}.json"
    path.write_text(json.dumps(raw))
    return path


def series(tmp_path: Path, *nights: Path) -> dict[str, regressions.Series]:
    for path in nights:
        history.add(path, tmp_path / "hist")
    return {s.key: s for s in regressions.build_series(history.load(tmp_path / "hist"))}


def test_latency_at_rate_is_a_series_of_its_own_per_scenario(tmp_path: Path) -> None:
    found = series(tmp_path, night(tmp_path, 20), night(tmp_path, 21))
    for sid in ("reference", "linger-500"):
        for metric in ("throughput", "p99", "p99_at_rate", "e2e_p99_at_rate"):
            assert len(found[f"{sid} {metric}"].points) == 2, (sid, metric)
    recorded = json.loads(RESULTS.read_text())["scenarios"][1]["read_runs"]
    assert set(found["linger-500 p99_at_rate"].points[0].observations) == {r["rate_p99_ms"] for r in recorded}


def test_a_night_at_another_rate_is_a_new_definition_of_the_series_and_its_throughput_is_not(tmp_path: Path) -> None:
    found = series(tmp_path, night(tmp_path, 20), night(tmp_path, 21, target=2048.0))
    before, after = found["reference p99_at_rate"].points
    assert before.settings_hash != after.settings_hash and after.settings_hash.endswith("@2048/s")
    assert len({p.settings_hash for p in found["reference throughput"].points}) == 1


def test_a_night_that_did_not_hold_its_rate_adds_no_latency_at_rate_point(tmp_path: Path) -> None:
    found = series(tmp_path, night(tmp_path, 20), night(tmp_path, 21, behind="linger-500"))
    assert [p.run_id for p in found["linger-500 p99_at_rate"].points] == ["night-20"]
    assert [p.run_id for p in found["linger-500 throughput"].points] == ["night-20", "night-21"]
    assert len(found["reference p99_at_rate"].points) == 2

"""A run against a baseline another host measured (results/baseline_host.py): each scenario's figures
as ratios to the reference of the run that measured them, which a faster or slower host leaves alone,
where its MB/s and ms would move with the host.

Each measured run of a scenario is divided by its run's reference median of the same metric: this
run's, and for the stored runs the median of the stored reference runs of the same source run. Those
per-run ratios are then judged as kcliff compare judges figures (verdict.compare_scenario). Latency at
a fixed rate is left out: a fixed rate is another share of each host's capacity.
"""

from __future__ import annotations

import statistics
from collections import defaultdict
from typing import Any

from kcliff.judge import verdict
from kcliff.judge.canary import CanaryVerdict
from kcliff.results.baseline import Baseline, StoredScenario, skip_reason
from kcliff.results.metrics import THROUGHPUT, Metric, Workload
from kcliff.results.model import REFERENCE_ID, Entry, ResultsDoc

REFERENCE_NOTE = "reference: the yardstick of every ratio, not judged against another host's baseline"
RATE_NOTE = ("latency at a fixed rate is not compared with another host's baseline: the rate is another share "
             "of each host's capacity")


def _stored_runs(stored: StoredScenario, metric: Metric) -> list[tuple[str, float | None, bool]]:
    """(source run id, value, complete) of each stored run carrying `metric`."""
    if metric.workload is Workload.PRODUCE:
        return [(r.run_id, r.value(metric), r.complete) for r in stored.runs]
    return [(r.run_id, r.value(metric), r.complete) for r in stored.read_runs if r.workload == metric.workload]


def reference_by_run(reference: StoredScenario, metric: Metric) -> dict[str, float]:
    """Each source run's reference median of `metric`, over its finished runs (all, where none finished)."""
    grouped: dict[str, list[tuple[float, bool]]] = defaultdict(list)
    for run_id, value, complete in _stored_runs(reference, metric):
        if value is not None:
            grouped[run_id].append((value, complete))
    return {run_id: statistics.median([v for v, c in pairs if c] or [v for v, _ in pairs])
            for run_id, pairs in grouped.items()}


def stored_ratios(stored: StoredScenario, reference: StoredScenario, metric: Metric) -> list[float | None]:
    """A stored scenario's runs, each over its own source run's reference median (None where that
    run has no reference figure)."""
    medians = reference_by_run(reference, metric)
    return [value / medians[run_id] if value is not None and medians.get(run_id) else None
            for run_id, value, _ in _stored_runs(stored, metric)]


def run_ratios(entry: Entry, reference: Entry, metric: Metric) -> list[float | None]:
    """This run's values of a scenario over this run's reference median."""
    median = reference.median(metric)
    return [v / median if v is not None and median else None for v in entry.values(metric)]


def compare(results: ResultsDoc, base: Baseline, canaries: list[CanaryVerdict],
            **decide_args: Any) -> tuple[list[verdict.ScenarioVerdict], list[str]]:
    """Every non-canary scenario but the reference, its ratios to this run's reference against the
    baseline's ratios to theirs; and the notes saying what was not compared and why."""
    reference, stored_reference = results.reference(), base.scenarios.get(REFERENCE_ID)
    if reference is None or not reference.counts:
        return [], ["this run measured no reference: nothing can be compared with another host's baseline"]
    why = skip_reason(reference, stored_reference)
    if why or stored_reference is None:
        return [], [f"reference: {why}; no ratio can be compared with another host's baseline"]
    ref_mb = reference.median(THROUGHPUT)
    ceiling = verdict.cliff_ceiling(canaries)
    ceiling = ceiling / ref_mb if ceiling is not None and ref_mb else None  # the canaries' tier, as a ratio
    compared: list[verdict.ScenarioVerdict] = []
    notes = [REFERENCE_NOTE]
    at_rate = False
    for entry in results.scenarios:
        if entry.is_canary or entry.id == REFERENCE_ID:
            continue
        stored = base.scenarios.get(entry.id)
        why = skip_reason(entry, stored)
        if why or stored is None:
            notes.append(f"{entry.id}: {why}; not compared")
            continue
        at_rate = at_rate or any(m.workload is Workload.RATE for m in entry.metrics())
        metrics = [m for m in entry.metrics() if m.workload is not Workload.RATE]
        stored_by_metric = {m.name: stored_ratios(stored, stored_reference, m) for m in metrics}
        # a metric the baseline holds no ratio of (a consumer measured for the first time) is not judged
        kept = {name: ratios for name, ratios in stored_by_metric.items() if any(r is not None for r in ratios)}
        compared.append(verdict.compare_scenario(
            entry.id, kept, {m.name: run_ratios(entry, reference, m) for m in metrics}, ceiling, **decide_args))
    if at_rate:
        notes.append(RATE_NOTE)
    return compared, notes

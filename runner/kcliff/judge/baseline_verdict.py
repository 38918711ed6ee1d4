"""A results document judged against a baseline (`kcliff compare`, the nightly, the report's table):
each scenario's metrics against its stored runs, the canaries against the same run's reference.
The baseline itself, what it stores and how it is updated, is results/baseline.py's."""

from __future__ import annotations

from typing import Any

from kcliff.judge import verdict
from kcliff.results import model
from kcliff.results.baseline import Baseline, skip_reason
from kcliff.results.model import ResultsDoc


def compare(results: ResultsDoc, base: Baseline, **decide_args: Any) -> verdict.Verdict:
    """Pure: the verdict for a results document against a baseline document (`kcliff compare`)."""
    canaries = model.canary_verdicts(results)
    ceiling = verdict.cliff_ceiling(canaries)
    compared: list[verdict.ScenarioVerdict] = []
    notes: list[str] = []
    if not canaries:
        notes.append("no canaries in this run: the rig's sensitivity was not self-tested")
    for entry in results.scenarios:
        if entry.is_canary:
            continue  # canaries are the self-test, not a subject of the comparison
        stored = base.scenarios.get(entry.id)
        why = skip_reason(entry, stored)
        if why or stored is None:
            notes.append(f"{entry.id}: {why}; not compared")
            continue
        # a metric the baseline has no runs of yet (a consumer measured for the first time) is not judged
        kept = {m.name: values for m in entry.metrics() if (values := stored.values(m))}
        compared.append(verdict.compare_scenario(
            entry.id, kept, {m.name: entry.values(m) for m in entry.metrics()}, ceiling, **decide_args))
    if results.status is not model.RunStatus.COMPLETE:
        notes.append(f"the run's status is '{results.status}': only what it measured was compared")
    return verdict.judge(compared, canaries, notes=notes, settings=dict(decide_args))

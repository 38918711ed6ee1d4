"""A results document judged against a baseline (`kcliff compare`, the nightly, the report's table):
each scenario's metrics against its stored runs, the canaries against the same run's reference.
Against runs its own host measured, figure for figure; against another host's, each scenario's ratio
to its run's reference (judge/relative.py): which applies is results/baseline_host.py's one rule.
The baseline itself, what it stores and how it is updated, is results/baseline.py's."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from kcliff.judge import relative, verdict
from kcliff.judge.canary import CanaryVerdict, canary_verdict, canary_verdicts
from kcliff.results import baseline as baselines
from kcliff.results import model
from kcliff.results import baseline_host
from kcliff.results.baseline import Baseline, skip_reason
from kcliff.results.baseline_host import Yardstick
from kcliff.results.documents import BASELINE
from kcliff.results.metrics import METRICS, Workload
from kcliff.results.model import ResultsDoc


def compare(results: ResultsDoc, base: Baseline, yardstick: Yardstick | None = None,
            **decide_args: Any) -> verdict.Verdict:
    """Pure: the verdict for a results document against a baseline document (`kcliff compare`), on
    the basis `yardstick` gives (default: baseline_host.yardstick, the rule for whose runs they are).
    Its settings record the basis ("baseline_basis")."""
    found = yardstick or baseline_host.yardstick(results.environment, base)
    canaries = canary_verdicts(results)
    notes = [note for note in (found.note(),) if note is not None]
    if not canaries:
        notes.append("no canaries in this run: the rig's sensitivity was not self-tested")
    if found.basis.absolute:
        compared = _absolute(results, found.baseline, canaries, notes, decide_args)
    else:
        compared, said = relative.compare(results, found.baseline, canaries, **decide_args)
        notes += said
    if results.status is not model.RunStatus.COMPLETE:
        notes.append(f"the run's status is '{results.status}': only what it measured was compared")
    return verdict.judge(compared, canaries, notes=notes,
                         settings={"baseline_basis": str(found.basis), **decide_args})


def _absolute(results: ResultsDoc, base: Baseline, canaries: list[CanaryVerdict], notes: list[str],
              decide_args: dict[str, Any]) -> list[verdict.ScenarioVerdict]:
    """Each non-canary scenario's figures against its stored runs, as measured (notes: what was not)."""
    ceiling = verdict.cliff_ceiling(canaries)
    compared: list[verdict.ScenarioVerdict] = []
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
        if (other_rate := baselines.rate_comparable(entry, stored)) is not None:  # refused, not compared
            notes.append(f"{entry.id}: {other_rate}; latency at rate not compared")
            kept = {name: values for name, values in kept.items() if METRICS[name].workload is not Workload.RATE}
        compared.append(verdict.compare_scenario(
            entry.id, kept, {m.name: entry.values(m) for m in entry.metrics()}, ceiling, **decide_args))
    return compared


def admit(base: Baseline, results: ResultsDoc, window: int | None = None) -> tuple[Baseline, list[str]]:
    """`base` with the results' runs added (results/baseline.py `update`), refused (1) for a failed
    canary: a run that cannot see known cliffs must not become the baseline."""
    baselines.require_complete(results)
    failed = [c for c in canary_verdicts(results) if not c.seen]
    if failed:
        raise baselines.Refused("failed canary: " + "; ".join(f"{c.id} ({c.reason})" for c in failed)
                                + " - a run that cannot see known cliffs must not become the baseline", 1)
    return baselines.update(base, results, window)


def canary_ratios(path: str | Path) -> dict[str, float]:
    """Measured canary ratios (throughput: canary/reference) from a results or a baseline file, for
    the evidence column of the cliff rules."""
    path = Path(path)
    raw = model.read_json(path, "results or baseline file")
    found: ResultsDoc | Baseline = (baselines.load_baseline(path) if raw.get("schema") == BASELINE.name
                                    else baselines.load_results(path))
    reference = found.reference()
    verdicts = [canary_verdict(c, reference) for c in found.canaries()]
    return {v.id: v.ratio for v in verdicts if v.ratio is not None}

"""The run history (results/history.py) as series to judge: each scenario x metric's run medians and
repeats, oldest first, and the change points that start at the newest run (`kcliff history
regressions`, the nightly)."""

from __future__ import annotations

from kcliff.judge import changepoint
from kcliff.judge.changepoint import Point, Series
from kcliff.results.history import HistoryRun
from kcliff.results.metrics import METRICS, Metric, Workload
from kcliff.results.model import Entry


def _point(run: HistoryRun, sc: Entry, metric: Metric) -> Point | None:
    median = sc.median(metric)  # only an entry whose runs count has one
    stats = (sc.summary or {}).get(metric.key)
    if median is None or stats is None or sc.fell_behind(metric):  # no latency at a rate it did not hold
        return None
    # A latency at rate is of its rate as much as of its settings: a new rate starts a new definition.
    at = "".join(f"@{t:g}/s" for t in sc.rate_targets()) if metric.workload is Workload.RATE else ""
    observations = tuple(v for v in sc.values(metric) if v is not None)
    return Point(
        run_id=run.key.run_id, date=run.key.started.strftime("%Y-%m-%d %H:%M"), revision=run.key.revision,
        kafka_version=run.key.kafka_version, settings_hash=str(sc.settings_hash or "") + at, median=median,
        low=stats.min, high=stats.max, observations=observations)


def build_series(runs: list[HistoryRun], runner_class: str | None = None) -> list[Series]:
    """Every scenario x metric series of one runner class (default: the newest run's), oldest first.

    Series from different runner classes are never mixed: their numbers are not comparable."""
    if not runs:
        return []
    runner_class = runner_class or runs[-1].key.runner_class
    points: dict[tuple[str, str], list[Point]] = {}
    for run in runs:
        if run.key.runner_class != runner_class:
            continue
        for sc in run.doc.scenarios:
            for metric in METRICS.values():
                point = _point(run, sc, metric)
                if point is not None:
                    points.setdefault((sc.id, metric.name), []).append(point)
    return [Series(scenario, METRICS[metric], tuple(pts)) for (scenario, metric), pts in points.items()]


def _describe(cp: changepoint.ChangePoint, unit: str) -> str:
    notes = f" [{'; '.join(cp.notes)}]" if cp.notes else ""
    return (f"{cp.scenario} {cp.metric}: {cp.before:.4g} -> {cp.after:.4g} {unit} ({cp.percent:+.1f}%) "
            f"at run {cp.run_id} ({cp.date}), previous run {cp.previous_run_id} ({cp.previous_date}){notes}")


def newest(runs: list[HistoryRun], min_change: float = changepoint.MIN_MAGNITUDE) -> list[str]:
    """The change points at the newest run that go the bad way, described; runs of one class."""
    last = runs[-1].key
    series = build_series(runs, last.runner_class)
    found = changepoint.detect_all(series, min_magnitude=min_change)
    return [_describe(cp, s.metric.unit) for s in series for cp in found[s.key]
            if cp.run_id == last.run_id and cp.regression]

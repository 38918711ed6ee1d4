"""github-action-benchmark "custom" JSON from one results file.

Three files, because the action takes one tool per file and charts one unit per page: throughput.json
for `customBiggerIsBetter` (MB/s: the producer's, and the consumer's where the read side was measured),
p99.json for `customSmallerIsBetter` (ms: the producer's p99, the end-to-end p99, and where a scenario was
measured at a fixed rate its p99 and end-to-end p99 at that rate), and failover.json, smaller is better
too, for the runs through a fault (unavailable, stall, catch_up and recovery in s, p999_failover in ms, lost
and failed records: docs/failover.md). Names are "<scenario id> <metric>", one
series per metric of results.metrics.METRICS (throughput, consumed, p99, e2e_p99, p99_at_rate,
e2e_p99_at_rate): scenario ids are stable, so the action lines series up across runs. A run at a rig
profile (results/rig.py) names its series "<scenario id> <metric> @<profile>": the action charts each
name on its own and alerts against the same name's previous figure, so the trends of two profiles
never mix, and the CPU-bound series keep the names they always had. `range` and `extra` are strings,
as the action shows them verbatim; `extra` says the rig and what bound the scenario's runs.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

from kcliff.results.history import read_results
from kcliff.results.metrics import METRICS, Metric, Workload
from kcliff.results.model import Entry, ResultsDoc
from kcliff.results.rig import CPU_BOUND, Rig, profile_of

# each file's series: whether higher is better, and whether they come from runs through a fault
FILES = {"throughput.json": (True, False), "p99.json": (False, False), "failover.json": (False, True)}


def _fmt(value: float) -> str:
    return f"{value:.3g}" if abs(value) < 100 else f"{value:.0f}"


def series_name(sc: Entry, metric: Metric, runner_class: str) -> str:
    """The action's name of a scenario's metric: the runner class's profile in it unless CPU-bound."""
    profile = profile_of(runner_class)
    return f"{sc.id} {metric.name}" + ("" if profile == CPU_BOUND else f" @{profile}")


def _entry(sc: Entry, metric: Metric, reference: float | None, doc: ResultsDoc) -> dict[str, Any] | None:
    median = sc.median(metric)  # only an entry whose runs count has one
    stats = (sc.summary or {}).get(metric.key)
    # A run that could not hold its rate publishes no latency at rate: its figure is counted from due
    # times never met and grows with the run's length, so a point on the trend would read as a latency
    # at that rate when it is a backlog. The night's table marks it "(not held)" instead.
    if median is None or stats is None or sc.fell_behind(metric):
        return None
    extra = [f"median of {len(sc.values(metric))} runs, min {_fmt(stats.min)} max {_fmt(stats.max)} {metric.unit}",
             f"status {sc.status}"]
    if metric.workload is Workload.RATE:  # the same series at another rate is another figure: say which
        extra.insert(0, "at " + " and ".join(f"{t:g}" for t in sc.rate_targets()) + " records/s")
    if reference:
        extra.append(f"{median / reference:.2f}x reference")
    if sc.settings_hash:
        extra.append(f"settings {sc.settings_hash}")
    extra.append(f"rig {Rig.of(doc.environment).describe()}")
    bound = sc.bound() if metric.workload is Workload.PRODUCE else None  # bounds are the producer runs'
    if bound is not None:
        extra.append(f"bound by {bound.describe()}")
    return {"name": series_name(sc, metric, doc.environment["runner_class"]), "unit": metric.unit, "value": round(median, 4),
            "range": f"± {_fmt((stats.max - stats.min) / 2)}", "extra": "; ".join(extra)}


def entries(doc: ResultsDoc, metric: Metric) -> list[dict[str, Any]]:
    """One entry per measured scenario, in results order; unmeasured scenarios are left out."""
    ref = doc.reference()
    reference = ref.median(metric) if ref is not None else None
    found = (_entry(sc, metric, reference, doc) for sc in doc.scenarios)
    return [e for e in found if e is not None]


def _write_json(path: Path, data: Any) -> None:
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}-", dir=path.parent)
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        json.dump(data, out, indent=2, ensure_ascii=False)
        out.write("\n")
    os.replace(tmp, path)


def export(results: str | Path, out_dir: str | Path) -> list[Path]:
    """Write throughput.json, p99.json and failover.json for RESULTS into OUT_DIR, each where it holds a series
    (the action fails on an empty one: "No benchmark result was found"); return the paths written."""
    doc = read_results(results)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for filename, (higher, through_fault) in FILES.items():
        found = [e for m in METRICS.values() if m.higher_is_better == higher
                 and (m.workload is Workload.FAILOVER) == through_fault for e in entries(doc, m)]
        if found:
            _write_json(out / filename, found)
            written.append(out / filename)
    return written

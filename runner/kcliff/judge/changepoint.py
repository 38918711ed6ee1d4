"""Change points in each scenario x metric series, by E-Divisive means.

E-Divisive (the method Apache Otava and MongoDB run on their performance histories) comes from
MongoDB's `signal-processing-algorithms`. That package pins numpy<2, Python 3.11 exactly and gevent,
so it is installed in a virtualenv of its own (scripts/setup-changepoint.sh) and this module is the
only one that reaches it: one subprocess per batch of series, JSON over a pipe
(judge/changepoint_worker.py). The rest of kcliff sees plain dataclasses.

What is tested: each run contributes its measured repeats (not just its median) as observations,
so a step between runs is visible after a few runs, and a step at the newest run can be told from
noise when that run's repeats all moved. A change index that falls inside a run's repeats is
moved to the nearest run boundary; before/after and the magnitude use the runs' medians.

E-Divisive finds statistically real but tiny shifts too (a 2% dip over a few runs). Like Otava's merge
step, change points smaller than `min_magnitude` are dropped one at a time, smallest first, and the
segments on either side merged, so what is reported is both significant and big enough to matter.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable

from kcliff.errors import InputError
from kcliff.results.metrics import Metric

PVALUE = 0.01
PERMUTATIONS = 99  # p-values resolve to 0.01, enough for PVALUE; cost is linear in this
MIN_MAGNITUDE = 0.05
SEED = 1234
ENGINE_ENV = "KCLIFF_CHANGEPOINT_PYTHON"
ENGINE = "signal-processing-algorithms==2.1.6"  # installed by scripts/setup-changepoint.sh, which reads it here
WORKER = Path(__file__).with_name("changepoint_worker.py")
DEFAULT_ENGINE = Path(sys.prefix) / "changepoint" / "bin" / "python"  # beside kcliff's own virtualenv


@dataclass(frozen=True)
class Point:
    """One run of one scenario in a series."""

    run_id: str
    date: str
    revision: str
    kafka_version: str
    settings_hash: str
    median: float
    low: float
    high: float
    observations: tuple[float, ...]  # the measured repeats; E-Divisive runs on these


@dataclass(frozen=True)
class Series:
    scenario: str
    metric: Metric
    points: tuple[Point, ...]

    @property
    def key(self) -> str:
        return f"{self.scenario} {self.metric.name}"


@dataclass(frozen=True)
class ChangePoint:
    """A shift in a series that starts at run `index` (the first run of the new level)."""

    scenario: str
    metric: str
    index: int
    run_id: str
    date: str
    revision: str
    kafka_version: str
    previous_run_id: str
    previous_date: str
    before: float     # median of the run medians since the previous change point
    after: float      # median of the run medians up to the next change point
    magnitude: float  # after / before - 1
    regression: bool  # the change goes the bad way for this metric
    notes: tuple[str, ...] = field(default_factory=tuple)  # what else changed at this run

    @property
    def percent(self) -> float:
        return 100.0 * self.magnitude


def engine_python() -> Path:
    """The isolated interpreter that has signal-processing-algorithms."""
    override = os.environ.get(ENGINE_ENV)
    return Path(override) if override else DEFAULT_ENGINE


def _flatten(series: Series) -> tuple[list[float], list[int]]:
    """All observations in run order, and where each run's observations start."""
    values: list[float] = []
    starts: list[int] = []
    for point in series.points:
        starts.append(len(values))
        values.extend(point.observations or (point.median,))
    return values, starts


def _run_boundary(tau: int, starts: list[int], total: int) -> int:
    """The run boundary nearest observation index `tau` (run r's repeats go where most of them are)."""
    ends = starts[1:] + [total]
    for r, (start, end) in enumerate(zip(starts, ends)):
        if start <= tau < end:
            return r if end - tau >= tau - start else r + 1
    return len(starts)


def _run_engine(batch: dict[str, list[float]], pvalue: float, permutations: int, seed: int) -> dict[str, list[int]]:
    python = engine_python()
    if not python.exists():
        raise InputError(f"the change-point engine is not installed: {ENGINE} in a Python 3.11 virtualenv of "
                         "its own; in a kcliff checkout run scripts/setup-changepoint.sh (make setup does), else "
                         f"make that virtualenv at {DEFAULT_ENGINE.parents[1]} or set {ENGINE_ENV} to its Python",
                         str(python))
    request = json.dumps({"pvalue": pvalue, "permutations": permutations, "seed": seed, "series": batch})
    proc = subprocess.run([str(python), str(WORKER)], input=request, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        last = (proc.stderr.strip().splitlines() or ["no output"])[-1]
        raise InputError(f"the change-point engine failed: {last}", str(python))
    found: dict[str, list[int]] = json.loads(proc.stdout)["change_points"]  # the worker's, below
    return found


def _notes(before: Point, after: Point) -> tuple[str, ...]:
    notes = []
    if before.kafka_version != after.kafka_version:
        notes.append(f"Kafka {before.kafka_version} -> {after.kafka_version}")
    if before.settings_hash != after.settings_hash:
        notes.append("scenario definition changed")
    if before.revision != after.revision:
        notes.append(f"kcliff {before.revision[:12]} -> {after.revision[:12]}")
    return tuple(notes)


def _change_points(series: Series, boundaries: list[int]) -> list[ChangePoint]:
    medians = [p.median for p in series.points]
    edges = [0, *boundaries, len(medians)]
    found = []
    for i, b in enumerate(boundaries):
        before = statistics.median(medians[edges[i]:b])
        after = statistics.median(medians[b:edges[i + 2]])
        magnitude = after / before - 1 if before else float("inf")
        prev, point = series.points[b - 1], series.points[b]
        found.append(ChangePoint(
            scenario=series.scenario, metric=series.metric.name, index=b, run_id=point.run_id, date=point.date,
            revision=point.revision, kafka_version=point.kafka_version, previous_run_id=prev.run_id,
            previous_date=prev.date, before=before, after=after, magnitude=magnitude,
            regression=series.metric.direction * (after - before) < 0, notes=_notes(prev, point)))
    return found


def _merge_small(series: Series, boundaries: list[int], min_magnitude: float) -> list[ChangePoint]:
    """Drop the smallest change below min_magnitude and recompute, until none is left."""
    while True:
        found = _change_points(series, boundaries)
        small = [cp for cp in found if abs(cp.magnitude) < min_magnitude]
        if not small:
            return found
        boundaries = [b for b in boundaries if b != min(small, key=lambda cp: abs(cp.magnitude)).index]


def detect_all(series: Iterable[Series], pvalue: float = PVALUE, permutations: int = PERMUTATIONS,
               seed: int = SEED, min_magnitude: float = MIN_MAGNITUDE) -> dict[str, list[ChangePoint]]:
    """Change points of every series, keyed by Series.key, in one call to the engine."""
    series = list(series)
    layouts = {s.key: _flatten(s) for s in series}
    batch = {key: values for key, (values, _) in layouts.items() if len(values) >= 4 and len(set(values)) > 1}
    raw = _run_engine(batch, pvalue, permutations, seed) if batch else {}
    result = {}
    for s in series:
        values, starts = layouts[s.key]
        boundaries = sorted({_run_boundary(tau, starts, len(values)) for tau in raw.get(s.key, [])})
        result[s.key] = _merge_small(s, [b for b in boundaries if 0 < b < len(s.points)], min_magnitude)
    return result


def detect(series: Series, pvalue: float = PVALUE, permutations: int = PERMUTATIONS, seed: int = SEED,
           min_magnitude: float = MIN_MAGNITUDE) -> list[ChangePoint]:
    """Change points of one series, oldest first."""
    return detect_all([series], pvalue, permutations, seed, min_magnitude)[series.key]

"""Did a canary show its cliff beside the reference of the same run (the one rule every reader shares:
run table, baselines, the gate, the report), and is that verdict already settled before all its
rounds are measured (the self-test's early stop, judge/stopping.py)?"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass
from typing import Sequence

from kcliff.results.metrics import METRICS, Metric, Workload
from kcliff.results.model import Entry, ResultsDoc, Status, counted


@dataclass(frozen=True)
class CanaryVerdict:
    """Did a canary show its cliff beside the reference measured in the same run?"""

    id: str
    stands_for: str
    metric: str
    max_ratio: float
    ratio: float | None  # throughput: canary / reference; p99: reference / canary
    shows_cliff: bool | None  # None: not measured, so not known
    canary_median: float | None
    reason: str

    @property
    def seen(self) -> bool:
        """Only a cliff that showed proves the rig can see it; not measured proves nothing."""
        return self.shows_cliff is True


def canary_verdict(canary: Entry, reference: Entry | None) -> CanaryVerdict:
    """The one rule: the ratio of the summary medians (stopped runs left out beside finished ones)
    beyond max_ratio. A p99 canary stopped on its cliff has no percentiles, and shows it by stopping."""
    assert canary.cliff is not None, f"{canary.id} is not a canary"
    cliff, metric = canary.cliff, METRICS[canary.cliff.metric]
    if metric.exact:
        return _durability_verdict(canary)
    mine = canary.median(metric)
    ref = reference.median(metric) if reference is not None else None
    ratio = None
    # a median of 0 is measured: a run stopped on its cliff after its first line rounds to 0 MB/s
    if mine is not None and ref:
        ratio = ratio_to_reference(mine, ref, metric)
    if ratio is None and canary.status is Status.CLIFF and not metric.higher_is_better:
        shows: bool | None = True
        reason = "stopped on its cliff"
    elif ratio is None:
        shows = None
        reason = "no reference figures to compare with" if mine is not None else f"not measured ({canary.status})"
    else:
        shows = ratio < cliff.max_ratio
        reason = f"{metric.name} ratio {ratio:.2f} is {'below' if shows else 'not below'} {cliff.max_ratio}"
    return CanaryVerdict(canary.id, cliff.stands_for, metric.name, cliff.max_ratio, ratio, shows, mine, reason)


def _durability_verdict(canary: Entry) -> CanaryVerdict:
    """A canary of lost records shows its cliff by losing any acknowledged record, counted exactly: no ratio, and
    no reference to compare with (the side of a check that keeps unclean election off loses none, and is judged
    on that by the same count)."""
    assert canary.cliff is not None
    lost = canary.lost_records()
    reason = "its log was never read back" if lost is None else f"lost {lost} acknowledged record(s)"
    return CanaryVerdict(canary.id, canary.cliff.stands_for, "lost", canary.cliff.max_ratio, None,
                         None if lost is None else lost > 0, lost, reason)


def median_range(values: Sequence[float], more: int) -> tuple[float, float]:
    """The least and greatest median of `values` and `more` runs still to come, whatever those
    measure (every figure is at least 0)."""
    return (statistics.median([*values, *[0.0] * more]), statistics.median([*values, *[math.inf] * more]))


def canary_settled(canary: Entry, reference: Entry, canary_left: int, reference_left: int) -> bool:
    """Whether canary_verdict is already what it will be once the canary and the reference have
    measured the runs they have left, whatever those measure: its ratio lands on the same side of
    max_ratio at both ends of its range. A side with a stopped run may still change which runs count."""
    assert canary.cliff is not None, f"{canary.id} is not a canary"
    metric = METRICS[canary.cliff.metric]
    if metric.exact:  # a record lost stays lost; none lost yet may still change
        return _durability_verdict(canary).seen
    ranges = []
    for entry, left in ((canary, canary_left), (reference, reference_left)):
        values = _values_so_far(entry, metric, left)
        if values is None:
            return False
        ranges.append(median_range(values, left))
    (mine_low, mine_high), (ref_low, ref_high) = ranges
    ends = (ratio_to_reference(mine_low, ref_high, metric), ratio_to_reference(mine_high, ref_low, metric))
    return len({end < canary.cliff.max_ratio for end in ends}) == 1


# A canary whose runs so far put it this many times below its bound has shown its cliff: its runs
# scatter by 15-25% a run, and the 46 A/A campaign checks measured batching-off, flush-1 and linger-500
# at 0.02-0.12x, 4-15 times below their bounds (docs/gate.md, "Stopping early").
DECISIVE = 3.0
# Where a rig's links or disks are capped, runs hold to the cap and scatter far less: within one check at
# aws-m5.xlarge-gp3 a side's runs differed by 1-7% (docs/profiles.md), so the runs left would have to
# raise a canary's ratio by a quarter to hide a cliff at four fifths of its bound.
DECISIVE_WHERE_BYTES_BIND = 1.25
# Through a fault, an outage lasts what a timeout sets, whatever binds: the reference's runs scattered 10-20%
# and the availability canary's 30-35 s (docs/failover.md), so a quarter also covers them; at 3 the canary
# (0.29-0.35x of a 0.5 bound) could never stop early, and its self-test measured all its runs (4 min 50 s).
DECISIVE_THROUGH_FAULTS = 1.25


def decisive_factor(bytes_capped: bool, metric: Metric | None = None) -> float:
    """How far below its bound a canary's runs so far must put it to have shown its cliff, on this rig,
    for a canary judged on `metric`."""
    if metric is not None and metric.workload is Workload.FAILOVER:
        return DECISIVE_THROUGH_FAULTS
    return DECISIVE_WHERE_BYTES_BIND if bytes_capped else DECISIVE


def canary_decisive(canary: Entry, reference: Entry, canary_left: int, factor: float = DECISIVE) -> bool:
    """Whether the runs measured so far put the canary at `factor` times below its bound or further: it
    shows its cliff, and the runs left would have to multiply its ratio by that to hide it. Only the cliff showing
    is decided this way; a canary near its bound measures its rounds (canary_settled). A stopped run
    counts only where no run is left (a canary decided on its cliff): else a finished one would replace it."""
    assert canary.cliff is not None, f"{canary.id} is not a canary"
    metric = METRICS[canary.cliff.metric]
    if metric.exact:
        return _durability_verdict(canary).seen
    medians = []
    for entry, left in ((canary, canary_left), (reference, 1)):
        values = _values_so_far(entry, metric, left)
        if values is None:
            return False
        medians.append(statistics.median(values))
    return ratio_to_reference(medians[0], medians[1], metric) <= canary.cliff.max_ratio / factor


def _values_so_far(entry: Entry, metric: Metric, left: int) -> list[float] | None:
    """The figures its counted runs give so far; None where there are none, or where a stopped run may
    still give way to a finished one (runs are left)."""
    runs = entry.runs_of(metric)
    values = [v for r in counted(runs) if (v := r.value(metric)) is not None]
    return None if not values or (left and any(r.stopped_early for r in runs)) else values


def ratio_to_reference(mine: float, reference: float, metric: Metric) -> float:
    """A canary's ratio to the reference, below 1 where it is worse: canary / reference for a
    throughput, reference / canary for a latency (infinite over 0)."""
    over, under = (mine, reference) if metric.higher_is_better else (reference, mine)
    return math.inf if under == 0 else over / under


def canary_verdicts(doc: ResultsDoc) -> list[CanaryVerdict]:
    return [canary_verdict(e, doc.reference()) for e in doc.canaries()]

"""A side's run at a fixed rate, after its producer run on the same topic: the load generator
(measure/at_rate.py) sends at the scenario's rate on an open-loop schedule while a consumer with the
scenario's consumer settings reads, and the run's figures become a ReadRun of workload `rate`."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from kcliff.backends.base import Cluster
from kcliff.measure import at_rate
from kcliff.measure.at_rate import RateRun, Watch
from kcliff.measure.rate_output import RateSummary
from kcliff.results.metrics import Workload
from kcliff.results.model import Entry, ReadRun, StopKind
from kcliff.scenario.rate import Rate, RateUnit
from kcliff.scenario.suites import Scenario

# The rate a scenario without one of its own is measured at: a modest service's, well below this rig's
# peak (9-36 MB/s flat out here), where batches do not fill and settings that wait show their wait.
DEFAULT_RATE = Rate(1, RateUnit.MB_PER_S)
# A run at rate measures this many records, so its p99 is the 50th-slowest, not a handful: its length
# follows the rate (4.9 s at 1 MB/s, 2.2 s at a check's usual 2.3 MB/s), within these bounds
# (below the lower one a stall of the machine is the whole run; a slow service's rate is cut at the upper).
RATE_RECORDS = 5_000
# A check's self-test asks only whether the latency canary's median at rate is far above the
# reference's (0.03-0.10x against a 0.3 bound): a median needs far fewer records than a p99, and at a
# tenth of a cold warm-up's peak (0.2 MB/s here) 5,000 records were capped at 15 s a run, 60 s a check.
SELF_TEST_RATE_RECORDS = 500
MIN_RUN_S, MAX_RUN_S = 2.0, 15.0
WARMUP_S = 1.0  # the clients' connections, first metadata and the JIT's first compiles, not measured
# kcliff check's rate where the config repo gives none: a service with headroom runs well below its
# peak, and at a tenth of it batches fill slowly enough that a setting that waits (linger.ms,
# fetch.max.wait.ms) shows its wait (docs/gate.md, "Latency at rate").
PEAK_SHARE = 0.1


def rate_of(sc: Scenario, run_rate: Rate | None, group_rate: Rate | None = None) -> Rate:
    """The scenario's own rate, else the run's (--rate), else its group's share of a peak, else DEFAULT_RATE."""
    return sc.rate or run_rate or group_rate or DEFAULT_RATE


def share_of_peak(entry: Entry, share: float) -> Rate | None:
    """`share` of the MB/s `entry`'s warm-up reached flat out, to two significant figures (None before
    a warm-up with a figure): a rate every side of its group is measured at."""
    peak = entry.warmup.mb_per_sec if entry.warmup is not None else None
    if not peak:
        return None
    return Rate(float(f"{share * peak:.2g}"), RateUnit.MB_PER_S)


def run_seconds(target: float, records: int = RATE_RECORDS) -> float:
    """How long a run at `target` records/s measures: `records` of them, within MIN_RUN_S and MAX_RUN_S."""
    return min(MAX_RUN_S, max(MIN_RUN_S, records / target))


def rate_run(cluster: Cluster, sc: Scenario, topic: str, rate: Rate, log_path: Path, cap_s: float,
             watch: Watch | None = None, records: int = RATE_RECORDS) -> ReadRun:
    """One fixed-rate run of `sc` at `rate`, as long as run_seconds says for `records`; one that could
    not finish within cap_s is cut there."""
    target = rate.records_per_s(sc.bytes_per_record())  # a payload's records: their mean bytes
    consumer: dict[str, Any] = dict(sc.consumer)
    duration = min(run_seconds(target, records), max(1.0, cap_s - WARMUP_S - at_rate.START_S - at_rate.DRAIN_S))
    ran = at_rate.rate_run(cluster, topic, target, duration, WARMUP_S, sc.as_applied()["producer"], consumer,
                           log_path, watch, record_size=sc.record_size, payload=sc.prepared_payload(),
                           producers=sc.producers, client=sc.client, consuming=sc.consuming)
    return to_read_run(ran, target)


def to_read_run(ran: RateRun, target: float) -> ReadRun:
    """The run as the results document keeps it: a rate not held is complete, and says so (rate_held)."""
    if ran.summary is None:
        return ReadRun(workload=Workload.RATE, records=0, elapsed_s=ran.elapsed_s, complete=False,
                       exit_code=ran.exit_code, stop_kind=ran.stop_kind or StopKind.FAILED, stop_reason=ran.failure,
                       rate_target_per_s=target)
    return ReadRun(workload=Workload.RATE, elapsed_s=ran.elapsed_s, exit_code=ran.exit_code, **_figures(ran.summary))


def _figures(got: RateSummary) -> dict[str, Any]:
    e2e = got.end_to_end
    return {"records": got.acked, "rate_target_per_s": got.target_rate, "rate_achieved_per_s": round(got.achieved_rate, 1),
            "rate_held": got.held_rate, "rate_unsent": got.unsent, "rate_unacked": got.unacked,
            "rate_unconsumed": got.unconsumed, "rate_errors": got.errors,
            "rate_p50_ms": got.produce.p50_ms, "rate_p99_ms": got.produce.p99_ms,
            "rate_p999_ms": got.produce.p999_ms, "rate_max_ms": got.produce.max_ms,
            "rate_histogram_us": got.produce.histogram_us,
            "rate_e2e_p50_ms": e2e.p50_ms if e2e else None, "rate_e2e_p99_ms": e2e.p99_ms if e2e else None,
            "rate_e2e_p999_ms": e2e.p999_ms if e2e else None,
            "rate_e2e_histogram_us": e2e.histogram_us if e2e else None, "compression_ratio": got.compression_ratio}

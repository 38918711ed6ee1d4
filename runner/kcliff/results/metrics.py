"""The figures kcliff judges and the workloads that measure them: each metric carries its own rules
(direction, resolution, the floor on a minimum effect), so every judge reads them from one place."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class Workload(StrEnum):
    """What a scenario measures: the producer flat out always (it fills the topic the others read),
    and when asked a consumer reading the topic, end-to-end latency, or latency at a fixed production
    rate (the load generator, produce and end-to-end, from each record's due time: docs/loadgen.md)."""

    PRODUCE = "produce"
    CONSUME = "consume"
    END_TO_END = "end-to-end"
    RATE = "rate"


# The runs after a side's producer run, on its topic, in this order (measure/read_round.py).
READ_WORKLOADS = (Workload.CONSUME, Workload.END_TO_END, Workload.RATE)
READ_SIDE = (Workload.CONSUME, Workload.END_TO_END)  # the consumer's: what a consumer change brings in


@dataclass(frozen=True)
class Metric:
    """A figure kcliff judges: its name in verdicts and charts, its key in a run and a summary."""

    name: str
    key: str
    unit: str
    higher_is_better: bool
    workload: Workload = Workload.PRODUCE  # whose runs carry it: the producer's, the consumer's or end-to-end's
    # How large a worsening a comparison's interval must rule out before "pass" is said (a fraction;
    # None: no such check, an unresolved metric does not by itself make a verdict inconclusive).
    resolution: float | None = None
    # The least the metric must move to count, whatever minimum effect a comparison asks for.
    min_effect_floor: float = 0.0

    @property
    def direction(self) -> int:
        return 1 if self.higher_is_better else -1


# A throughput must rule out a 20% drop (twice the gate's default minimum effect, judge/verdict.py), so a
# pass means "no 20% drop", not "too noisy to tell"; the consumer's MB/s is judged like the producer's.
# p99's run-to-run spread is often larger than any effect worth gating on: it fails the gate on a certain
# regression, never blocks a pass alone; end-to-end p99 (of 200 records) likewise.
THROUGHPUT_RESOLUTION = 0.2
THROUGHPUT = Metric("throughput", "mb_per_sec", "MB/s", True, resolution=THROUGHPUT_RESOLUTION)
P99 = Metric("p99", "p99_ms", "ms", False)
CONSUMED = Metric("consumed", "consumed_mb_per_sec", "MB/s", True, Workload.CONSUME, resolution=THROUGHPUT_RESOLUTION)
# End-to-end p99 is the second-slowest of 200 round trips: five checks of one benign change put it at
# 0.73-1.24x, and the settings that hurt it cost several times that (docs/gate.md, "End-to-end p99 counts
# only beyond 50%").
E2E_P99 = Metric("e2e_p99", "e2e_p99_ms", "ms", False, Workload.END_TO_END, min_effect_floor=0.5)
# Latency at a fixed rate: no resolution yet (it fails a check on a certain regression, never blocks a pass
# alone) until A/A checks have measured its spread (issue #28).
RATE_P99 = Metric("p99_at_rate", "rate_p99_ms", "ms", False, Workload.RATE)
RATE_E2E_P99 = Metric("e2e_p99_at_rate", "rate_e2e_p99_ms", "ms", False, Workload.RATE)
METRICS: dict[str, Metric] = {m.name: m for m in (THROUGHPUT, P99, CONSUMED, E2E_P99, RATE_P99, RATE_E2E_P99)}
SUMMARY_KEYS = ("mb_per_sec", "records_per_sec", "avg_ms", "max_ms", "p50_ms", "p95_ms", "p99_ms", "p999_ms")
READ_SUMMARY_KEYS = ("consumed_mb_per_sec", "consumed_records_per_sec", "e2e_avg_ms", "e2e_p50_ms", "e2e_p99_ms",
                     "e2e_p999_ms", "rate_achieved_per_s", "rate_p50_ms", "rate_p99_ms", "rate_p999_ms",
                     "rate_e2e_p50_ms", "rate_e2e_p99_ms", "rate_e2e_p999_ms")

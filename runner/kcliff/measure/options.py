"""How a suite measures: records per run, repeats, budgets, the early cliff stop, priming. Built once
from a command line (or a resumed results file) and never changed while measuring."""

from __future__ import annotations

from dataclasses import dataclass

from kcliff.measure import faults
from kcliff.measure.rate_side import RATE_RECORDS
from kcliff.results.model import Entry
from kcliff.scenario.rate import Rate
from kcliff.scenario.settings import RECORD_SIZE

CLIFF_THRESHOLD = 0.5  # a scenario below half the reference's MB/s is on a cliff
# of unmeasured load before the first measurement (priming.prime): brokers on the JVM's own JIT kept
# speeding up for minutes after 45 s; the local brokers run at C1 and were at their level after 10 s
# (docs/measurements.md, "The brokers' JIT")
PRIME_S = 45.0
PRIME_C1_S = 10.0


def prime_seconds(backend: str, asked: float | None) -> float:
    """The priming a backend's brokers need where --prime gives none: only the local backend starts its
    brokers at C1 (kafka/dist.BROKER_JVM_OPTIONS); compose's and an existing cluster's JIT is their own."""
    if asked is not None:
        return asked
    return PRIME_C1_S if backend == "local" else PRIME_S


@dataclass(frozen=True)
class Options:
    records: int = 100_000  # records of RECORD_SIZE; a scenario of another size sends as many bytes (sized)
    warmup_records: int | None = None
    repeats: int = 3
    budget_s: float = 600.0
    early_stop: bool = True
    cliff_threshold: float = CLIFF_THRESHOLD
    prime_s: float = PRIME_S
    run_s: float | None = None  # stretch measured runs to about this long (see records_for)
    rate: Rate | None = None  # the fixed rate latency is measured at where a scenario gives none (--rate)
    # where neither gives one, this share of the peak MB/s of a group's first scenario (a check's base),
    # from its warm-up, for every side of the group (rate_side.share_of_peak); None: rate_side.DEFAULT_RATE
    rate_share: float | None = None
    rate_records: int = RATE_RECORDS  # records a run at rate measures (rate_side.run_seconds)
    # False where nothing judged comes from the producer's flat-out runs (a consumer-only check): they
    # only fill the topic, and stop once it holds what the reads read (read_round.topic_holds_reads)
    flat_out_judged: bool = True
    # the longest each step of a run through a fault is waited for, where shorter than the scenario's own
    # bound (a check's: its sides' shorter, failover_side.shared_bound_s); None: each scenario's own
    fault_bound_s: float | None = None

    def records_for(self, *entries: Entry) -> int:
        """Records per measured run: --records, or more where the latest runs (the warm-ups before the
        first) show that would take under run_s seconds at their mean rate: runs of under a second
        scatter widely. Given the entries of one interleaved round, every side of it runs the same count."""
        rates = [r for r in (_latest_rate(e) for e in entries) if r]
        if self.run_s is None or not rates:
            return self.records
        return max(self.records, min(int(sum(rates) / len(rates) * self.run_s), 20 * self.records))

    def warmup(self) -> int:
        return self.warmup_records if self.warmup_records is not None else max(self.records // 2, 1000)


def _latest_rate(entry: Entry) -> float | None:
    """The entry's latest records/s, in records of RECORD_SIZE (as --records counts them)."""
    ran = entry.attempts()
    rate = ran[-1].records_per_sec if ran else None
    return rate * int(entry.applied.get("record_size", RECORD_SIZE)) / RECORD_SIZE if rate else None


def sized(records: int, record_size: int) -> int:
    """A count of RECORD_SIZE records (--records, records_for) as records of `record_size`: as many
    bytes, so a scenario of 20 KiB records runs about as long and fills as much disk as a 1 KiB one."""
    return max(1, records * RECORD_SIZE // record_size)


def disk_needed(opts: Options, topics_at_once: int) -> int:
    """Bytes the largest phase writes: every record on three replicas, all on this one disk."""
    records = opts.warmup() + opts.repeats * opts.records
    return 3 * RECORD_SIZE * records * max(topics_at_once, 1) + faults.DISK_SLACK

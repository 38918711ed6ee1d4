"""Read the load generator's output (kafka/loadgen.py runs it; docs/loadgen.md): one JSON object a
line, progress lines at its interval and one summary at the end, into typed figures. Each summary
carries its histograms' HdrHistogram encodings, so repeats merge exactly (`merged`)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from enum import Enum
from typing import Iterable

import pydantic
from hdrh.histogram import HdrHistogram

# A fixed-rate run held its rate when the records acknowledged over the measured duration reached
# this fraction of the target: the rest never sent in time, failed or never acknowledged.
RATE_TOLERANCE = 0.05
SIGNIFICANT_DIGITS = 3  # as the load generator records (LoadGen.DIGITS)
MERGE_HIGHEST_US = 3_600_000_000  # a merged histogram's range: one hour, past any run's longest


def held(target_rate: float, achieved_rate: float) -> bool:
    """The one rule for a rate held: achieved within RATE_TOLERANCE of the target."""
    return achieved_rate >= (1 - RATE_TOLERANCE) * target_rate


class LineKind(str, Enum):
    PROGRESS = "progress"
    SUMMARY = "summary"
    RESUMED = "resumed"  # through a fault: a partition read again after a gap (Failover.read)


@dataclass(frozen=True)
class Latency:
    """Latency percentiles in ms over `count` records (None when none was timed); a summary's also
    has its histogram (microseconds), HdrHistogram's compressed encoding in base64."""
    count: int
    p50_ms: float | None
    p90_ms: float | None
    p99_ms: float | None
    p999_ms: float | None
    max_ms: float | None
    histogram_us: str | None = None

    def decoded(self) -> HdrHistogram:
        if self.histogram_us is None:
            raise ValueError("a progress line's latency carries no histogram")
        return HdrHistogram.decode(self.histogram_us.encode())


@dataclass(frozen=True)
class RateProgress:
    """One interval: counts since the start (warm-up included), this interval's latency."""
    type: LineKind
    elapsed_s: float  # since the measured duration began; negative in the warm-up
    sent: int
    acked: int
    errors: int
    consumed: int | None
    behind_ms: float  # how late the latest send was against its schedule
    produce: Latency
    end_to_end: Latency | None


@dataclass(frozen=True)
class Gap:
    """The longest time one partition went without a write acknowledged (or a record read): from
    `from_s` (seconds after the run's first due record) on `partition`; `open` when it had not ended
    by the run's end, so it lasted longer than `ms`."""
    ms: float
    partition: int | None
    from_s: float | None
    open: bool


@dataclass(frozen=True)
class Resumed:
    """Through a fault, a partition this consumer read again after more than the run's late time without
    a read of it: from `from_s` (its previous read here) to `at_s`, seconds after the run's first due
    record, with the sequence number of the record that ended the gap."""
    type: LineKind
    partition: int
    from_s: float
    at_s: float
    seq: int


@dataclass(frozen=True)
class FailoverFigures:
    """What a run through a fault measured beside its latency (LoadGen --failover, Failover.java)."""
    t0_wall_ms: int  # the wall clock at the run's first due record: kcliff's events go on this time line
    partitions: int
    produce_gap: Gap
    consume_gap: Gap | None  # None: no consumer
    read_twice: int | None  # records the consumer read more than once
    late_ms: float  # a read this long after its record was due is the consumer catching up
    last_late_read_s: float | None  # seconds after t0 of the last such read; None: none was late
    acked: int  # records acknowledged, warm-up included
    verified: bool  # the log was read back to its end, so `lost` and `log_duplicates` are exact
    verify_note: str | None
    lost: int | None  # acknowledged records the log no longer holds
    lost_seqs: list[int]  # the first of them
    log_duplicates: int | None  # records the log holds more than once (a retried send)


@dataclass(frozen=True)
class RateSummary:
    """A whole run, counting only the records due in its measured duration (not the warm-up's)."""
    type: LineKind
    target_rate: float
    record_size: int  # the mean value's bytes, for a payload file
    duration_s: float
    warmup_s: float
    scheduled: int  # records due in the measured duration
    sent: int
    unsent: int  # due before the end but not sent by then: the sender was that far behind
    acked: int
    errors: int
    unacked: int  # sent, and neither acknowledged nor failed within the drain time
    achieved_rate: float  # acknowledged records per second of the measured duration
    max_behind_ms: float
    end_behind_ms: float
    first_error: str | None
    produce: Latency
    consumed: int | None  # None: run without a consumer
    unconsumed: int | None  # acknowledged, and not read within the drain time
    end_to_end: Latency | None
    producers: int = 1  # producer clients that shared the rate (recorded output before #29: one)
    # uncompressed / compressed bytes of its producer's batches; None: no batch, or a load generator before it
    compression_ratio: float | None = None
    failover: FailoverFigures | None = None  # a run through a fault (--failover) only
    # a service's group (--group-id, no fault): how long its members took to join before the first send,
    # the commits they made and those a rebalance refused
    group_join_ms: int | None = None
    commits: int | None = None
    commits_refused: int | None = None

    @property
    def held_rate(self) -> bool:
        return held(self.target_rate, self.achieved_rate)


@dataclass(frozen=True)
class RateOutput:
    progress: list[RateProgress]
    summary: RateSummary | None  # None: the tool ended before its summary
    resumed: list[Resumed] = field(default_factory=list)


_PROGRESS = pydantic.TypeAdapter(RateProgress)
_SUMMARY = pydantic.TypeAdapter(RateSummary)
_RESUMED = pydantic.TypeAdapter(Resumed)


class OutputError(ValueError):
    """A line that looks like the load generator's but does not read as one: a bug, not a user's input."""


def parse(lines: Iterable[str]) -> RateOutput:
    """The progress lines and the summary among `lines`; lines that are no JSON object are skipped
    (a JVM's own warnings)."""
    progress: list[RateProgress] = []
    summary: RateSummary | None = None
    resumed: list[Resumed] = []
    for number, line in enumerate(lines, 1):
        text = line.strip()
        if not text.startswith("{"):
            continue
        try:
            fields = json.loads(text)
            kind = LineKind(fields.get("type"))
            if kind is LineKind.PROGRESS:
                progress.append(_PROGRESS.validate_python(fields))
            elif kind is LineKind.RESUMED:
                resumed.append(_RESUMED.validate_python(fields))
            else:
                summary = _SUMMARY.validate_python(fields)
        except (ValueError, AttributeError) as e:  # pydantic's ValidationError is a ValueError
            raise OutputError(f"load generator output line {number}: {e}") from None
    return RateOutput(progress, summary, resumed)


def merged(latencies: Iterable[Latency]) -> Latency:
    """Percentiles of several runs' histograms added together: exact, not an average of percentiles."""
    total = HdrHistogram(1, MERGE_HIGHEST_US, SIGNIFICANT_DIGITS)
    for latency in latencies:
        total.add(latency.decoded())
    count = total.get_total_count()

    def ms(value: int) -> float | None:
        return value / 1000 if count else None
    at = total.get_value_at_percentile
    return Latency(count, ms(at(50)), ms(at(90)), ms(at(99)), ms(at(99.9)), ms(total.get_max_value()))

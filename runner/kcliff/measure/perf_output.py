"""Parse kafka-producer-perf-test (ProducerPerformance) output lines.

Interim, every reporting interval:
  N records sent, X records/sec (Y MB/sec), A ms avg latency, M ms max latency.
Final summary (and, with --warmup-records, a second "steady state" one):
  N records sent, X records/sec (Y MB/sec), A ms avg latency, M ms max latency,
  P50 ms 50th, P95 ms 95th, P99 ms 99th, P999 ms 99.9th.
Numbers have been printed with 6 decimals and with 1 by different versions: any decimal parses.
With --print-metrics the producer's metrics follow, one a line (compression_ratio reads one of them).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_NUM = r"([0-9]+(?:\.[0-9]+)?)"
_HEAD = re.compile(
    rf"^\s*{_NUM} (steady state )?records sent, {_NUM} records/sec \({_NUM} MB/sec\), "
    rf"{_NUM} ms avg latency, {_NUM} ms max latency"
)
_PCT = re.compile(
    rf", {_NUM} ms 50th, {_NUM} ms 95th, {_NUM} ms 99th, {_NUM} ms 99\.9th\.\s*$"
)


@dataclass(frozen=True)
class PerfLine:
    records: int
    records_per_sec: float
    mb_per_sec: float
    avg_ms: float
    max_ms: float
    steady_state: bool = False
    p50_ms: float | None = None
    p95_ms: float | None = None
    p99_ms: float | None = None
    p999_ms: float | None = None

    @property
    def is_summary(self) -> bool:
        return self.p99_ms is not None


def parse_line(line: str) -> PerfLine | None:
    """A PerfLine for an interim or summary line; None for anything else (warnings, metrics)."""
    head = _HEAD.match(line)
    if head is None:
        return None
    records, steady, rps, mbps, avg, mx = head.groups()
    pct = _PCT.search(line)
    p50 = p95 = p99 = p999 = None
    if pct is not None:
        p50, p95, p99, p999 = (float(x) for x in pct.groups())
    return PerfLine(int(float(records)), float(rps), float(mbps), float(avg), float(mx),
                    steady is not None, p50, p95, p99, p999)


def summary(lines: list[str]) -> PerfLine | None:
    """The run's summary: the steady-state one when present, else the last full summary line."""
    found = [p for p in map(parse_line, lines) if p is not None and p.is_summary]
    steady = [p for p in found if p.steady_state]
    last = steady or found
    return last[-1] if last else None


# --print-metrics, after the summaries: "producer-metrics:compression-rate-avg:{client-id=...}  : 0.287"
# (Kafka's ToolsUtils.printMetrics, doubles to 3 places; NaN when no batch was sent)
_COMPRESSION_RATE = re.compile(r"^producer-metrics:compression-rate-avg:\{[^}]*\}\s*:\s*(\S+)\s*$")


def compression_ratio(lines: list[str]) -> float | None:
    """Uncompressed over compressed bytes of the run's batches: 1 / the producer's compression-rate-avg
    (its compressed share), from --print-metrics' output; None when the tool printed none or NaN."""
    for line in reversed(lines):
        found = _COMPRESSION_RATE.match(line.strip())
        if found is None:
            continue
        try:
            rate = float(found.group(1))
        except ValueError:
            return None
        return round(1 / rate, 3) if rate > 0 and rate == rate else None
    return None

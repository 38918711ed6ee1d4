"""Parse the read side's tools: kafka-consumer-perf-test (ConsumerPerformance) and EndToEndLatency.

ConsumerPerformance with --show-detailed-stats prints a header, then one line per reporting interval
(and no final summary line):
  time, threadId, data.consumed.in.MB, MB.sec, data.consumed.in.nMsg, nMsg.sec, rebalance.time.ms,
  fetch.time.ms, fetch.MB.sec, fetch.nMsg.sec
  2026-11-23 20:01:02:345, 0, 12.3456, 11.2000, 12642, 11468.0000, 0, 1000, 11.2, 11468.0
MB and the record count are cumulative; the rates are the interval's. A timed-out run first prints
"WARNING: Exiting before consuming the expected number of messages".
EndToEndLatency prints "i<TAB>ms" every 1000 records, then
  Avg latency: 1.2345 ms
  Percentiles: 50th = 1, 99th = 3, 99.9th = 9
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime

_NUM = r"([0-9]+(?:\.[0-9]+)?)"
_PROGRESS = re.compile(
    rf"^(\d{{4}}-\d\d-\d\d \d\d:\d\d:\d\d:\d{{3}}), \d+, {_NUM}, {_NUM}, (\d+), {_NUM}, (\d+), (\d+), {_NUM}, {_NUM}\s*$")
_AVG = re.compile(rf"^Avg latency: {_NUM} ms\s*$")
_PCT = re.compile(r"^Percentiles: 50th = (\d+), 99th = (\d+), 99\.9th = (\d+)\s*$")
TIME_FORMAT = "%Y-%m-%d %H:%M:%S:%f"


@dataclass(frozen=True)
class Progress:
    """One reporting interval of ConsumerPerformance: totals so far and the interval's rates."""

    at: datetime
    total_mb: float
    total_records: int
    interval_mb_per_sec: float
    rebalance_ms: int
    fetch_ms: int  # the interval's time spent fetching: its length less any group rebalance


def parse_progress(line: str) -> Progress | None:
    found = _PROGRESS.match(line)
    if found is None:
        return None
    when, total_mb, mbps, records, _rps, rebalance, fetch_ms, _fmbps, _frps = found.groups()
    return Progress(datetime.strptime(when, TIME_FORMAT), float(total_mb), int(records), float(mbps), int(rebalance),
                    int(fetch_ms))


@dataclass(frozen=True)
class Consumed:
    """What a consumer read: the rate between its first and last report, which leaves out the group
    join and the first interval's fetch start-up."""

    records: int
    mb: float
    mb_per_sec: float
    records_per_sec: float
    rebalance_ms: int
    fetch_mb_per_sec: float | None  # over the fetching time alone (the tool's fetch.MB.sec), rebalances left out


def gave_up(lines: list[str]) -> bool:
    """The tool stopped before reading every record it was asked for (no record came for --timeout)."""
    return any(line.startswith("WARNING: Exiting before consuming") for line in lines)


def consumed(lines: list[str]) -> Consumed | None:
    """The steady rate over the reports; None with fewer than two reports (too short to tell)."""
    reports = [p for p in map(parse_progress, lines) if p is not None]
    if len(reports) < 2:
        return None
    first, last = reports[0], reports[-1]
    seconds = (last.at - first.at).total_seconds()
    if seconds <= 0:
        return None
    fetching_s = sum(p.fetch_ms for p in reports[1:]) / 1000
    return Consumed(last.total_records, last.total_mb, (last.total_mb - first.total_mb) / seconds,
                    (last.total_records - first.total_records) / seconds, sum(p.rebalance_ms for p in reports),
                    (last.total_mb - first.total_mb) / fetching_s if fetching_s > 0 else None)


@dataclass(frozen=True)
class Latency:
    """EndToEndLatency's figures: each record produced (acks as given) then polled, one at a time."""

    avg_ms: float
    p50_ms: float
    p99_ms: float
    p999_ms: float


def latency(lines: list[str]) -> Latency | None:
    avg = next((float(m.group(1)) for m in map(_AVG.match, lines) if m), None)
    pct = next((m.groups() for m in map(_PCT.match, lines) if m), None)
    if avg is None or pct is None:
        return None
    return Latency(avg, *(float(x) for x in pct))

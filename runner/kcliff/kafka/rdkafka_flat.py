"""Flat out on librdkafka (`--num-records N`): N records as fast as the producer takes them, each timed
from its produce() call to its delivery report, printed exactly as kafka-producer-perf-test prints (as
loadgen's FlatOut.java does): an interim line each reporting interval, printed when a delivery report
comes (so a cluster that acknowledges nothing leaves it silent, which kcliff reads as a stall), the
summary, a "steady state" one for the records after --warmup-records, and the compression rate as
--print-metrics shows it. One parser (measure/perf_output.py) and one set of stop rules for all three.
"""

from __future__ import annotations

import argparse
import sys
import time
from typing import Any

from hdrh.histogram import HdrHistogram

from kcliff.kafka.rdkafka_client import Compression, Records, producer, reach

MB = 1024.0 * 1024.0
HIGHEST_US = 3_600_000_000


class Stats:
    """The perf tool's Stats: a whole-run tally and a window printed every `interval_ms`."""

    def __init__(self, interval_ms: int, started: float) -> None:
        self.interval_s = interval_ms / 1000
        self.start = self.window_start = started
        self.count = self.bytes = 0
        self.total_ms = self.max_ms = 0.0
        self.window_count = self.window_bytes = 0
        self.window_total_ms = self.window_max_ms = 0.0
        self.histogram = HdrHistogram(1, HIGHEST_US, 3)

    def record(self, latency_s: float, size: int, now: float, report: bool = True) -> None:
        ms = latency_s * 1000
        self.count += 1
        self.bytes += size
        self.total_ms += ms
        self.max_ms = max(self.max_ms, ms)
        self.histogram.record_value(max(1, round(latency_s * 1e6)))
        self.window_count += 1
        self.window_bytes += size
        self.window_total_ms += ms
        self.window_max_ms = max(self.window_max_ms, ms)
        if report and now - self.window_start >= self.interval_s:
            elapsed = now - self.window_start
            print(f"{self.window_count} records sent, {self.window_count / elapsed:.1f} records/sec "
                  f"({self.window_bytes / elapsed / MB:.2f} MB/sec), {self.window_total_ms / self.window_count:.1f} ms "
                  f"avg latency, {self.window_max_ms:.1f} ms max latency.", flush=True)
            self.window_start = now
            self.window_count = self.window_bytes = 0
            self.window_total_ms = self.window_max_ms = 0.0

    def total(self, steady: bool) -> str:
        elapsed = max(time.monotonic() - self.start, 1e-9)
        at = self.histogram.get_value_at_percentile
        pct = ", ".join(f"{at(q) // 1000} ms {name}" for q, name in ((50, "50th"), (95, "95th"), (99, "99th"),
                                                                      (99.9, "99.9th")))
        avg = self.total_ms / self.count if self.count else 0.0
        return (f"{self.count}{' steady state' if steady else ''} records sent, {self.count / elapsed:f} records/sec "
                f"({self.bytes / elapsed / MB:.2f} MB/sec), {avg:.2f} ms avg latency, {self.max_ms:.2f} ms max "
                f"latency, {pct}.")


def run(args: argparse.Namespace, config: dict[str, Any], records: Records) -> None:
    compression = Compression()
    client = producer(config, compression)
    reach(client, args.topic)
    quiet = max(0, args.warmup_records)
    if quiet:
        print(f"Warmup first {quiet} records. Steady state results will print after the complete test summary.",
              flush=True)
    began = time.monotonic()
    stats = Stats(args.reporting_interval_ms, began)
    steady: list[Stats] = []  # begun with the first record after the warm-up ones

    def delivered(sent_at: float, size: int, measured: bool):  # type: ignore[no-untyped-def]
        def report(err, _msg):  # type: ignore[no-untyped-def]
            if err is not None:
                return  # the perf tool prints nothing of a failed send either
            now = time.monotonic()
            stats.record(now - sent_at, size, now)
            if measured and steady:
                steady[0].record(now - sent_at, size, now, report=False)
        return report

    for i in range(args.num_records):
        if i == quiet and quiet:
            steady.append(Stats(args.reporting_interval_ms, time.monotonic()))
        key, value = records.next()
        if args.throughput > 0:  # hold an average, as the perf tool's --throughput does
            ahead = i / args.throughput - (time.monotonic() - began)
            if ahead > 0:
                client.poll(ahead)
        sent_at = time.monotonic()
        while True:
            try:
                client.produce(args.topic, value, key, on_delivery=delivered(sent_at, len(value), i >= quiet))
                break
            except BufferError:  # the queue is full: serve delivery reports until there is room
                client.poll(0.005)
        client.poll(0)
    while client.flush(1.0):
        pass
    client.poll(0)  # the last statistics
    print(stats.total(False), flush=True)
    if steady:
        print(steady[0].total(True), flush=True)
    rate = 1 / compression.ratio if compression.ratio else float("nan")
    print(f"producer-metrics:compression-rate-avg:{{client-id={config.get('client.id', 'rdkafka')}}} : {rate:.3f}",
          flush=True)
    sys.stdout.flush()

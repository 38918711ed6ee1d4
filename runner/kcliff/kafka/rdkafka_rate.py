"""At a fixed rate on librdkafka (`--rate R`): record i is due at t0 + i/R, sent when due, or at once
when the sender is behind (a full queue, a descheduled process), and timed from its due time to its
delivery report: open loop, so a stall shows in the latency instead of delaying the records after it.
Records due in the warm-up are sent and not counted. It prints the JSON lines of the Java load generator
(docs/loadgen.md, "Output"): a progress line each interval and one summary with the HdrHistogram
encoding of the produce latency; no end-to-end latency (no consumer on librdkafka yet).
"""

from __future__ import annotations

import argparse
import json
import time
from typing import Any

from hdrh.histogram import HdrHistogram

from kcliff.kafka.rdkafka_client import Compression, Records, producer, reach

HIGHEST_US = 3_600_000_000


def percentiles(h: HdrHistogram, encoded: bool) -> dict[str, Any]:
    """As LoadGen.percentiles: ms from a histogram in microseconds, and the histogram's encoding."""
    empty = h.get_total_count() == 0
    out: dict[str, Any] = {"count": h.get_total_count()}
    for q, name in ((50, "p50_ms"), (90, "p90_ms"), (99, "p99_ms"), (99.9, "p999_ms")):
        out[name] = None if empty else h.get_value_at_percentile(q) / 1000
    out["max_ms"] = None if empty else h.get_max_value() / 1000
    if encoded:
        out["histogram_us"] = h.encode().decode()
    return out


class Tally:
    """Counts and latencies, updated from delivery reports (served by poll() on the sending thread)."""

    def __init__(self) -> None:
        self.sent = self.acked = self.errors = 0
        self.measured_sent = self.measured_acked = self.measured_errors = 0
        self.first_error: str | None = None
        self.total = HdrHistogram(1, HIGHEST_US, 3)
        self.interval = HdrHistogram(1, HIGHEST_US, 3)

    def callback(self, due: float, measured: bool):  # type: ignore[no-untyped-def]
        def report(err, _msg):  # type: ignore[no-untyped-def]
            if err is not None:
                self.errors += 1
                self.measured_errors += measured
                self.first_error = self.first_error or str(err)
                return
            us = max(1, round((time.monotonic() - due) * 1e6))
            self.acked += 1
            self.interval.record_value(us)
            if measured:
                self.measured_acked += 1
                self.total.record_value(us)
        return report


def run(args: argparse.Namespace, config: dict[str, Any], records: Records) -> None:
    compression = Compression()
    clients = [producer(config, compression) for _ in range(args.producers)]
    reach(clients[0], args.topic)
    tally = Tally()
    period = 1 / args.rate
    t0 = time.monotonic()
    first_measured = int(args.warmup_s * args.rate)  # the first record due after the warm-up
    end_seq = first_measured + int(args.duration_s * args.rate)
    behind = max_behind = 0.0
    next_progress = t0 + args.interval_s

    def serve(timeout: float) -> None:
        if timeout < 0.001:  # poll() counts whole ms, and would spin on the CPU the brokers share
            time.sleep(timeout)
            timeout = 0.0
        for client in clients:
            client.poll(timeout / len(clients))

    def progress(now: float) -> None:
        print(json.dumps({"type": "progress", "elapsed_s": round(now - t0 - args.warmup_s, 3), "sent": tally.sent,
                          "acked": tally.acked, "errors": tally.errors, "consumed": None,
                          "behind_ms": round(behind * 1000, 3), "produce": percentiles(tally.interval, False),
                          "end_to_end": None}), flush=True)
        tally.interval.reset()

    seq = 0
    stop_at = t0 + args.warmup_s + args.duration_s  # records due by then and not sent are `unsent`
    while seq < end_seq:
        now = time.monotonic()
        if now >= stop_at:
            break
        if now >= next_progress:
            progress(now)
            next_progress += args.interval_s
        due = t0 + seq * period
        if now < due:
            serve(min(due - now, max(0.0, next_progress - now)))
            continue
        behind = now - due
        max_behind = max(max_behind, behind) if seq >= first_measured else max_behind
        key, value = records.next()
        client = clients[seq % len(clients)]
        while True:
            try:
                client.produce(args.topic, value, key, on_delivery=tally.callback(due, seq >= first_measured))
                break
            except BufferError:  # the queue is full: the record waits, and its latency runs from its due time
                client.poll(0.001)
        tally.sent += 1
        tally.measured_sent += seq >= first_measured
        seq += 1
        client.poll(0)
    end = time.monotonic()
    drained = end + args.drain_s
    while any(len(c) for c in clients) and time.monotonic() < drained:
        serve(0.05)
    serve(0.0)
    progress(time.monotonic())
    duration = args.duration_s
    unacked = tally.measured_sent - tally.measured_acked - tally.measured_errors
    summary = {
        "type": "summary", "target_rate": args.rate, "record_size": records.size, "producers": args.producers,
        "duration_s": duration, "warmup_s": args.warmup_s, "scheduled": end_seq - first_measured,
        "sent": tally.measured_sent, "unsent": end_seq - first_measured - tally.measured_sent,
        "acked": tally.measured_acked, "errors": tally.measured_errors, "unacked": unacked,
        "achieved_rate": round(tally.measured_acked / duration, 3), "max_behind_ms": round(max_behind * 1000, 3),
        "end_behind_ms": round(behind * 1000, 3), "first_error": tally.first_error,
        "compression_ratio": compression.ratio, "produce": percentiles(tally.total, True),
        "consumed": None, "unconsumed": None, "end_to_end": None}
    print(json.dumps(summary), flush=True)

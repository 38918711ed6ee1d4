"""The load generator's output read into typed figures, on output it really printed.

Recorded on 2026-11-25 on this 2-core machine: `kcliff cluster up` (local backend, Kafka 4.2.0), a
6-partition topic with replication factor 3 and min.insync.replicas 2, then kcliff.measure.at_rate.rate_run
(1 KB records, acks=all, linger.ms=5, warm-up 2 s, measured 4 s, a consumer with Kafka's default
settings unless named); each file is the run's log (its argv line first, then the tool's stdout):
- linger5-100rps: 100 records/s;
- linger5-fetchwait500-100rps: the same with the consumer's fetch.min.bytes=1048576, fetch.max.wait.ms=500;
- batch0-2000rps: 2,000 records/s with batch.size=0, --drain-s 3: far above what the cluster takes so;
- overload-50000rps: 50,000 records/s, --drain-s 3: the sender blocked on a full buffer all the
  warm-up long and sent no record due in the measured duration.
- json-events-zstd-1mbps (2026-11-27): kcliff's json-events (--payload-file) at 1 MB/s with
  compression.type=zstd and no consumer; its summary has the mean record size and compression_ratio.
"""

from pathlib import Path

import pytest
from kcliff.measure import rate_output
from kcliff.measure.rate_output import RATE_TOLERANCE, OutputError, held, merged, parse

DATA = Path(__file__).resolve().parents[1] / "data" / "loadgen"


def read(name: str) -> rate_output.RateOutput:
    return parse((DATA / f"{name}.log").read_text().splitlines())


def test_a_held_run_reads_whole_with_its_progress_and_both_latencies():
    out = read("linger5-fetchwait500-100rps")
    s = out.summary
    assert s is not None and s.held_rate
    assert (s.target_rate, s.scheduled, s.sent, s.acked, s.unsent, s.unacked, s.errors) == (100, 400, 400, 400, 0, 0, 0)
    assert (s.consumed, s.unconsumed, s.achieved_rate) == (400, 0, 100.0)
    assert s.produce.count == s.end_to_end.count == 400
    # the consumer's 500 ms fetch wait shows end to end and not in the produce latency
    assert s.end_to_end.p50_ms > 200 > s.produce.p99_ms
    assert s.end_to_end.p99_ms <= 600
    # progress: counts since the start, the first two in the warm-up (negative elapsed) time nothing
    assert [p.elapsed_s < 0 for p in out.progress[:3]] == [True, True, False]
    assert out.progress[0].produce.count == 0 and out.progress[0].produce.p50_ms is None
    assert [p.sent for p in out.progress] == sorted(p.sent for p in out.progress)


def test_a_run_without_a_consumer_setting_still_reads_its_end_to_end():
    s = read("linger5-100rps").summary
    assert s is not None and s.end_to_end is not None and s.end_to_end.p50_ms < 100


def test_a_rate_far_above_capacity_is_not_held_and_its_unacknowledged_records_show():
    s = read("batch0-2000rps").summary
    assert s is not None and not s.held_rate
    assert s.unacked > 7000 and s.acked + s.unacked + s.errors + s.unsent == s.scheduled
    assert s.achieved_rate < 0.1 * s.target_rate
    # timed from when each was due: seconds of queueing, not a batch's round trip
    assert s.produce.p50_ms > 5000


def test_a_sender_blocked_all_run_long_sent_nothing_measured_and_says_so():
    s = read("overload-50000rps").summary
    assert s is not None and not s.held_rate
    assert (s.sent, s.unsent, s.acked) == (0, s.scheduled, 0)
    assert s.end_behind_ms > 1000
    assert s.produce.count == 0 and s.produce.p50_ms is None
    assert merged([s.produce]).count == 0


def test_held_is_one_rule_with_a_named_tolerance():
    assert held(1000, 1000 * (1 - RATE_TOLERANCE))
    assert not held(1000, 1000 * (1 - RATE_TOLERANCE) - 0.01)


def test_decoded_histograms_give_the_percentiles_the_tool_printed():
    for name in ("linger5-100rps", "linger5-fetchwait500-100rps", "batch0-2000rps"):
        s = read(name).summary
        for latency in (s.produce, s.end_to_end):
            again = merged([latency])
            assert (again.count, again.p50_ms, again.p90_ms, again.p99_ms, again.p999_ms, again.max_ms) == (
                latency.count, latency.p50_ms, latency.p90_ms, latency.p99_ms, latency.p999_ms, latency.max_ms), name


def test_repeats_merge_exactly_into_one_histogram():
    # the produce side of both 100 records/s runs had the same producer settings: two repeats
    a, b = (read(n).summary.produce for n in ("linger5-100rps", "linger5-fetchwait500-100rps"))
    both = merged([a, b])
    assert both.count == a.count + b.count
    assert min(a.p50_ms, b.p50_ms) <= both.p50_ms <= max(a.p50_ms, b.p50_ms)
    assert both.max_ms == max(a.max_ms, b.max_ms)


def test_a_progress_line_has_no_histogram_to_decode():
    with pytest.raises(ValueError, match="no histogram"):
        read("linger5-100rps").progress[-1].produce.decoded()


def test_lines_of_another_kind_are_skipped_and_a_broken_line_of_ours_is_an_error():
    lines = (DATA / "linger5-100rps.log").read_text().splitlines()
    assert parse(["[2026-11-25 00:00:00] WARN something (org.apache.kafka)", *lines]).summary is not None
    assert parse(lines[:-1]).summary is None  # cut before its summary
    broken = lines[-1].replace('"acked":400', '"acked":"many"')
    with pytest.raises(OutputError, match=f"(?s)line {len(lines)}:.*acked"):
        parse([*lines[:-1], broken])


def test_a_payload_runs_summary_has_its_mean_record_size_and_its_producers_compression_ratio():
    # recorded on 2026-11-27 (benchmarks/bench_payload_compression.py): json-events at 1 MB/s,
    # compression.type=zstd, --payload-file, no consumer
    got = read("json-events-zstd-1mbps").summary
    assert got is not None and got.held_rate
    assert (got.record_size, got.compression_ratio) == (798, 2.453)
    assert read("linger5-100rps").summary.compression_ratio is None  # recorded before the field

"""The perf tool's output, parsed from recorded real runs of Kafka 4.2.0's ProducerPerformance."""

from pathlib import Path

from kcliff.measure.perf_output import compression_ratio, parse_line, summary

DATA = Path(__file__).parents[1] / "data" / "perf"


def lines(name: str) -> list[str]:
    return (DATA / name).read_text().splitlines(keepends=True)


def test_interim_line_with_one_decimal():
    parsed = parse_line("2115 records sent, 2102.4 records/sec (2.05 MB/sec), 615.3 ms avg latency, "
                        "1340.0 ms max latency.\n")
    assert (parsed.records, parsed.records_per_sec, parsed.mb_per_sec) == (2115, 2102.4, 2.05)
    assert (parsed.avg_ms, parsed.max_ms) == (615.3, 1340.0)
    assert not parsed.is_summary


def test_summary_line_with_six_decimals_and_percentiles():
    parsed = summary(lines("producer-perf-4.2.0-reference.txt"))
    assert parsed.records == 20000
    assert parsed.records_per_sec == 1807.827895
    assert parsed.mb_per_sec == 1.77
    assert (parsed.p50_ms, parsed.p95_ms, parsed.p99_ms, parsed.p999_ms) == (3927, 6948, 7108, 7241)


def test_every_interim_line_of_a_recorded_run_parses():
    raw = lines("producer-perf-4.2.0-flush1.txt")
    parsed = [parse_line(x) for x in raw]
    assert all(p is not None for p in parsed), [x for x, p in zip(raw, parsed) if p is None]
    interim = [p for p in parsed if not p.is_summary]
    assert sum(p.records for p in interim) <= parsed[-1].records
    assert parsed[-1].is_summary


def test_steady_state_summary_is_preferred():
    out = ["1000 records sent, 500.000000 records/sec (0.49 MB/sec), 10.00 ms avg latency, 90.00 ms max latency, "
           "9 ms 50th, 50 ms 95th, 80 ms 99th, 90 ms 99.9th.\n",
           "800 steady state records sent, 700.000000 records/sec (0.68 MB/sec), 8.00 ms avg latency, "
           "60.00 ms max latency, 7 ms 50th, 30 ms 95th, 50 ms 99th, 60 ms 99.9th.\n"]
    parsed = summary(out)
    assert parsed.steady_state and parsed.records == 800 and parsed.p99_ms == 50


def test_other_lines_are_ignored():
    assert parse_line("WARN [Producer clientId=perf-producer-client] Connection to node -1 could not be") is None
    assert parse_line("producer-metrics:batch-size-avg:{client-id=perf} : 16384.000") is None
    assert summary(["nothing here\n"]) is None


def test_recorded_steady_state_summary_from_warmup_records():
    raw = lines("producer-perf-4.2.0-steady-state.txt")
    parsed = summary(raw)
    assert parsed.steady_state and parsed.records == 16000
    whole = [parse_line(x) for x in raw if "records sent" in x and "steady" not in x and "99.9th" in x]
    assert whole[0].records == 20000 and not whole[0].steady_state


def test_the_compression_ratio_is_one_over_the_producers_compression_rate_printed_with_its_metrics():
    # kafka-producer-perf-test 4.2.0 --print-metrics, json-events with compression.type=zstd, batch.size
    # 16384, on the local cluster (benchmarks/bench_payload_compression.py): compression-rate-avg 0.318
    recorded = lines("producer-perf-4.2.0-json-events-zstd-metrics.txt")
    assert compression_ratio(recorded) == round(1 / 0.318, 3) == 3.145
    steady = summary(recorded)
    assert steady is not None and steady.steady_state and steady.records == 40_000
    assert compression_ratio(lines("producer-perf-4.2.0-steady-state.txt")) is None  # run without --print-metrics


def test_a_producer_that_sent_no_batch_has_no_compression_ratio():
    nan = "producer-metrics:compression-rate-avg:{client-id=perf-producer-client}            : NaN\n"
    assert compression_ratio([nan]) is None
    zero = nan.replace("NaN", "0.000")
    assert compression_ratio([zero]) is None


def test_the_load_generators_flat_out_output_reads_as_the_perf_tools():
    # kcliff's load generator --num-records 300000 --warmup-records 60000 (Kafka 4.2.0 clients, the local
    # cluster, compression.type=zstd), sending the keyed samples of tests/measure/test_payloads.py
    recorded = lines("loadgen-flat-out-keyed-zstd.txt")
    parsed = [parse_line(x) for x in recorded]
    interim = [p for p in parsed if p is not None and not p.is_summary]
    assert [p.records for p in interim] == [8136, 30265, 76740] and interim[-1].mb_per_sec == 5.52
    whole, steady = [p for p in parsed if p is not None and p.is_summary]
    assert whole.records == 300_000 and not whole.steady_state
    assert summary(recorded) == steady and steady.steady_state and steady.records == 240_000
    assert (steady.p50_ms, steady.p95_ms, steady.p99_ms, steady.p999_ms) == (132, 546, 688, 720)
    assert steady.mb_per_sec == 9.94 and steady.max_ms == 722.14
    assert compression_ratio(recorded) == round(1 / 0.080, 3) == 12.5
    # nothing else: the perf tool's own notes about the warm-up, and the one metric line
    others = [x.strip() for x, p in zip(recorded, parsed) if p is None]
    assert others[:2] == ["Warmup first 60000 records. Steady state results will print after the complete test "
                          "summary.", "In steady state."] and len(others) == 3

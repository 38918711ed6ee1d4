"""The early cliff stop: measure.cliff_stop_rule fed interim lines recorded from real
kafka-producer-perf-test runs (the times are when they arrived), and on_cliff.on_its_cliff.

batching-off's warm-up printed one line, then nothing for ten seconds while the warm-up records it
had queued drained; the reference printed a line a second from its first one on."""

import time
from pathlib import Path

from kcliff.judge.family import Family
from kcliff.judge.stopping import certain
from kcliff.measure import producer as measure
from kcliff.measure.on_cliff import on_its_cliff
from kcliff.measure.perf_output import parse_line
from kcliff.results import model
from kcliff.results.metrics import ChangeKind, Workload
from kcliff.results.model import CliffSpec, Entry, ReadRun, Run, Stat, StopKind

from tests.measure.test_stall import SilentAfterOneLine

BATCHING_OFF = [(2.6, "307 records sent, 306.1 records/sec (0.30 MB/sec), 319.3 ms avg latency, 572.0 ms max latency.")]
REFERENCE = [
    (2.1, "1831 records sent, 1758.9 records/sec (1.72 MB/sec), 216.3 ms avg latency, 494.0 ms max latency."),
    (3.3, "1 records sent, 0.8 records/sec (0.00 MB/sec), 1240.0 ms avg latency, 1240.0 ms max latency."),
    (4.3, "12150 records sent, 12150.0 records/sec (11.87 MB/sec), 1573.7 ms avg latency, 1834.0 ms max latency."),
    (5.3, "14670 records sent, 14655.3 records/sec (14.31 MB/sec), 1900.9 ms avg latency, 2389.0 ms max latency."),
    (6.3, "13350 records sent, 13350.0 records/sec (13.04 MB/sec), 2289.3 ms avg latency, 2898.0 ms max latency."),
]

FLUSH_1_SLOW_START = [
    (2.3, "1640 records sent, 1638.4 records/sec (1.60 MB/sec), 2216.3 ms avg latency, 2894.0 ms max latency."),
    (3.4, "2 records sent, 1.9 records/sec (0.00 MB/sec), 2840.0 ms avg latency, 2851.0 ms max latency."),
    (5.6, "7066 records sent, 7065.3 records/sec (6.90 MB/sec), 3113.7 ms avg latency, 3534.0 ms max latency."),
]


def replay(rule: measure.StopRule, lines: list[tuple[float, str]], until: float) -> tuple[float, str] | None:
    """Feed the lines at their times and a quiet tick every 0.5 s between them, as perf_run does."""
    pending = list(lines)
    t = 0.0
    while t <= until:
        while pending and pending[0][0] <= t:
            at, text = pending.pop(0)
            if (reason := rule(parse_line(text), at)):
                return at, reason
        if (reason := rule(None, t)):
            return t, reason
        t = round(t + 0.5, 1)
    return None


def test_a_quiet_cliff_is_stopped_four_seconds_after_its_first_line():
    unreported = measure.unreported_records(3_000, {})  # the warm-up run: 3,000 records kept quiet
    stopped = replay(measure.cliff_stop_rule(13.0, 0.5, unreported), BATCHING_OFF, until=20)
    assert stopped is not None
    at, reason = stopped
    assert 6.6 <= at <= 7.0
    assert reason.startswith("cliff: at most 0.") and "0.50 x reference 13.00 MB/s" in reason


def test_a_healthy_run_is_never_stopped():
    assert replay(measure.cliff_stop_rule(13.0, 0.5, measure.unreported_records(12_000, {})), REFERENCE, 7) is None
    # nor while a full buffer of warm-up records drains in silence (32 MB at 13 MB/s: 2.5 s): the
    # records the tool may be keeping quiet count
    assert replay(measure.cliff_stop_rule(13.0, 0.5, 32_768), REFERENCE[:1], until=6.5) is None
    assert replay(measure.cliff_stop_rule(13.0, 0.5, 0), REFERENCE[:1], until=6.5) is not None


def test_nothing_is_decided_before_the_first_line_or_the_minimum_span():
    rule = measure.cliff_stop_rule(13.0, 0.5, 0)
    assert rule(None, 30.0) is None  # no line yet: JVM start, or a stall (the stall watch's job)
    assert rule(parse_line(BATCHING_OFF[0][1]), 31.0) is None
    assert rule(None, 34.9) is None
    assert rule(None, 35.1) is not None


def test_a_slow_start_that_reaches_the_limit_is_not_a_cliff():
    """flush=1's interim figures from a real run (bench_early_stop, RTT 20 ms), in the tool's line
    format: an ack gap of its 3 s latency, then 6.9 MB/s. Stopped on its average against a limit of
    6.4 MB/s, it measured 0.47-0.66x the reference whenever it was left to finish."""
    assert replay(measure.cliff_stop_rule(12.85, 0.5, 20_000), FLUSH_1_SLOW_START, until=8) is None
    # the same start with no line at the limit is stopped, on the average alone
    capped = [(at, line.replace("6.90 MB", "6.30 MB")) for at, line in FLUSH_1_SLOW_START]
    assert replay(measure.cliff_stop_rule(12.85, 0.5, 20_000), capped, until=8) is not None


def test_the_quiet_records_are_bounded_by_the_producers_buffer():
    assert measure.unreported_records(6_000, {}) == 6_000
    assert measure.unreported_records(200_000, {}) == 32_768
    assert measure.unreported_records(200_000, {"buffer.memory": 1_048_576}) == 1024


def test_a_warm_up_keeps_fewer_records_quiet_than_a_measured_run():
    assert measure.steady_state_after(100_000) == 20_000
    assert measure.warmup_quiet(50_000) == 1_000
    assert measure.warmup_quiet(2_000) == 400


def test_perf_run_asks_the_rule_while_the_tool_is_quiet(tmp_path: Path):
    began = time.monotonic()
    rule = measure.cliff_stop_rule(100.0, 0.5, 0, min_span_s=1.5)
    run = measure.perf_run(SilentAfterOneLine(), "t", 100_000, {}, began + 60, tmp_path / "p.log", rule)
    assert time.monotonic() - began < 10
    assert run.stopped_early and run.stop_kind is StopKind.CLIFF and run.stop_reason.startswith("cliff: at most")
    assert run.interim_mb_per_sec == [9.73]


def _attempt(stopped: bool) -> Run:
    return Run(records=1000, stopped_early=stopped, complete=not stopped,
               stop_kind=StopKind.CLIFF if stopped else None)


def _entry(warmup: bool, *runs: bool) -> Entry:
    return Entry(id="x", warmup=_attempt(warmup), runs=[_attempt(r) for r in runs])


def test_two_stops_in_a_row_decide_a_scenario_the_warm_up_counted():
    assert on_its_cliff(_entry(True, True))
    assert not on_its_cliff(_entry(True))
    assert not on_its_cliff(_entry(False, True))
    assert not on_its_cliff(_entry(True, False, True))
    assert on_its_cliff(_entry(False, False, True, True))


def test_one_stop_decides_a_canary_whose_cliff_is_known():
    canary = _entry(True).model_copy(update={"cliff": CliffSpec(stands_for="x", metric="throughput", max_ratio=0.5)})
    assert on_its_cliff(canary) and not on_its_cliff(_entry(True))
    assert not on_its_cliff(canary.model_copy(update={"warmup": _attempt(False)}))


def test_stopped_runs_count_only_when_every_run_was_stopped():
    finished = Run(records=1000, mb_per_sec=6.05, stopped_early=False)
    stopped = [Run(records=1000, mb_per_sec=2.13, stopped_early=True), Run(records=800, mb_per_sec=1.92, stopped_early=True)]
    assert (model.summarise([finished, *stopped]) or {})["mb_per_sec"].median == 6.05
    assert (model.summarise(stopped) or {})["mb_per_sec"] == Stat(median=2.025, min=1.92, max=2.13)


def test_a_check_stops_once_a_side_is_on_its_cliff_as_no_round_left_could_pair_it():
    base = Entry(id="base", warmup=_attempt(False), runs=[Run(records=1000, mb_per_sec=60.0, complete=True)])
    head = _entry(True, True)
    producer = Family.of([ChangeKind.PRODUCER], [Workload.PRODUCE])
    assert certain(18, producer)([base, head]) and certain(18, producer)([head, base])
    assert not certain(18, producer)([base, _entry(False, False)])  # one round of two healthy sides decides nothing


def test_a_consumer_capped_twice_no_longer_holds_the_check_open():
    def reading(sid: str, consumed: list[float], capped: bool = False) -> Entry:
        entry = Entry(id=sid, workloads=["produce", "consume"],
                      runs=[Run(records=1000, mb_per_sec=60.0 + i % 3, complete=True) for i in range(6)])
        entry.read_runs = [ReadRun(workload="consume", records=1000, consumed_mb_per_sec=c, stopped_early=capped)
                           for c in consumed]
        return entry
    base = reading("base", [150.0, 160.0, 155.0, 150.0, 158.0, 152.0])
    steady = reading("head", [151.0, 159.0, 156.0, 149.0, 157.0, 153.0])
    both = Family.of([ChangeKind.PRODUCER, ChangeKind.CONSUMER], [Workload.PRODUCE, Workload.CONSUME])
    assert certain(18, both)([base, steady])  # six equal rounds: both throughputs certain
    assert not certain(18, both)([base, reading("head", [40.0, 300.0, 156.0, 10.0, 157.0, 153.0])])  # consumed unsettled
    assert certain(18, both)([base, reading("head", [2.0, 2.0], capped=True)])


def test_a_metric_the_change_cannot_move_keeps_nothing_measuring():
    def entry(sid: str, produced: list[float], consumed: list[float]) -> Entry:
        found = Entry(id=sid, workloads=["produce", "consume"],
                      runs=[Run(records=1000, mb_per_sec=mb, complete=True) for mb in produced])
        found.read_runs = [ReadRun(workload="consume", records=1000, consumed_mb_per_sec=c) for c in consumed]
        return found
    base = entry("base", [60.0, 61.0, 62.0, 60.0, 61.0, 62.0], [150.0, 160.0, 155.0, 150.0, 158.0, 152.0])
    head = entry("head", [20.0, 90.0, 61.0, 15.0, 70.0, 40.0], [151.0, 159.0, 156.0, 149.0, 157.0, 153.0])
    consumer = Family.of([ChangeKind.CONSUMER], [Workload.PRODUCE, Workload.CONSUME])
    both = Family.of([ChangeKind.PRODUCER, ChangeKind.CONSUMER], [Workload.PRODUCE, Workload.CONSUME])
    assert certain(18, consumer)([base, head])  # the consumer's figures are certain; the producer's are not judged
    assert not certain(18, both)([base, head])  # a producer change would wait for its unsettled throughput

"""Several producers at once (issue #29): measure.perf_run starts one perf tool per producer, each with
its share of the records, follows them together and sums their figures. The unit tests drive the real
loop with stand-in tools that print recorded kafka-producer-perf-test 4.2.0 output; the kafka-marked
test runs three real producers on the shared cluster."""

import contextlib
import sys
import time
import uuid
from pathlib import Path
from typing import Iterator

import pytest
from kcliff.backends.admin import Admin
from kcliff.backends.base import Cluster
from kcliff.backends.local import LocalCluster, shared_dir
from kcliff.measure import at_rate
from kcliff.measure import producer as measure
from kcliff.measure.perf_output import parse_line
from kcliff.results.model import StopKind
from kcliff.scenario.settings import INVARIANTS

RECORDED = Path(__file__).parents[1] / "data" / "perf" / "producer-perf-4.2.0-steady-state.txt"


class Recorded(Cluster):
    """Each tool prints the recorded run, then `linger_s` of silence, and notes its argv in `started`."""
    backend = "stand-in"
    admin_bootstrap = tool_bootstrap = "127.0.0.1:1"

    def __init__(self, linger_s: float = 0.0) -> None:
        self.started: list[list[str]] = []
        self.linger_s = linger_s

    def tool_command(self, main_class: str, args: list[str], files: tuple[Path, ...] = (), jars=()) -> list[str]:
        self.started.append(args)
        script = f"import sys, time; sys.stdout.write(open({str(RECORDED)!r}).read()); sys.stdout.flush(); " \
                 f"time.sleep({self.linger_s})"
        return [sys.executable, "-c", script]

    def down(self) -> None:
        pass


def _arg(args: list[str], flag: str) -> str:
    return args[args.index(flag) + 1]


def test_records_and_quiet_records_are_shared_out_and_the_figures_summed(tmp_path: Path):
    cluster = Recorded()
    run = measure.perf_run(cluster, "t", 60_001, {"acks": "all"}, time.monotonic() + 60, tmp_path / "r.log",
                           quiet=12_000, producers=3, record_size=200)
    assert [_arg(a, "--num-records") for a in cluster.started] == ["20001", "20000", "20000"]
    assert [_arg(a, "--warmup-records") for a in cluster.started] == ["4000"] * 3
    assert [_arg(a, "--record-size") for a in cluster.started] == ["200"] * 3
    one = measure.summary(RECORDED.read_text().splitlines())
    assert one is not None and one.steady_state
    assert len(run.producers) == 3 and all(p.complete for p in run.producers) and run.complete
    assert run.records == 3 * one.records
    assert run.mb_per_sec == pytest.approx(3 * one.mb_per_sec)
    assert run.p99_ms == one.p99_ms  # the worst producer's: all three printed the same
    assert run.interim_mb_per_sec == pytest.approx([3 * 0.36, 3 * 6.40, 3 * 5.70])
    # each producer's log, and its stderr (the client's warnings) beside it
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "r-p1.log", "r-p1.stderr.log", "r-p2.log", "r-p2.stderr.log", "r-p3.log", "r-p3.stderr.log"]


def test_a_lone_producer_is_the_run_it_always_was(tmp_path: Path):
    cluster = Recorded()
    run = measure.perf_run(cluster, "t", 20_000, {}, time.monotonic() + 60, tmp_path / "r.log", quiet=4000)
    assert run.producers == [] and run.records == 16_000 and len(cluster.started) == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.log", "r.stderr.log"]


def test_the_stop_rule_sees_every_producers_lines_and_stops_them_all(tmp_path: Path):
    seen: list[float] = []

    def rule(line, elapsed):
        if line is not None:
            seen.append(line.mb_per_sec)
        return "cliff: enough" if len(seen) == 4 else None

    began = time.monotonic()
    run = measure.perf_run(Recorded(linger_s=60), "t", 40_000, {}, time.monotonic() + 60, tmp_path / "r.log",
                           stop_rule=rule, producers=2)
    assert time.monotonic() - began < 20  # both tools ended at once, not after their minute of silence
    assert len(seen) == 4 and not run.complete and run.stop_kind is StopKind.CLIFF
    assert all(p.stop_kind is StopKind.CLIFF for p in run.producers)
    assert run.records == sum(p.records for p in run.producers) > 0


class Staggered(Recorded):
    """As Recorded, but the second tool prints nothing for `late_s` first: a JVM that starts late."""

    def __init__(self, late_s: float) -> None:
        super().__init__()
        self.late_s = late_s

    def tool_command(self, main_class: str, args: list[str], files: tuple[Path, ...] = (), jars=()) -> list[str]:
        argv = super().tool_command(main_class, args, files, jars)
        if len(self.started) == 2:
            argv[-1] = f"import time; time.sleep({self.late_s}); " + argv[-1]
        return argv


def test_the_stop_rule_waits_for_a_line_from_every_producer(tmp_path: Path):
    """Four producers' JVMs came up seconds apart here, and the first one's lines alone were stopped as a
    cliff (at most 5.0 MB/s against a bound of 5.5): the rule hears nothing until every producer speaks."""
    heard: list[float] = []
    began = time.monotonic()

    def rule(line, elapsed):
        heard.append(time.monotonic() - began)
        return None

    run = measure.perf_run(Staggered(late_s=3.0), "t", 40_000, {}, time.monotonic() + 60, tmp_path / "r.log",
                           stop_rule=rule, producers=2)
    assert run.complete and heard and min(heard) >= 3.0, heard


def test_unreported_records_add_up_over_the_producers_each_bounded_by_its_own_buffer():
    buffer_of_1000 = {"buffer.memory": 1000 * 1024}
    assert measure.unreported_records(12_000, buffer_of_1000) == 1000
    assert measure.unreported_records(12_000, buffer_of_1000, producers=4) == 4000
    assert measure.unreported_records(2_000, buffer_of_1000, producers=4) == 2000
    assert measure.unreported_records(30_000, buffer_of_1000, record_size=100, producers=2) == 2 * 10_240


@contextlib.contextmanager
def topic_of_24(shared_cluster: Path) -> Iterator[tuple[LocalCluster, str]]:
    """The shared cluster and a 24-partition topic of kcliff's invariants on it, removed afterwards."""
    cluster = LocalCluster.from_state(shared_dir(shared_cluster))
    assert cluster is not None
    admin = Admin(cluster.admin_bootstrap)
    topic = f"kcliff-producers-{uuid.uuid4().hex[:8]}"
    admin.create_topic(topic, 24, 3, {"min.insync.replicas": "2"})
    try:
        yield cluster, topic
    finally:
        admin.delete_topic(topic, missing_ok=True)


@pytest.mark.kafka
def test_three_real_producers_share_a_24_partition_topic(shared_cluster, tmp_path: Path):
    with topic_of_24(shared_cluster) as (cluster, topic):
        run = measure.perf_run(cluster, topic, 30_000, {**INVARIANTS["producer"], "linger.ms": 5},
                               time.monotonic() + 120, tmp_path / "p.log", quiet=3000, producers=3, record_size=200)
    assert run.complete and len(run.producers) == 3 and all(p.complete for p in run.producers)
    assert run.records == 27_000 == sum(p.records for p in run.producers)  # each its 10,000 less 1,000 warm-up
    assert run.mb_per_sec == pytest.approx(sum(p.mb_per_sec for p in run.producers))
    for p in run.producers:  # the tool counts MB from the record size it was given
        assert p.mb_per_sec * 2 ** 20 / p.records_per_sec == pytest.approx(200, rel=0.02)
    lines = [parse_line(x) for x in (tmp_path / "p-p1.log").read_text().splitlines()]
    assert any(x is not None and x.is_summary for x in lines)


def test_the_load_generator_shares_its_rate_among_producers_only_when_asked(tmp_path: Path, monkeypatch):
    monkeypatch.setattr(at_rate.loadgen, "ensure", lambda: [])  # its jars: built by setup, not needed here
    cluster = Recorded()
    at_rate.rate_argv(cluster, "t", 300, 2, 1, tmp_path / "p.properties")
    at_rate.rate_argv(cluster, "t", 300, 2, 1, tmp_path / "p.properties", producers=3)
    lone, several = cluster.started
    assert "--producers" not in lone  # a lone producer's command line is what it always was
    assert several[several.index("--producers") + 1] == "3"


@pytest.mark.kafka
def test_three_real_producers_hold_a_shared_rate_and_every_record_is_counted(shared_cluster, tmp_path: Path):
    with topic_of_24(shared_cluster) as (cluster, topic):
        ran = at_rate.rate_run(cluster, topic, 300, 3.0, 1.0, {**INVARIANTS["producer"], "linger.ms": 5}, {},
                               tmp_path / "r.log", drain_s=10.0, producers=3)
    s = ran.summary
    assert s is not None, ran.failure
    assert s.producers == 3 and s.held_rate, s
    # the last record or two can fall due as the duration ends on a busy machine (unsent 1 once, load 10)
    assert (s.scheduled, s.unacked, s.errors, s.unconsumed) == (900, 0, 0, 0) and s.unsent <= 5, s

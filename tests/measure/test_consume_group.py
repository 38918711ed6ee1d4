"""A consumer that consumes as its service does (scenario/consuming.py): the load generator's argv flat
out and at a rate, its output as recorded from real runs (Kafka 4.1.0, three members committing after each
poll, 0.2 ms a record: 500 records a poll, then one; at 1,024 records/s a group of Kafka 4's protocol, and one
member committing each record) read by the parsers, and how many records a read of a working consumer reads
and how long it may take. The kafka-marked test runs a group at a rate on the shared cluster."""

from __future__ import annotations

from pathlib import Path

import pytest
from kcliff.kafka import release as kafka_release
from kcliff.measure import at_rate, rate_output, read_output, read_side
from kcliff.scenario.consuming import Commit, Consuming
from kcliff.scenario.settings import INVARIANTS

from tests.measure.test_several_producers import topic_of_24

DATA = Path(__file__).resolve().parents[1] / "data" / "read-side"
LOADGEN = Path(__file__).resolve().parents[1] / "data" / "loadgen"


class FakeCluster:
    tool_bootstrap = "127.0.0.1:1,127.0.0.1:2"
    release = kafka_release.of("4.1.0")

    def tool_command(self, main_class: str, args: list[str], files: tuple[Path, ...] = (),
                     jars: tuple[Path, ...] = ()) -> list[str]:
        return ["java", main_class, *args]


def lines(name: str) -> list[str]:
    return (DATA / name).read_text(encoding="utf-8").splitlines(keepends=True)


def test_the_group_reads_with_the_consumers_settings_from_a_file_and_says_how_it_commits(tmp_path, monkeypatch):
    monkeypatch.setattr(read_side.loadgen, "ensure", lambda: ())
    config = tmp_path / "c.properties"
    argv = read_side.group_argv(FakeCluster(), "t", 75000, {"max.poll.records": 1, "isolation.level": "read_committed"},
                                Consuming(Commit.RECORD_SYNC, 200, 3), 13.0, config)
    flags = dict(zip(argv[2::2], argv[3::2]))
    assert (flags["--consume"], flags["--commit"], flags["--members"], flags["--process-us"]) == \
        ("75000", "record-sync", "3", "200")
    assert flags["--timeout-ms"] == "13000" and flags["--consumer-config"] == str(config.resolve())
    assert config.read_text() == "max.poll.records=1\nisolation.level=read_committed\n"  # never on a command line


def test_its_output_is_read_as_the_consumer_tools():
    base = read_output.consumed(lines("consume-group-poll-sync.txt"))
    assert base is not None and base.records == 75002  # the members stop once the group has read its 75,000
    assert 5 < base.mb_per_sec < 12 and base.rebalance_ms > 0  # three members joining, each working 0.2 ms a record
    assert not read_output.gave_up(lines("consume-group-poll-sync.txt"))
    cut = read_output.consumed(lines("consume-group-poll-sync-one-record-cut.txt"))  # stopped at its cap, mid-line
    assert cut is not None and cut.mb_per_sec < base.mb_per_sec / 10


def test_a_working_consumer_reads_what_its_members_get_through_in_a_few_seconds():
    assert read_side.worked_reads(None, 150_000) == 150_000
    assert read_side.worked_reads(Consuming(), 150_000) == 150_000  # no work: as many as the tool would read
    working = Consuming(Commit.POLL_SYNC, 200, 3)
    assert read_side.worked_reads(working, 150_000) == int(read_side.WORK_S * 1e6 * 3 / 200)
    assert read_side.work_s(working, 75_000) == 5.0  # added to its cap: the reference's tool does no work
    assert read_side.worked_reads(Consuming(Commit.AUTO, 10_000_000, 1), 150_000) == 1


def flags_of(argv: list[str]) -> dict[str, str]:
    at = argv.index("--bootstrap-servers")
    return dict(zip(argv[at::2], argv[at + 1::2]))


def test_at_a_rate_a_service_reads_in_a_fresh_group_that_works_and_commits_as_it_does(tmp_path, monkeypatch):
    monkeypatch.setattr(at_rate.loadgen, "ensure", lambda: ())
    producer, consumer = tmp_path / "p.properties", tmp_path / "c.properties"
    working = at_rate.rate_argv(FakeCluster(), "t", 1024, 5, 1, producer, consumer,
                                consuming=Consuming(Commit.POLL_SYNC, 200, 3))
    flags = flags_of(working)
    assert flags["--group-id"].startswith("kcliff-") and flags["--consumer-config"] == str(consumer)
    assert (flags["--commit"], flags["--members"], flags["--process-us"]) == ("poll-sync", "3", "200")
    again = flags_of(at_rate.rate_argv(FakeCluster(), "t", 1024, 5, 1, producer, consumer,
                                       consuming=Consuming(Commit.POLL_SYNC, 200, 3)))
    assert again["--group-id"] != flags["--group-id"]  # a fresh group: no offsets of an earlier run
    plain = flags_of(at_rate.rate_argv(FakeCluster(), "t", 1024, 5, 1, producer, consumer))
    assert "--group-id" not in plain and "--commit" not in plain  # the tool's consumer, assigned every partition
    through = at_rate.FailoverArgs(500, tmp_path / "stop", "kcliff-fo")
    fault = flags_of(at_rate.rate_argv(FakeCluster(), "t", 1024, 5, 1, producer, consumer, failover=through,
                                       consuming=Consuming(Commit.POLL_SYNC, 200, 3)))
    assert fault["--group-id"] == "kcliff-fo" and "--commit" not in fault  # through a fault: its own group


def recorded_rate(name: str) -> rate_output.RateSummary:
    summary = rate_output.parse((LOADGEN / name).read_text().splitlines()).summary
    assert summary is not None
    return summary


def test_a_group_at_a_rate_says_how_long_it_took_to_join_and_what_it_committed():
    kip848 = recorded_rate("group-consumer-protocol-1024rps.log")  # three members, Kafka 4's group protocol
    assert kip848.group_join_ms is not None and kip848.group_join_ms > 4000  # assigned at heartbeats 5 s apart
    assert kip848.consumed == kip848.scheduled == 5000 and kip848.held_rate
    assert kip848.commits is not None and 0 < kip848.commits < 5000  # after each poll
    each = recorded_rate("group-record-sync-1024rps.log")  # one member, commitSync after each record
    assert each.commits is not None and each.commits >= each.consumed  # warm-up records committed too
    assert each.end_to_end is not None and each.end_to_end.p50_ms is not None
    assert each.end_to_end.p50_ms > 1000  # a commit's round trip each: it fell seconds behind 1,024 records/s


@pytest.mark.kafka
def test_a_real_group_at_a_rate_reads_every_record_once_across_its_members(shared_cluster, tmp_path: Path):
    with topic_of_24(shared_cluster) as (cluster, topic):
        ran = at_rate.rate_run(cluster, topic, 300, 3.0, 1.0, {**INVARIANTS["producer"], "linger.ms": 5},
                               {"max.poll.records": 50}, tmp_path / "r.log", drain_s=10.0,
                               consuming=Consuming(Commit.POLL_SYNC, 200, 3))
    s = ran.summary
    assert s is not None, ran.failure
    assert s.held_rate and (s.scheduled, s.unconsumed, s.errors) == (900, 0, 0), s
    assert s.consumed == 900 and s.end_to_end is not None and s.end_to_end.count == 900
    assert s.commits is not None and s.commits > 0 and s.group_join_ms is not None and s.group_join_ms > 0

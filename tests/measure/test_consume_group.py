"""A consumer that consumes as its service does (scenario/consuming.py) without a cluster: the load
generator's argv, its output as recorded from real runs (Kafka 4.1.0, three members committing after each
poll, 0.2 ms a record: 500 records a poll, then one) read by the consumer tool's parser, and how many
records a read of a working consumer reads and how long it may take."""

from __future__ import annotations

from pathlib import Path

from kcliff.kafka import release as kafka_release
from kcliff.measure import read_output, read_side
from kcliff.scenario.consuming import Commit, Consuming

DATA = Path(__file__).resolve().parents[1] / "data" / "read-side"


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

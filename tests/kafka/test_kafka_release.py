"""Each release's tool traits (kafka_release) against what its own jars say: the argv kcliff builds for
3.3.2, 3.9.2, 4.0.0, 4.1.0, 4.2.0 and 4.4.0 uses only flags that release's tool lists in its --help,
and the classes it names are where that release's jars have them. The help texts and the class
listing were recorded from the releases' Maven jars (tests/data/tool-help/)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from conftest import run_kcliff
from kcliff.backends import compose
from kcliff.backends.base import Cluster
from kcliff.errors import InputError
from kcliff.kafka import release as kafka_release
from kcliff.kafka.release import Logging, LogRole
from kcliff.measure import producer as measure
from kcliff.measure import read_side
from kcliff.scenario import settings
from kcliff.scenario.payload import PayloadKind
from kcliff.scenario.payload_files import PreparedPayload

HELP = Path(__file__).resolve().parents[1] / "data" / "tool-help"
RELEASES = ["3.3.2", "3.9.2", "4.0.0", "4.1.0", "4.2.0", "4.4.0"]
FLAG = re.compile(r"(?<![\w-])--[a-z][a-z.-]*[a-z]")


def listed_flags(release: str, tool: str) -> set[str]:
    return set(FLAG.findall((HELP / f"{release}-{tool}.txt").read_text()))


def classes(release: str) -> set[str]:
    rows = [line.split() for line in (HELP / "classes.txt").read_text().splitlines() if not line.startswith("#")]
    return {name for version, _jar, name in rows if version == release}


class ToolsOf(Cluster):
    """The argv a backend would run, for tools of `version` (no process is started)."""

    backend = "stand-in"
    admin_bootstrap = tool_bootstrap = "127.0.0.1:9092,127.0.0.1:9093"

    def __init__(self, version: str) -> None:
        self.version = version

    @property
    def release(self) -> kafka_release.KafkaRelease:
        return kafka_release.of(self.version)

    def tool_command(self, main_class: str, args: list[str], files: tuple[Path, ...] = ()) -> list[str]:
        return ["java", main_class, *args]

    def down(self) -> None:
        pass


def flags_in(argv: list[str]) -> set[str]:
    return {a for a in argv if a.startswith("--")}


@pytest.mark.parametrize("version", RELEASES)
def test_the_producer_argv_uses_only_flags_the_releases_tool_lists(version):
    argv = measure.perf_argv(ToolsOf(version), "t", 50_000, {"acks": "all", "linger.ms": 5}, quiet=1000)
    assert argv[1] == kafka_release.PRODUCER_CLASS in classes(version)
    assert flags_in(argv) <= listed_flags(version, "producer"), flags_in(argv) - listed_flags(version, "producer")
    props = argv[argv.index("--producer-props" if version < "4.2" else "--command-property") + 1:]
    assert props == ["acks=all", "linger.ms=5", "bootstrap.servers=127.0.0.1:9092,127.0.0.1:9093"]
    warm = kafka_release.of(version).producer_warmup
    assert ("--warmup-records" in argv) is warm and ("--reporting-interval" in argv) is warm
    if warm:
        assert argv[argv.index("--warmup-records") + 1] == "1000"
        assert argv[argv.index("--reporting-interval") + 1] == str(measure.REPORTING_INTERVAL_MS)


@pytest.mark.parametrize("version", RELEASES)
@pytest.mark.parametrize("delimiter", ["\n", "\x1e"])
def test_a_payload_file_takes_the_place_of_the_record_size_in_every_release(version, delimiter, tmp_path):
    values = tmp_path / "values; rm -rf ~.txt"  # a path is one argv element, never a shell's word
    payload = PreparedPayload(PayloadKind.SAMPLES, "0" * 64, 2, True, 3, 4.0, 4.0, 5, values, delimiter,
                              tmp_path / "records.b64")
    mounted: list[tuple[Path, ...]] = []

    class Mounting(ToolsOf):
        def tool_command(self, main_class: str, args: list[str], files: tuple[Path, ...] = ()) -> list[str]:
            mounted.append(files)
            return ["java", main_class, *args]

    argv = measure.perf_argv(Mounting(version), "t", 50_000, {"acks": "all"}, payload=payload)
    assert flags_in(argv) <= listed_flags(version, "producer"), flags_in(argv) - listed_flags(version, "producer")
    assert "--record-size" not in argv and argv[argv.index("--payload-file") + 1] == str(values)
    assert ("--payload-delimiter" in argv) is (delimiter != "\n")  # newline is the tool's default
    if delimiter != "\n":
        assert argv[argv.index("--payload-delimiter") + 1] == delimiter
    assert "--print-metrics" in argv and mounted == [(values,)]  # the compose backend mounts what it is given
    plain = measure.perf_argv(Mounting(version), "t", 50_000, {"acks": "all"}, record_size=200)
    assert plain[plain.index("--record-size") + 1] == "200" and "--payload-file" not in plain
    assert "--print-metrics" in plain and mounted[-1] == ()


def test_the_warm_up_and_the_reporting_interval_came_with_4_2():
    # ground truth for the traits: which help texts list the flags (4.0 and 4.1 do not)
    for version in RELEASES:
        listed = listed_flags(version, "producer")
        assert ("--warmup-records" in listed) is (version >= "4.2") is ("--reporting-interval" in listed)
        assert ("--command-property" in listed) is kafka_release.of(version).shared_tool_flags


@pytest.mark.parametrize("version", RELEASES)
def test_the_consumer_argv_uses_only_flags_the_releases_tool_lists(version, tmp_path):
    config = tmp_path / "consumer.properties"
    argv = read_side.consumer_argv(ToolsOf(version), "t", 150_000, {"max.poll.records": 1, "fetch.min.bytes": 1},
                                   30, config)
    release = kafka_release.of(version)
    assert argv[1] == release.consumer_class in classes(version)
    assert flags_in(argv) <= listed_flags(version, "consumer"), flags_in(argv) - listed_flags(version, "consumer")
    count = "--num-records" if version >= "4.2" else "--messages"
    assert argv[argv.index(count) + 1] == "150000"
    if release.shared_tool_flags:
        assert argv[argv.index("--command-property") + 1:] == ["max.poll.records=1", "fetch.min.bytes=1"]
        assert not config.exists()
    else:  # settings reach the tool only through its --consumer.config file
        assert argv[argv.index("--consumer.config") + 1] == str(config.resolve())
        assert config.read_text() == "max.poll.records=1\nfetch.min.bytes=1\n"
    bare = read_side.consumer_argv(ToolsOf(version), "t", 10, {}, 30, tmp_path / "none.properties")
    assert "--consumer.config" not in bare and "--command-property" not in bare


@pytest.mark.parametrize("version", RELEASES)
def test_the_end_to_end_argv_is_in_the_releases_form(version, tmp_path):
    seen: list[list[str]] = []

    class Recording(ToolsOf):
        def tool_command(self, main_class: str, args: list[str], files: tuple[Path, ...] = ()) -> list[str]:
            seen.append([main_class, *args])
            return ["true"]

    read_side.latency_run(Recording(version), "t", {"acks": "all", "linger.ms": 5}, {"fetch.min.bytes": 1}, 5,
                          tmp_path / "e2e.properties", tmp_path / "e2e.log")
    main_class, *args = seen[0]
    assert main_class == kafka_release.of(version).latency_class in classes(version)
    config = str((tmp_path / "e2e.properties").resolve())
    help_text = (HELP / f"{version}-e2e.txt").read_text()
    if version >= "4.2":
        assert flags_in(args) <= listed_flags(version, "e2e")
        assert args[args.index("--command-config") + 1] == config
    else:  # USAGE: ... broker_list topic num_messages producer_acks message_size_bytes [optional] properties_file
        assert "broker_list topic num_messages producer_acks message_size_bytes [optional] properties_file" in help_text
        assert args == ["127.0.0.1:9092,127.0.0.1:9093", "t", str(read_side.LATENCY_RECORDS), "all",
                        str(settings.RECORD_SIZE), config]


def test_the_tool_classes_moved_out_of_core_at_3_5():
    assert kafka_release.of("3.4.1").consumer_class == "kafka.tools.ConsumerPerformance"
    assert kafka_release.of("3.4.1").latency_class == "kafka.tools.EndToEndLatency"
    assert kafka_release.of("3.5.0").consumer_class == "org.apache.kafka.tools.ConsumerPerformance"
    for version in ["3.3.2", "3.9.2", "4.4.0"]:
        assert {kafka_release.STORAGE_CLASS, kafka_release.BROKER_CLASS} <= classes(version)


def test_3x_logs_through_reload4j_and_4x_through_log4j2():
    old, new = kafka_release.of("3.9.2"), kafka_release.of("4.0.0")
    assert old.logging is Logging.RELOAD4J and new.logging is Logging.LOG4J2
    for role in LogRole:
        option = old.log_option(role)
        assert option.startswith("-Dlog4j.configuration=file:")
        assert Path(option.split("file:", 1)[1]).is_file()
        assert Path(new.log_option(role).split("=", 1)[1]).is_file()


@pytest.mark.parametrize("version,says", [
    ("3.2.3", "Kafka 3.2.3 is before 3.3.0, the first release kcliff can run as a KRaft cluster"),
    ("2.8.2", "older releases need ZooKeeper"),
    ("4.3", "expected a release number such as 3.9.2 or 4.2.0"),
    ("latest", "expected a release number"),
])
def test_what_cannot_be_measured_says_why(version, says):
    why = kafka_release.measurable(version)
    assert why is not None and says in why
    with pytest.raises(ValueError, match=re.escape(says)):
        kafka_release.of(version)


@pytest.mark.parametrize("version", ["3.3.0", "3.3.2", "3.4.1", "3.9.2", "4.0.0", "4.4.0"])
def test_every_kraft_release_from_3_3_can_be_measured(version):
    assert kafka_release.measurable(version) is None


def test_a_libs_directory_says_its_release(tmp_path):
    for name in ["kafka_2.13-3.9.2.jar", "kafka-clients-3.9.2.jar", "kafka-tools-3.9.2.jar"]:
        (tmp_path / name).touch()
    assert kafka_release.of_libs(tmp_path) == kafka_release.of("3.9.2")
    assert kafka_release.of_libs(tmp_path / "nothing") is None


def test_a_stop_rule_without_quiet_records_judges_lines_only():
    # 3.x prints a line every 5 s: 4 s after its first line the tool has said nothing more, which is no
    # evidence; the rule judges at the next line, over the records reported by then
    line = measure.PerfLine(records=500, records_per_sec=100.0, mb_per_sec=0.1, avg_ms=5.0, max_ms=9.0)
    rule = measure.cliff_stop_rule(10.0, 0.5, 0, quiet_ticks=False)
    assert rule(line, 5.0) is None and rule(None, 9.5) is None
    assert (rule(line, 10.0) or "").startswith("cliff:")
    ticking = measure.cliff_stop_rule(10.0, 0.5, 0)
    assert ticking(line, 5.0) is None and (ticking(None, 9.5) or "").startswith("cliff:")


def test_a_release_before_3_3_is_refused_before_anything_starts(tmp_path):
    done = run_kcliff("run", "--kafka-version", "3.2.3", "--only", "reference", "--no-baselines",
                      "--workdir", str(tmp_path / "w"), timeout=120)
    assert done.returncode == 2 and "Kafka 3.2.3 is before 3.3.0" in done.stderr, done.stderr
    assert "Traceback" not in done.stderr and not list(tmp_path.rglob("broker.log"))  # no broker was started


def test_the_compose_backend_refuses_3x_with_its_reason(tmp_path):
    with pytest.raises(InputError, match="the compose backend runs Kafka 4.x only.*use --backend local"):
        compose.start_compose_cluster(tmp_path, "3.9.2")

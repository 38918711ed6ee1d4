"""What each Kafka release's jars can do, as kcliff runs them: the one place that knows which tool
classes and flags a release has and how it logs. Every trait here was read from the release's own
jars (their class listing, each tool's --help; tests/data/tool-help/ keeps the help texts).

- ProducerPerformance is org.apache.kafka.tools's in every release kcliff runs. ConsumerPerformance
  and EndToEndLatency were Scala tools in core (kafka.tools) until 3.4 and are org.apache.kafka.tools's
  from 3.5. StorageTool is kafka.tools's throughout.
- From 4.2 the client tools share one set of flags (--bootstrap-server, --command-property,
  --command-config; kcliff gives the producer's bootstrap.servers as a property, as before); the producer's tool gained --reporting-interval and --warmup-records (KIP-1052),
  the consumer's --num-records, and EndToEndLatency named options. Before 4.2 (4.0 and 4.1 too) the
  producer takes --producer-props and reports every 5 s, the consumer takes --messages and its
  settings only in a --consumer.config file, and EndToEndLatency takes positional arguments.
- Kafka 3.x logs through log4j 1.x (reload4j, its jars come with kafka_2.13); 4.x through log4j2,
  which kcliff's pom adds.
"""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass
from pathlib import Path

from kcliff.resources import DATA

MEASURABLE_FROM = (3, 3)  # KRaft is production-ready from 3.3; kcliff starts no ZooKeeper
_NUMBER = re.compile(r"^(\d+)\.(\d+)\.(\d+)$")
_CLIENTS_JAR = re.compile(r"^kafka-clients-(\d+\.\d+\.\d+)\.jar$")
PRODUCER_CLASS = "org.apache.kafka.tools.ProducerPerformance"
STORAGE_CLASS = "kafka.tools.StorageTool"
BROKER_CLASS = "kafka.Kafka"


class Logging(enum.Enum):
    """The logging backend a release's JVMs configure, and the system property naming its file."""

    LOG4J2 = "log4j2"
    RELOAD4J = "reload4j"


class LogRole(enum.Enum):
    """Whose logging: a broker (INFO to stdout, its node's log) or a tool (WARN to stderr: stdout is parsed)."""

    BROKER = "broker"
    TOOLS = "tools"


@dataclass(frozen=True, order=True)
class KafkaRelease:
    parts: tuple[int, int, int]

    @property
    def version(self) -> str:
        return ".".join(map(str, self.parts))

    def at_least(self, major: int, minor: int) -> bool:
        return self.parts[:2] >= (major, minor)

    # -- logging ---------------------------------------------------------------------------------
    @property
    def logging(self) -> Logging:
        return Logging.LOG4J2 if self.at_least(4, 0) else Logging.RELOAD4J

    def log_option(self, role: LogRole) -> str:
        """The JVM option pointing this release's logging at kcliff's config for `role`."""
        if self.logging is Logging.LOG4J2:
            return f"-Dlog4j2.configurationFile={DATA / f'log4j2-{role.value}.xml'}"
        return f"-Dlog4j.configuration=file:{DATA / f'log4j-{role.value}.properties'}"

    # -- tool classes ----------------------------------------------------------------------------
    @property
    def consumer_class(self) -> str:
        return ("org.apache.kafka.tools" if self.at_least(3, 5) else "kafka.tools") + ".ConsumerPerformance"

    @property
    def latency_class(self) -> str:
        return ("org.apache.kafka.tools" if self.at_least(3, 5) else "kafka.tools") + ".EndToEndLatency"

    # -- tool flags ------------------------------------------------------------------------------
    @property
    def shared_tool_flags(self) -> bool:
        """--bootstrap-server/--command-property for the producer, --num-records/--command-property for
        the consumer, named options for EndToEndLatency (4.2 on)."""
        return self.at_least(4, 2)

    @property
    def producer_warmup(self) -> bool:
        """ProducerPerformance's --warmup-records: a steady-state summary leaving the first records out."""
        return self.at_least(4, 2)

    def producer_args(self, topic: str, records: int, record_size: int, throughput: int, props: list[str],
                      interval_ms: int, quiet: int, payload_file: Path | None = None,
                      delimiter: str = "\n") -> list[str]:
        """ProducerPerformance's arguments; `props` are k=v producer settings, bootstrap.servers
        included (one element each), `quiet` the warm-up records left out of its figures (0: none;
        more needs producer_warmup). Records are `record_size` random letters, or the values in
        `payload_file` split at `delimiter` (a regex to the tool; kcliff's match only themselves), one
        drawn at random per record: every release from 3.3 takes both forms. --print-metrics: the
        producer's metrics after the summary, for its compression rate."""
        sent = ["--record-size", str(record_size)] if payload_file is None else ["--payload-file", str(payload_file)]
        if payload_file is not None and delimiter != "\n":  # the tool's default
            sent += ["--payload-delimiter", delimiter]
        args = ["--topic", topic, "--num-records", str(records), *sent, "--throughput", str(throughput),
                "--print-metrics"]
        if not self.shared_tool_flags:
            if quiet:
                raise ValueError(f"Kafka {self.version}'s producer tool has no --warmup-records")
            return args + ["--producer-props", *props]
        args += ["--reporting-interval", str(interval_ms)]
        if quiet:
            args += ["--warmup-records", str(quiet)]
        return args + ["--command-property", *props]

    def consumer_args(self, topic: str, records: int, bootstrap: str, group: str, interval_ms: int, timeout_ms: int,
                      flags: list[str], props: list[str], config: Path | None) -> list[str]:
        """ConsumerPerformance's arguments: `flags` its own options (--fetch-size N ...), `props` k=v
        consumer settings; before 4.2 those go into the file `config` (written here), the only way in."""
        args = ["--bootstrap-server", bootstrap, "--topic", topic,
                "--num-records" if self.shared_tool_flags else "--messages", str(records), "--group", group,
                "--show-detailed-stats", "--reporting-interval", str(interval_ms), "--timeout", str(timeout_ms),
                *flags]
        if not props:
            return args
        if self.shared_tool_flags:
            return args + ["--command-property", *props]
        if config is None:
            raise ValueError(f"Kafka {self.version}'s consumer tool takes settings only from a file")
        config.write_text("".join(f"{p}\n" for p in props))
        return args + ["--consumer.config", str(config)]

    def latency_args(self, topic: str, records: int, bootstrap: str, acks: str, record_size: int,
                     config: Path | None) -> list[str]:
        """EndToEndLatency's arguments; `config` a properties file of producer and consumer settings."""
        if not self.shared_tool_flags:  # broker_list topic num_messages producer_acks message_size [properties]
            return [bootstrap, topic, str(records), acks, str(record_size), *([str(config)] if config else [])]
        return ["--bootstrap-server", bootstrap, "--topic", topic, "--num-records", str(records),
                "--producer-acks", acks, "--record-size", str(record_size),
                *(["--command-config", str(config)] if config else [])]


def parse(version: str) -> KafkaRelease | None:
    found = _NUMBER.match(version.strip())
    if found is None:
        return None
    major, minor, patch = (int(x) for x in found.groups())
    return KafkaRelease((major, minor, patch))


def measurable(version: str) -> str | None:
    """Why kcliff cannot start and measure a cluster of `version`, or None when it can."""
    release = parse(version)
    if release is None:
        return f"Kafka version {version!r}: expected a release number such as 3.9.2 or 4.2.0"
    if not release.at_least(*MEASURABLE_FROM):
        first = ".".join(map(str, MEASURABLE_FROM))
        return (f"Kafka {release.version} is before {first}.0, the first release kcliff can run as a KRaft "
                f"cluster (older releases need ZooKeeper, which kcliff does not start)")
    return None


def of(version: str) -> KafkaRelease:
    """The release `version` names; ValueError for one kcliff cannot measure (callers check measurable)."""
    why = measurable(version)
    release = parse(version)
    if why is not None or release is None:
        raise ValueError(why)
    return release


def of_libs(libs: Path) -> KafkaRelease | None:
    """The release whose jars are in `libs` (a distribution's libs/ or kcliff's cache), from its
    kafka-clients jar's name; None when there is none."""
    for jar in sorted(libs.glob("kafka-clients-*.jar")):
        found = _CLIENTS_JAR.match(jar.name)
        if found:
            return parse(found.group(1))
    return None

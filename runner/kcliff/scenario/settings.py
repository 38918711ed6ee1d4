"""The catalogue of Kafka settings kcliff knows: where each lives, its type, range, default and how it is applied.

Defaults are Kafka 4.2's. `apply` says how a change reaches a running cluster:
  dynamic  - cluster-wide dynamic broker config, no restart (read back before measuring)
  stepped  - dynamic thread pool: Kafka accepts only half..double of the current size per change
  restart  - read-only broker config: the brokers must restart with an override
  topic    - a topic config, set when the scenario's fresh topic is created
  client   - a producer property, passed to the perf tool
  consumer - a consumer property (linted in config repos; the consumer workload is next)
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from typing import Any

LONG_MAX = 9223372036854775807
INT_MAX = 2147483647

# What a scenario carries and the producer workload measures.
SCOPES = ("broker", "topic", "producer")
# What the catalogue, config repos and cliff rules know: consumer settings are typed and linted too.
ALL_SCOPES = (*SCOPES, "consumer")


@dataclass(frozen=True)
class Setting:
    name: str
    scope: str
    kind: str  # "int" | "bool" | "enum" | "list" (Kafka's LIST: class names, comma-separated)
    default: Any
    apply: str
    minimum: int | None = None
    maximum: int | None = None
    choices: tuple[str, ...] = ()

    def describe_valid(self) -> str:
        if self.kind == "enum":
            return "one of " + ", ".join(self.choices)
        if self.kind == "bool":
            return "true or false"
        if self.kind == "list":
            return "a comma-separated list of class names"
        upper = f" and <= {self.maximum}" if self.maximum is not None else ""
        return f"an integer >= {self.minimum}{upper}"

    def check(self, value: Any) -> str | None:
        """Return why `value` is invalid for this setting, or None when it is valid."""
        if self.kind == "bool":
            return None if isinstance(value, bool) else f"expected {self.describe_valid()}, got {value!r}"
        if self.kind == "enum":
            if isinstance(value, str) and value in self.choices:
                return None
            return f"expected {self.describe_valid()}, got {value!r}"
        if self.kind == "list":
            names = as_list(value)
            return None if names and all(names) else f"expected {self.describe_valid()}, got {value!r}"
        if isinstance(value, bool) or not isinstance(value, int):
            return f"expected {self.describe_valid()}, got {value!r}"
        if self.minimum is not None and value < self.minimum:
            return f"{value} is out of range: expected {self.describe_valid()}"
        if self.maximum is not None and value > self.maximum:
            return f"{value} is out of range: expected {self.describe_valid()}"
        return None


def as_kafka_value(value: Any) -> str:
    """Kafka configs are strings; booleans are lower case, lists comma-separated."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (list, tuple)):
        return ",".join(str(v) for v in value)
    return str(value)


def as_list(value: Any) -> list[str]:
    """A LIST setting's entries, given as a list or as Kafka's comma-separated string."""
    items = value if isinstance(value, (list, tuple)) else str(value).split(",")
    return [str(v).strip() for v in items]


# the classic protocol's assignors, in preference order, as Kafka's ConsumerConfig lists them
_DEFAULT_ASSIGNORS = ["org.apache.kafka.clients.consumer.RangeAssignor",
                      "org.apache.kafka.clients.consumer.CooperativeStickyAssignor"]
_BROKER_COMPRESSION = ("uncompressed", "zstd", "lz4", "snappy", "gzip", "producer")
_PRODUCER_COMPRESSION = ("none", "gzip", "snappy", "lz4", "zstd")


def _int(name: str, scope: str, default: Any, apply: str, minimum: int = 0, maximum: int | None = None) -> Setting:
    return Setting(name, scope, "int", default, apply, minimum=minimum, maximum=maximum)


CATALOGUE: tuple[Setting, ...] = (
    # broker, dynamic without restart
    _int("log.flush.interval.messages", "broker", LONG_MAX, "dynamic", 1, LONG_MAX),
    _int("log.flush.interval.ms", "broker", None, "dynamic", 0, LONG_MAX),
    _int("log.segment.bytes", "broker", 1073741824, "dynamic", 1048576, INT_MAX),
    # no default of its own: log.roll.hours (168) applies; Kafka validates it only as the topics' segment.ms (>= 1)
    _int("log.roll.ms", "broker", None, "dynamic", 1, LONG_MAX),
    Setting("compression.type", "broker", "enum", "producer", "dynamic", choices=_BROKER_COMPRESSION),
    _int("message.max.bytes", "broker", 1048588, "dynamic", 0, INT_MAX),
    _int("num.io.threads", "broker", 8, "stepped", 1, 64),
    _int("num.network.threads", "broker", 3, "stepped", 1, 64),
    _int("num.replica.fetchers", "broker", 1, "stepped", 1, 64),
    # broker, read-only: restart with an override
    _int("socket.send.buffer.bytes", "broker", 102400, "restart", -1, INT_MAX),
    _int("socket.receive.buffer.bytes", "broker", 102400, "restart", -1, INT_MAX),
    _int("socket.request.max.bytes", "broker", 104857600, "restart", 1, INT_MAX),
    _int("replica.socket.receive.buffer.bytes", "broker", 65536, "restart", -1, INT_MAX),
    _int("replica.fetch.max.bytes", "broker", 1048576, "restart", 0, INT_MAX),
    _int("replica.fetch.min.bytes", "broker", 1, "restart", 1, INT_MAX),
    _int("replica.fetch.wait.max.ms", "broker", 500, "restart", 0, INT_MAX),
    _int("log.flush.scheduler.interval.ms", "broker", LONG_MAX, "restart", 0, LONG_MAX),
    _int("queued.max.requests", "broker", 500, "restart", 1, INT_MAX),
    # Kafka refuses to start when it is below replica.fetch.wait.max.ms (KafkaConfig's check)
    _int("replica.lag.time.max.ms", "broker", 30000, "restart", 0, LONG_MAX),
    # how long a dead broker keeps its partitions' leadership: measured through a fault (docs/failover.md)
    _int("broker.session.timeout.ms", "broker", 9000, "restart", 1, INT_MAX),
    _int("broker.heartbeat.interval.ms", "broker", 2000, "restart", 1, INT_MAX),
    # whether a stopping broker hands its leaderships over first: measured through a rolling restart
    Setting("controlled.shutdown.enable", "broker", "bool", True, "restart"),
    # whether a replica out of sync may lead when none in sync lives: measured through a follower held behind
    Setting("unclean.leader.election.enable", "broker", "bool", False, "restart"),
    # what a broker's death and return cost, measured through a fault only (results/metrics.FAILOVER_SETTINGS)
    _int("num.recovery.threads.per.data.dir", "broker", 2, "stepped", 1, 64),
    _int("leader.imbalance.check.interval.seconds", "broker", 300, "restart", 1, LONG_MAX),
    Setting("auto.leader.rebalance.enable", "broker", "bool", True, "restart"),
    _int("controller.quorum.election.timeout.ms", "broker", 1000, "restart", 0, INT_MAX),
    _int("controller.quorum.fetch.timeout.ms", "broker", 2000, "restart", 0, INT_MAX),
    # Kafka 4's group protocol: the brokers decide a member's session and heartbeat (scenario/combinations.py)
    _int("group.consumer.session.timeout.ms", "broker", 45000, "restart", 1, INT_MAX),
    _int("group.consumer.heartbeat.interval.ms", "broker", 5000, "restart", 1, INT_MAX),
    _int("group.consumer.min.session.timeout.ms", "broker", 45000, "restart", 1, INT_MAX),
    _int("group.consumer.max.session.timeout.ms", "broker", 60000, "restart", 1, INT_MAX),
    _int("group.consumer.min.heartbeat.interval.ms", "broker", 5000, "restart", 1, INT_MAX),
    _int("group.consumer.max.heartbeat.interval.ms", "broker", 15000, "restart", 1, INT_MAX),
    # topic
    _int("partitions", "topic", 6, "topic", 1, 1000),
    _int("flush.messages", "topic", LONG_MAX, "topic", 1, LONG_MAX),
    _int("flush.ms", "topic", LONG_MAX, "topic", 0, LONG_MAX),
    _int("segment.bytes", "topic", 1073741824, "topic", 1048576, INT_MAX),
    _int("segment.ms", "topic", 604800000, "topic", 1, LONG_MAX),
    Setting("compression.type", "topic", "enum", "producer", "topic", choices=_BROKER_COMPRESSION),
    _int("max.message.bytes", "topic", 1048588, "topic", 0, INT_MAX),
    _int("retention.bytes", "topic", -1, "topic", -1, LONG_MAX),
    _int("retention.ms", "topic", 604800000, "topic", -1, LONG_MAX),
    Setting("unclean.leader.election.enable", "topic", "bool", False, "topic"),
    # producer
    _int("batch.size", "producer", 16384, "client", 0, INT_MAX),
    _int("linger.ms", "producer", 5, "client", 0, INT_MAX),
    _int("max.in.flight.requests.per.connection", "producer", 5, "client", 1, INT_MAX),
    Setting("compression.type", "producer", "enum", "none", "client", choices=_PRODUCER_COMPRESSION),
    _int("buffer.memory", "producer", 33554432, "client", 0, LONG_MAX),
    _int("send.buffer.bytes", "producer", 131072, "client", -1, INT_MAX),
    _int("receive.buffer.bytes", "producer", 32768, "client", -1, INT_MAX),
    _int("max.request.size", "producer", 1048576, "client", 1, INT_MAX),
    Setting("enable.idempotence", "producer", "bool", True, "client"),
    _int("request.timeout.ms", "producer", 30000, "client", 0, INT_MAX),
    _int("delivery.timeout.ms", "producer", 120000, "client", 0, INT_MAX),
    # how the producer rides out an outage: measured through a fault only
    _int("retries", "producer", INT_MAX, "client", 0, INT_MAX),
    _int("retry.backoff.ms", "producer", 100, "client", 0, LONG_MAX),
    _int("retry.backoff.max.ms", "producer", 1000, "client", 0, LONG_MAX),
    _int("max.block.ms", "producer", 60000, "client", 0, LONG_MAX),
    _int("metadata.max.age.ms", "producer", 300000, "client", 0, LONG_MAX),
    _int("reconnect.backoff.max.ms", "producer", 1000, "client", 0, LONG_MAX),
    # consumer: Kafka 4.2's ConsumerConfig defaults and validators
    _int("max.poll.records", "consumer", 500, "consumer", 1, INT_MAX),
    _int("fetch.min.bytes", "consumer", 1, "consumer", 0, INT_MAX),
    _int("fetch.max.bytes", "consumer", 52428800, "consumer", 0, INT_MAX),
    _int("fetch.max.wait.ms", "consumer", 500, "consumer", 0, INT_MAX),
    _int("max.partition.fetch.bytes", "consumer", 1048576, "consumer", 0, INT_MAX),
    _int("receive.buffer.bytes", "consumer", 65536, "consumer", -1, INT_MAX),
    _int("send.buffer.bytes", "consumer", 131072, "consumer", -1, INT_MAX),
    Setting("enable.auto.commit", "consumer", "bool", True, "consumer"),
    _int("auto.commit.interval.ms", "consumer", 5000, "consumer", 0, INT_MAX),
    Setting("check.crcs", "consumer", "bool", True, "consumer"),
    Setting("isolation.level", "consumer", "enum", "read_uncommitted", "consumer",
            choices=("read_uncommitted", "read_committed")),
    # a consumer group member's timeouts and protocol: measured by killing a member (docs/failover.md). The
    # client types them with no range; the brokers refuse a session outside their group.min/max session
    # timeouts, and the consumer protocol refuses the first two (scenario/combinations.py)
    _int("session.timeout.ms", "consumer", 45000, "consumer", 1, INT_MAX),
    _int("heartbeat.interval.ms", "consumer", 3000, "consumer", 1, INT_MAX),
    _int("max.poll.interval.ms", "consumer", 300000, "consumer", 1, INT_MAX),
    Setting("group.protocol", "consumer", "enum", "classic", "consumer", choices=("classic", "consumer")),
    # who gets a dead member's partitions: the client's assignors (classic), the brokers' (consumer protocol)
    Setting("partition.assignment.strategy", "consumer", "list", _DEFAULT_ASSIGNORS, "consumer"),
    Setting("group.remote.assignor", "consumer", "enum", None, "consumer", choices=("uniform", "range")),
    _int("request.timeout.ms", "consumer", 30000, "consumer", 0, INT_MAX),
    _int("default.api.timeout.ms", "consumer", 60000, "consumer", 0, INT_MAX),
)

# Fixed for every scenario; a scenario may repeat them but not change them.
INVARIANTS: dict[str, dict[str, Any]] = {
    "producer": {"acks": "all"},
    "topic": {"replication.factor": 3, "min.insync.replicas": 2},
    "broker": {"min.insync.replicas": 2, "default.replication.factor": 3},
}
RECORD_SIZE = 1024
MAX_PRODUCERS = 16  # producer processes at once: each is a JVM on the load-generating host
# a record must fit a request and a broker's largest message at their defaults (max.request.size 1 MiB)
MAX_RECORD_SIZE = 1_000_000

_BY_SCOPE: dict[str, dict[str, Setting]] = {scope: {} for scope in ALL_SCOPES}
for _s in CATALOGUE:
    _BY_SCOPE[_s.scope][_s.name] = _s


def lookup(scope: str, name: str) -> Setting | None:
    return _BY_SCOPE.get(scope, {}).get(name)


def require(scope: str, name: str) -> Setting:
    """The catalogue's entry for a name that was validated on input (a scenario's, a space's): a
    missing one is kcliff's bug, not the user's, so it raises KeyError rather than returning None."""
    found = lookup(scope, name)
    if found is None:
        raise KeyError(f"{scope} setting {name!r} is not in kcliff's catalogue")
    return found


def names(scope: str) -> list[str]:
    return sorted(_BY_SCOPE[scope])


def suggest(scope: str, name: str) -> str:
    """A 'did you mean' hint: the closest known name in this scope, or the scope that has the name."""
    close = difflib.get_close_matches(name, names(scope), n=1, cutoff=0.6)
    if close:
        return f"did you mean '{close[0]}'?"
    elsewhere = [s for s in ALL_SCOPES if s != scope and name in _BY_SCOPE[s]]
    if elsewhere:
        return f"'{name}' is a {elsewhere[0]} setting"
    return f"known {scope} settings: {', '.join(names(scope))}"


def defaults(scope: str) -> dict[str, Any]:
    return {n: s.default for n, s in _BY_SCOPE[scope].items() if s.default is not None}

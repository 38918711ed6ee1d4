"""Admin calls against a running cluster (topics and their configs, dynamic broker configs, read-back).

confluent-kafka's AdminClient is used instead of Kafka's CLI tools: each CLI call would start a JVM,
seconds each, several times per scenario.
"""

from __future__ import annotations

import concurrent.futures
import time
import uuid
from dataclasses import dataclass
from typing import Any, Callable, Mapping, TypeVar

from confluent_kafka import KafkaError, KafkaException
from confluent_kafka.admin import (
    AdminClient,
    AlterConfigOpType,
    ConfigEntry,
    ConfigResource,
    ConfigSource,
    NewTopic,
    ResourceType,
)

from kcliff.errors import ClusterError

TIMEOUT_S = 30.0
K = TypeVar("K")  # what AdminClient keys its futures by: a topic name, a ConfigResource


@dataclass(frozen=True)
class PartitionState:
    partition: int
    leader: int  # -1: no leader
    replicas: tuple[int, ...]
    isr: tuple[int, ...]

    @property
    def whole(self) -> bool:
        """A leader and every replica in sync."""
        return self.leader >= 0 and set(self.isr) == set(self.replicas)


class Admin:
    def __init__(self, bootstrap: str) -> None:
        self.bootstrap = bootstrap
        self._client = self._connect()

    def _connect(self) -> AdminClient:
        return AdminClient({"bootstrap.servers": self.bootstrap, "socket.timeout.ms": 10000,
                            "log_level": 0, "logger": _quiet_logger()})

    def _retrying(self, call: Callable[[AdminClient], Mapping[K, concurrent.futures.Future[Any]]], what: str,
                  attempts: int = 4) -> dict[K, Any]:
        """Changing num.network.threads closes the connections its removed processors held, ours
        included: a dropped connection is retried (the change itself went through, and is read back).
        So is a call to a broker that did not answer in time, on a new client: right after the brokers
        restarted, a client kept timing out one broker's alter four times running (a check's base, after
        a failover canary), where a new one is answered at once."""
        for attempt in range(attempts):
            try:
                return _wait(call(self._client), what)
            except _Transport:
                if attempt == attempts - 1:
                    raise
                time.sleep(1.0)
                self._client = self._connect()
        raise AssertionError("unreachable")

    def broker_ids(self, timeout: float = 5.0) -> list[int]:
        try:
            return sorted(self._client.list_topics(timeout=timeout).brokers)
        except KafkaException:
            return []

    def create_topic(self, name: str, partitions: int, replication: int, configs: dict[str, str],
                     exist_ok: bool = False) -> None:
        topic = NewTopic(name, num_partitions=partitions, replication_factor=replication, config=configs)
        _wait(self._client.create_topics([topic], operation_timeout=TIMEOUT_S), f"create topic {name}",
              ok=(KafkaError.TOPIC_ALREADY_EXISTS,) if exist_ok else ())
        self._wait_for_leaders(name, partitions)

    def prove_writable(self, timeout: float) -> None:
        """Create and delete a replication-factor-3 topic, retried until `timeout`. Just after a broker
        is restarted, the metadata can still name its dead registration (unfenced until its session
        times out) as the controller, and a create sent there times out."""
        probe = f"kcliff-ready-{uuid.uuid4().hex[:8]}"
        deadline = time.monotonic() + timeout
        while True:
            try:
                self.create_topic(probe, 3, 3, {}, exist_ok=True)  # an earlier attempt may have gone through late
                break
            except ClusterError:
                if time.monotonic() >= deadline:
                    raise
                time.sleep(1.0)
        # the create that timed out may have reached the controller only after this delete's metadata
        # read: a probe that is already gone proves as much as one deleted here
        self.delete_topic(probe, missing_ok=True)

    def _wait_for_leaders(self, name: str, partitions: int) -> None:
        deadline = time.monotonic() + TIMEOUT_S
        while time.monotonic() < deadline:
            states = _states(self._client.list_topics(topic=name, timeout=5).topics.get(name))
            if len(states) == partitions and all(p.whole for p in states):
                return
            time.sleep(0.2)
        raise ClusterError(f"topic {name}: not every partition has a leader and all replicas in sync after {TIMEOUT_S:.0f}s")

    def wait_in_sync(self, timeout: float) -> None:
        """Until no partition of any topic is under-replicated: a restarted broker has caught up."""
        deadline = time.monotonic() + timeout
        lagging: list[str] = []
        while time.monotonic() < deadline:
            try:
                topics = self._client.list_topics(timeout=5).topics
            except KafkaException:
                time.sleep(0.5)
                continue
            lagging = sorted(f"{name}-{p.id}" for name, meta in topics.items() for p in meta.partitions.values()
                             if p.leader < 0 or len(p.isrs) < len(p.replicas))
            if not lagging:
                return
            time.sleep(0.5)
        raise ClusterError(f"{len(lagging)} partition(s) still under-replicated after {timeout:.0f}s, "
                           f"e.g. {', '.join(lagging[:3])}")

    def delete_topic(self, name: str, missing_ok: bool = False) -> None:
        _wait(self._client.delete_topics([name], operation_timeout=TIMEOUT_S), f"delete topic {name}",
              ok=(KafkaError.UNKNOWN_TOPIC_OR_PART,) if missing_ok else ())

    def partitions(self, topic: str, timeout: float = 5.0) -> list[PartitionState]:
        """Each partition's leader (-1: none), replicas and in-sync replicas as the metadata says now;
        empty when no broker answered in `timeout`."""
        try:
            return _states(self._client.list_topics(topic=topic, timeout=timeout).topics.get(topic))
        except KafkaException:
            return []

    def group_coordinator(self, group: str) -> int | None:
        """The broker coordinating consumer group `group` now; None when no broker says."""
        try:
            described = _wait(self._client.describe_consumer_groups([group], request_timeout=5), f"describe group {group}")
        except ClusterError:
            return None
        coordinator = described[group].coordinator
        return None if coordinator is None else coordinator.id

    def list_topics(self) -> list[str]:
        return sorted(self._client.list_topics(timeout=10).topics)

    def alter_broker_configs(self, node_ids: list[int], changes: dict[str, str | None]) -> None:
        """Set (value) or remove (None) per-broker dynamic configs on every broker in `node_ids`.

        Per broker rather than the cluster-wide default entity: librdkafka refuses the empty
        broker name that the cluster-wide default needs."""
        for node_id in node_ids:  # the API takes one broker resource per call
            resource = ConfigResource(ResourceType.BROKER, str(node_id), incremental_configs=_incremental(changes))
            self._retrying(lambda c: c.incremental_alter_configs([resource]),
                           f"alter broker {node_id} {sorted(changes)}")

    def alter_topic_configs(self, name: str, changes: dict[str, str | None]) -> None:
        """Set (value) or remove (None) topic configs of topic `name`."""
        resource = ConfigResource(ResourceType.TOPIC, name, incremental_configs=_incremental(changes))
        self._retrying(lambda c: c.incremental_alter_configs([resource]), f"alter topic {name} {sorted(changes)}")

    def topic_overrides(self, name: str) -> dict[str, str]:
        """The configs topic `name` sets itself (not those it inherits from the brokers)."""
        resource = ConfigResource(ResourceType.TOPIC, name)
        entries = self._retrying(lambda c: c.describe_configs([resource]), f"describe topic {name}")[resource]
        return {k: e.value for k, e in entries.items()
                if _source(e) == ConfigSource.DYNAMIC_TOPIC_CONFIG and e.value is not None}

    def broker_dynamic(self, node_id: int) -> dict[str, str]:
        """The per-broker dynamic configs currently set on `node_id`."""
        resource = ConfigResource(ResourceType.BROKER, str(node_id))
        entries = self._retrying(lambda c: c.describe_configs([resource]), f"describe broker {node_id}")[resource]
        return {k: e.value for k, e in entries.items()
                if _source(e) == ConfigSource.DYNAMIC_BROKER_CONFIG and e.value is not None}

    def broker_config(self, node_id: int) -> dict[str, str | None]:
        resource = ConfigResource(ResourceType.BROKER, str(node_id))
        entries = self._retrying(lambda c: c.describe_configs([resource]), f"describe broker {node_id}")[resource]
        return {k: e.value for k, e in entries.items()}


def _incremental(changes: dict[str, str | None]) -> list[ConfigEntry]:
    """incremental_alter_configs' entries: set each value, delete each None."""
    return [ConfigEntry(k, v, incremental_operation=AlterConfigOpType.SET if v is not None
                        else AlterConfigOpType.DELETE) for k, v in changes.items()]


class _Transport(ClusterError):
    """The connection to a broker dropped while waiting for an answer."""


def _source(entry: ConfigEntry) -> ConfigSource:
    """describe_configs hands the source over as a bare int, which never equals the enum member."""
    return ConfigSource(getattr(entry.source, "value", entry.source))


def _states(meta: Any) -> list[PartitionState]:
    """A topic's metadata (confluent-kafka's TopicMetadata; None: not found) as its partitions' states."""
    if meta is None or meta.error is not None:
        return []
    return [PartitionState(p.id, p.leader, tuple(p.replicas), tuple(p.isrs))
            for p in sorted(meta.partitions.values(), key=lambda p: p.id)]


# The futures' results are Any: confluent-kafka types its futures without a result type.
def _wait(futures: Mapping[K, concurrent.futures.Future[Any]], what: str, ok: tuple[int, ...] = ()) -> dict[K, Any]:
    results: dict[K, Any] = {}
    for key, future in futures.items():
        try:
            results[key] = future.result(timeout=TIMEOUT_S)
        except KafkaException as exc:
            error = exc.args[0] if exc.args else None
            if error is not None and error.code() in ok:
                results[key] = None
                continue
            text = error.str() if error is not None else str(exc)
            # a dropped connection, or none made in time to a broker just restarted (it may still be loading
            # the partitions it leads): worth another try where the call is idempotent (_retrying)
            if error is not None and error.code() in (KafkaError._TRANSPORT, KafkaError._TIMED_OUT):
                raise _Transport(f"{what}: {text}") from None
            raise ClusterError(f"{what}: {text}") from None
        except TimeoutError:
            raise ClusterError(f"{what}: no answer in {TIMEOUT_S:.0f}s") from None
    return results


def _quiet_logger() -> Any:  # a Logger; Any since confluent-kafka types its config's values as str | int | float
    import logging
    logger = logging.getLogger("kcliff.librdkafka")
    logger.addHandler(logging.NullHandler())
    logger.propagate = False
    return logger

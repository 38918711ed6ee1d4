"""Type and check what the readers found against kcliff's settings catalogue.

Every key ends up in one of four places:
  modelled    in kcliff's catalogue (settings.py): typed, range-checked, measured
  durability  acks, min.insync.replicas, replication factors: measured as the repo sets them and
              flagged by the cliff rules when they weaken durability
  ignored     a Kafka key that does not move producer throughput or latency (listeners, log.dirs,
              security, ...): reported as a note, never an error
  unknown     anything else: an InputError naming file:line and the closest known name, because a
              typo'd key silently does nothing in Kafka and the repo would be measured wrong
Consumer keys are typed and range-checked the same way, for the cliff rules; they are not measured yet.
"""

from __future__ import annotations

from typing import Any

from .. import settings
from ..errors import InputError
from .model import Entry, Note, RawEntry

ACKS = ("all", "-1", "0", "1")

# Durability keys kcliff fixes for its own scenarios (settings.INVARIANTS) but reads from a repo.
DURABILITY: dict[str, dict[str, str]] = {
    "producer": {"acks": "acks"},
    "broker": {"min.insync.replicas": "int>=1", "default.replication.factor": "int>=1"},
    "topic": {"min.insync.replicas": "int>=1", "replication.factor": "int>=1"},
}

# Kafka keys that do not change how fast a producer can write under acks=all: read, noted, ignored.
# Deliberately short: anything not here and not in the catalogue is an error, so a typo cannot pass.
IGNORED: dict[str, tuple[str, ...]] = {
    "broker": (
        "node.id", "broker.id", "process.roles", "controller.quorum.voters",
        "controller.quorum.bootstrap.servers", "controller.listener.names", "listeners",
        "advertised.listeners", "listener.security.protocol.map", "inter.broker.listener.name",
        "security.inter.broker.protocol", "log.dirs", "log.dir", "metadata.log.dir", "num.partitions",
        "num.recovery.threads.per.data.dir", "offsets.topic.replication.factor",
        "offsets.topic.num.partitions", "transaction.state.log.replication.factor",
        "transaction.state.log.min.isr", "share.coordinator.state.topic.replication.factor",
        "share.coordinator.state.topic.min.isr", "log.retention.hours", "log.retention.minutes",
        "log.retention.ms", "log.retention.bytes", "log.retention.check.interval.ms",
        "group.initial.rebalance.delay.ms", "auto.create.topics.enable", "delete.topic.enable",
        "auto.leader.rebalance.enable", "unclean.leader.election.enable", "broker.rack",
        "authorizer.class.name", "super.users", "allow.everyone.if.no.acl.found", "metric.reporters",
        # KRaft timings Strimzi lets a Kafka resource set (its FORBIDDEN_PREFIX_EXCEPTIONS)
        "broker.session.timeout.ms", "broker.heartbeat.interval.ms", "controller.socket.timeout.ms",
        "controller.quorum.election.backoff.max.ms", "controller.quorum.election.timeout.ms",
        "controller.quorum.fetch.timeout.ms",
    ),
    "producer": (
        "bootstrap.servers", "client.id", "key.serializer", "value.serializer", "security.protocol",
        "retries", "retry.backoff.ms", "retry.backoff.max.ms", "transactional.id", "transaction.timeout.ms",
        "metadata.max.age.ms", "partitioner.class", "partitioner.ignore.keys",
        "partitioner.adaptive.partitioning.enable", "interceptor.classes", "metric.reporters",
        "client.dns.lookup", "max.block.ms", "connections.max.idle.ms", "reconnect.backoff.ms",
        "reconnect.backoff.max.ms",
    ),
    "consumer": (
        "bootstrap.servers", "client.id", "client.rack", "group.id", "group.instance.id", "group.protocol",
        "group.remote.assignor", "key.deserializer", "value.deserializer", "security.protocol",
        "auto.offset.reset", "session.timeout.ms", "heartbeat.interval.ms", "max.poll.interval.ms",
        "partition.assignment.strategy", "metadata.max.age.ms", "request.timeout.ms", "default.api.timeout.ms",
        "retry.backoff.ms", "retry.backoff.max.ms", "reconnect.backoff.ms", "reconnect.backoff.max.ms",
        "connections.max.idle.ms", "socket.connection.setup.timeout.ms", "socket.connection.setup.timeout.max.ms",
        "interceptor.classes", "metric.reporters", "client.dns.lookup", "exclude.internal.topics",
        "allow.auto.create.topics", "enable.metrics.push", "metadata.recovery.strategy",
        "metadata.recovery.rebootstrap.trigger.ms", "share.acknowledgement.mode", "share.acquire.mode",
        "security.providers", "config.providers",
    ),
    "topic": (
        "cleanup.policy", "delete.retention.ms", "min.compaction.lag.ms", "max.compaction.lag.ms",
        "min.cleanable.dirty.ratio", "message.timestamp.type", "message.timestamp.before.max.ms",
        "message.timestamp.after.max.ms", "unclean.leader.election.enable",
        "segment.jitter.ms", "segment.index.bytes", "file.delete.delay.ms", "index.interval.bytes",
        "local.retention.ms", "local.retention.bytes", "remote.storage.enable", "leader.replication.throttled.replicas",
        "follower.replication.throttled.replicas",
    ),
}
IGNORED_PREFIXES = ("ssl.", "sasl.", "listener.name.", "metrics.", "cruise.control.metrics.")


def is_ignored(scope: str, name: str) -> bool:
    return name in IGNORED.get(scope, ()) or name.startswith(IGNORED_PREFIXES)


def _as_int(raw: Any) -> int | None:
    if isinstance(raw, bool):
        return None
    if isinstance(raw, int):
        return raw
    if isinstance(raw, str):
        text = raw.strip()
        if text.lstrip("-").isdigit():
            return int(text)
    return None


def convert(setting: settings.Setting, raw: Any) -> Any:
    """A .properties string (or YAML scalar) as the typed value the catalogue checks; Kafka's ConfigDef
    trims values and reads booleans case-insensitively, so kcliff does too."""
    if setting.kind == "int":
        value = _as_int(raw)
        return raw if value is None else value
    if setting.kind == "bool":
        if isinstance(raw, str) and raw.strip().lower() in ("true", "false"):
            return raw.strip().lower() == "true"
        return raw
    return raw.strip() if isinstance(raw, str) else raw


def _durability_value(kind: str, raw: Any, entry: RawEntry) -> Any:
    if kind == "acks":
        text = str(raw).strip().lower() if not isinstance(raw, bool) else None
        if text not in ACKS:
            raise InputError(f"producer setting 'acks': expected one of {', '.join(ACKS)}, got {raw!r}",
                             entry.path, entry.line)
        return text
    value = _as_int(raw)
    if value is None or value < 1:
        raise InputError(f"{entry.scope} setting '{entry.name}': expected an integer >= 1, got {raw!r}",
                         entry.path, entry.line)
    return value


def validate_entry(raw: RawEntry) -> Entry | Note:
    """The typed Entry for a key, a Note when it is ignored; InputError for an unknown key or bad value."""
    durability = DURABILITY.get(raw.scope, {}).get(raw.name)
    if durability:
        value = _durability_value(durability, raw.raw, raw)
        return Entry(raw.scope, raw.name, value, raw.path, raw.line, "durability", raw.topic, raw.resource)
    known = settings.lookup(raw.scope, raw.name)
    if known is None:
        if is_ignored(raw.scope, raw.name):
            return Note(raw.path, raw.line, f"{raw.scope} key '{raw.name}' does not affect what kcliff measures; ignored")
        raise InputError(f"unknown {raw.scope} setting '{raw.name}': {settings.suggest(raw.scope, raw.name)}",
                         raw.path, raw.line)
    value = convert(known, raw.raw)
    problem = known.check(value)
    if problem:
        raise InputError(f"{raw.scope} setting '{raw.name}': {problem}", raw.path, raw.line)
    return Entry(raw.scope, raw.name, value, raw.path, raw.line, "modelled", raw.topic, raw.resource)


def validate(raw_entries: list[RawEntry]) -> tuple[list[Entry], list[Note]]:
    """Validate all entries; a key repeated in one file (one resource of it) keeps its last value, as Kafka does."""
    entries: dict[tuple[str, str | None, str, str | None, str], Entry] = {}
    notes: list[Note] = []
    for raw in raw_entries:
        result = validate_entry(raw)
        if isinstance(result, Note):
            notes.append(result)
            continue
        key = (result.path, result.resource, result.scope, result.topic, result.name)
        if key in entries:
            first = entries[key]
            notes.append(Note(first.path, first.line, f"'{first.name}' is set again at line {result.line}; "
                                                      "Kafka uses the last value"))
        entries[key] = result
    found = list(entries.values())
    _check_producer_combinations(found)
    return found, notes


def _check_producer_combinations(entries: list[Entry]) -> None:
    """Combinations the Kafka producer refuses at start-up (ConfigException): bad input, not a cliff."""
    by_file: dict[str, dict[str, Entry]] = {}
    for e in entries:
        if e.scope == "producer":
            by_file.setdefault(e.path, {})[e.name] = e
    for found in by_file.values():
        idem = found.get("enable.idempotence")
        if idem is None or idem.value is not True:
            continue
        acks = found.get("acks")
        if acks is not None and acks.value in ("0", "1"):
            raise InputError(f"acks={acks.value} with enable.idempotence=true: the Kafka producer refuses this "
                             "(idempotence needs acks=all); set acks=all or enable.idempotence=false",
                             acks.path, acks.line)
        inflight = found.get("max.in.flight.requests.per.connection")
        if inflight is not None and inflight.value > 5:
            raise InputError("max.in.flight.requests.per.connection above 5 with enable.idempotence=true: the "
                             "Kafka producer refuses this (at most 5); lower it or set enable.idempotence=false",
                             inflight.path, inflight.line)

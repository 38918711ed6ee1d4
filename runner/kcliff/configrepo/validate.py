"""Check what the readers found as Kafka does, at the repo's release, and type it.

Every key is looked up in Kafka's own definitions of the release the repo runs (kafka/configs.py):
  measured    a key kcliff's settings catalogue (scenario/settings.py) can carry: typed, applied, measured
  durability  acks, min.insync.replicas, replication factors: measured as the repo sets them and
              flagged by the cliff rules when they weaken durability
  unmeasured  any other key Kafka knows at that release: parsed and validated as Kafka does, kept for
              the cliff rules, noted as not measured
A key of another release is named with the releases that have it (an error for a topic, which Kafka
refuses to create with an unknown config; a warning for a broker or client file, where Kafka logs and
ignores it); a key no release knows is an error with the closest key of the whole catalogue; a value
Kafka's parser or validator refuses is an error. Every problem is collected; the caller raises them
together.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from kcliff.configrepo import consumption, connect, librdkafka
from kcliff.configrepo.model import Entry, EntryKind, Note, NoteLevel, RawEntry
from kcliff.errors import InputError
from kcliff.kafka import configs as kafka_configs
from kcliff.scenario import combinations, settings

ACKS = ("all", "-1", "0", "1")

# Durability keys kcliff fixes for its own scenarios (settings.INVARIANTS) but reads from a repo.
DURABILITY: dict[str, dict[str, str]] = {
    "producer": {"acks": "acks"},
    "broker": {"min.insync.replicas": "int>=1", "default.replication.factor": "int>=1"},
    "topic": {"min.insync.replicas": "int>=1", "replication.factor": "int>=1"},
}
# Fields of a topic's definition that are not topic configs (kafka-topics --partitions, RF).
TOPIC_FIELDS = ("partitions", "replication.factor")

# Keys no release of Apache Kafka's config defines that something else reads (an authorizer, a
# listener override, a config provider, a serializer, a vendor's distribution): (prefix, who reads it).
_CLIENT_PLUGINS = (("config.providers", "a config provider"), ("confluent.", "Confluent's clients and interceptors"),
                   ("schema.registry.", "a Schema Registry serializer"), ("basic.auth.", "a Schema Registry serializer"),
                   ("bearer.auth.", "a Schema Registry serializer"), ("key.subject.name.strategy", "a serializer"),
                   ("value.subject.name.strategy", "a serializer"), ("auto.register.schemas", "a serializer"),
                   ("use.latest.version", "a serializer"), ("latest.compatibility.strict", "a serializer"),
                   ("specific.avro.reader", "an Avro deserializer"), ("json.", "a JSON serializer"),
                   ("avro.", "an Avro serializer"), ("apicurio.", "an Apicurio serializer"),
                   ("spring.json.", "Spring's JSON serializer"))
PLUGINS: dict[str, tuple[tuple[str, str], ...]] = {
    "broker": (("listener.name.", "the broker, as a listener's own override"), ("super.users", "the authorizer"),
               ("allow.everyone.if.no.acl.found", "the authorizer"), ("ldap.", "an LDAP authorizer"),
               ("config.providers", "a config provider"), ("confluent.", "Confluent Server"),
               ("cruise.control.metrics.", "Cruise Control's metrics reporter"), ("rsm.config.", "the tiered storage plugin"),
               ("rlmm.config.", "the tiered storage plugin"), ("client.quota.callback.", "the quota callback"),
               ("strimzi.", "Strimzi's plugins"), ("kafka.metrics.", "a metrics reporter")),
    "producer": _CLIENT_PLUGINS,
    "consumer": _CLIENT_PLUGINS,
    "topic": (("confluent.", "Confluent Server (Apache Kafka refuses it)"),),
}


@dataclass(frozen=True)
class Release:
    """The Kafka release a repo is read at, and why that one (for messages)."""

    version: str  # as the repo names it, or kcliff's default
    definitions: str  # the catalogue release whose definitions are used
    why: str  # "the repo names Kafka 3.7.1 at kafka.yaml:9" / "kcliff's default; the repo names no version"

    def describe(self) -> str:
        same = self.version == self.definitions
        return f"Kafka {self.version}" + ("" if same else f" (read with {self.definitions}'s definitions)")


def written(raw: RawEntry, key: str) -> str:
    """` (KAFKA_NUM_IO_THREADS)`: how `raw`'s file writes `key`, where its format spells keys another way."""
    return f" ({raw.spelled(key)})" if raw.spelled else ""


def plugin_reader(scope: str, name: str) -> str | None:
    """Who reads a key Kafka's config does not define, when it is a known plugin's or vendor's."""
    return next((reader for prefix, reader in PLUGINS.get(scope, ()) if name.startswith(prefix)), None)


def _durability_value(kind: str, value: Any, entry: RawEntry) -> Any:
    if kind == "acks":
        text = str(value).strip().lower() if not isinstance(value, bool) else None
        if text not in ACKS:
            raise InputError(f"producer setting 'acks': expected one of {', '.join(ACKS)}, got {entry.raw!r}",
                             entry.path, entry.line)
        return text
    number = value if isinstance(value, int) and not isinstance(value, bool) else None
    if isinstance(value, str) and value.strip().lstrip("+-").isdigit():
        number = int(value.strip())
    if number is None or number < 1:
        raise InputError(f"{entry.scope} setting '{entry.name}': expected an integer >= 1, got {entry.raw!r}",
                         entry.path, entry.line)
    return number


def _kafka_value(definition: kafka_configs.Definition, raw: RawEntry, release: Release) -> Any:
    value, problem = definition.parse(raw.raw)
    problem = problem or definition.check(value)
    if problem:
        raise InputError(f"{raw.scope} setting '{raw.name}'{written(raw, raw.name)}: {problem} (Kafka "
                         f"{release.definitions})", raw.path, raw.line)
    return value


def _topic_field(raw: RawEntry) -> Entry:
    if raw.name == "replication.factor":
        value = _durability_value("int>=1", raw.raw, raw)
        return Entry(raw.scope, raw.name, value, raw.path, raw.line, EntryKind.DURABILITY, raw.topic, raw.resource)
    known = settings.require("topic", raw.name)
    number = raw.raw if isinstance(raw.raw, int) and not isinstance(raw.raw, bool) else None
    if isinstance(raw.raw, str) and raw.raw.strip().isdigit():
        number = int(raw.raw.strip())
    problem = known.check(number if number is not None else raw.raw)
    if problem:
        raise InputError(f"topic '{raw.topic}' {raw.name}: {problem}", raw.path, raw.line)
    return Entry(raw.scope, raw.name, number, raw.path, raw.line, EntryKind.MEASURED, raw.topic, raw.resource)


def _elsewhere(raw: RawEntry, release: Release) -> Entry | Note:
    """A key the release does not define: another release's (a warning, or an error for a topic), a
    plugin's or vendor's (a note), or no release's (an error naming the closest key)."""
    catalogue = kafka_configs.catalogue()
    has_it = catalogue.releases_of(raw.scope, raw.name)
    if has_it:
        message = (f"{raw.scope} key '{raw.name}'{written(raw, raw.name)} is defined by Kafka "
                   f"{kafka_configs.span_text(has_it)}, not by {release.describe()}, which this repo is read at "
                   f"({release.why})")
        if raw.scope == "topic":
            raise InputError(f"{message}: Kafka refuses to create a topic with a config it does not know",
                             raw.path, raw.line)
        return Note(raw.path, raw.line, f"{message}: Kafka logs and ignores it",
                    NoteLevel.WARNING)
    reader = plugin_reader(raw.scope, raw.name)
    if reader:
        return Note(raw.path, raw.line, f"{raw.scope} key '{raw.name}' is read by {reader}, not defined by Apache "
                                        "Kafka's config; not checked")
    raise InputError(f"unknown {raw.scope} setting '{raw.name}'{written(raw, raw.name)}: {_hint(raw, release)}",
                     raw.path, raw.line)


def _hint(raw: RawEntry, release: Release) -> str:
    catalogue = kafka_configs.catalogue()
    broker = catalogue.broker_synonym(raw.name, release.definitions) if raw.scope == "broker" else None
    if broker:
        return f"'{raw.name}' is a topic config; a broker sets its default as '{broker}'{written(raw, broker)}"
    if raw.scope == "topic" and catalogue.topic_synonym(raw.name, release.definitions):
        return (f"'{raw.name}' is the broker-wide default; a topic sets "
                f"'{catalogue.topic_synonym(raw.name, release.definitions)}'")
    other = [s for s in catalogue.scopes_of(raw.name) if s != raw.scope]
    if other:
        return f"'{raw.name}' is a {other[0]} setting, not a {raw.scope} one"
    if raw.scope in ("producer", "consumer") and raw.name in librdkafka.distinctive():
        return (f"'{raw.name}' is a librdkafka property: give this file the role librdkafka-{raw.scope} in "
                "kcliff.yaml to check it with librdkafka's definitions")
    close = catalogue.suggest(raw.name, raw.scope)
    if close:
        return f"did you mean '{close}'{written(raw, close)}?"
    catalogue = kafka_configs.catalogue()
    return f"no Kafka release from {catalogue.releases[0]} to {catalogue.newest} defines it"


def validate_entry(raw: RawEntry, release: Release) -> Entry | Note:
    """The typed Entry for a key, a Note when kcliff only notes it; InputError for what Kafka refuses."""
    if raw.scope in librdkafka.ROLES:  # a librdkafka client's file: librdkafka's definitions, not Kafka's
        return librdkafka.validate_entry(raw)
    if raw.scope in connect.SCOPES:  # Connect's own keys kcliff acts on (tasks.max, the override policy)
        return connect.validate_entry(raw)
    if raw.scope == consumption.SCOPE:  # how the service consumes: kcliff's own fields
        return consumption.validate_entry(raw)
    if raw.scope == "topic" and raw.name in TOPIC_FIELDS:
        return _topic_field(raw)
    definition = kafka_configs.catalogue().lookup(raw.scope, raw.name, release.definitions)
    if definition is None:
        return _elsewhere(raw, release)
    value = _kafka_value(definition, raw, release)
    durability = DURABILITY.get(raw.scope, {}).get(raw.name)
    if durability:
        value = _durability_value(durability, value, raw)
        kind = EntryKind.DURABILITY
    else:
        kind = EntryKind.MEASURED if settings.lookup(raw.scope, raw.name) else EntryKind.UNMEASURED
    return Entry(raw.scope, raw.name, value, raw.path, raw.line, kind, raw.topic, raw.resource)


def validate(raw_entries: list[RawEntry], release: Release) -> tuple[list[Entry], list[Note], list[InputError]]:
    """Every entry checked: (entries, notes, problems). A key repeated in one file (one resource of it)
    keeps its last value, as Kafka does."""
    entries: dict[tuple[str, str | None, str, str | None, str], Entry] = {}
    notes: list[Note] = []
    problems: list[InputError] = []
    for raw in raw_entries:
        try:
            result = validate_entry(raw, release)
        except InputError as exc:
            problems.append(exc)
            continue
        if isinstance(result, Note):
            notes.append(result)
            continue
        if result.kind is EntryKind.UNMEASURED and result.scope not in connect.SCOPES:
            notes.append(librdkafka.unmeasured_note(result) if result.scope in librdkafka.ROLES else
                         Note(result.path, result.line, f"{result.scope} key '{result.name}' does not change what "
                                                        "kcliff measures; checked, not measured"))
        key = (result.path, result.resource, result.scope, result.topic, result.name)
        if key in entries:
            first = entries[key]
            notes.append(Note(first.path, first.line, f"'{first.name}' is set again at line {result.line}; "
                                                      "Kafka uses the last value"))
        entries[key] = result
    found = list(entries.values())
    problems += (_producer_combinations(found) + _group_combinations(found) + _broker_group_combinations(found)
                 + connect.refused(found))
    return found, notes, problems


def _producer_combinations(entries: list[Entry]) -> list[InputError]:
    """Combinations the Kafka producer refuses at start-up (ConfigException): bad input, not a cliff."""
    problems: list[InputError] = []
    for found in _by_file(entries, "producer"):
        for name, why in combinations.producer_problems({n: e.value for n, e in found.items()}):
            blamed = found.get(name) or next(iter(found.values()))
            problems.append(InputError(why, blamed.path, blamed.line))
        idem, acks = found.get("enable.idempotence"), found.get("acks")
        if idem is not None and idem.value is True and acks is not None and acks.value in ("0", "1"):
            problems.append(InputError(f"acks={acks.value} with enable.idempotence=true: the Kafka producer refuses "
                                       "this (idempotence needs acks=all); set acks=all or enable.idempotence=false",
                                       acks.path, acks.line))
    return problems


def _group_combinations(entries: list[Entry]) -> list[InputError]:
    """A consumer file's group settings Kafka refuses (combinations.group_problems): a session outside the
    brokers' limits, a heartbeat not below it, either with group.protocol=consumer."""
    problems: list[InputError] = []
    for found in _by_file(entries, "consumer"):
        for name, why in combinations.group_problems({n: e.value for n, e in found.items()}):
            blamed = found.get(name) or found.get("session.timeout.ms") or next(iter(found.values()))
            problems.append(InputError(why, blamed.path, blamed.line))
    return problems


def _broker_group_combinations(entries: list[Entry]) -> list[InputError]:
    """A broker file's group.consumer.* timeouts Kafka refuses at start-up (combinations.broker_group_problems)."""
    problems: list[InputError] = []
    for found in _by_file(entries, "broker"):
        for name, why in combinations.broker_group_problems({n: e.value for n, e in found.items()}):
            blamed = found[name]
            problems.append(InputError(why, blamed.path, blamed.line))
    return problems


def _by_file(entries: list[Entry], scope: str) -> list[dict[str, Entry]]:
    """The entries of `scope`, one mapping of name to entry per file: a combination Kafka refuses is one
    client's, and each file configures one."""
    by_file: dict[str, dict[str, Entry]] = {}
    for e in entries:
        if e.scope == scope:
            by_file.setdefault(e.path, {})[e.name] = e
    return list(by_file.values())

"""Kafka Connect: a connector's client overrides and a worker's client defaults, as Kafka's Worker builds
a task's clients.

A task's producer (a source connector's; a sink's dead-letter queue) starts from Connect's own settings
(acks=all, one request in flight, idempotence off), then the worker's `producer.*` keys, then the
connector's `producer.override.*` keys; a sink task's consumer likewise from `consumer.*` and
`consumer.override.*` (Kafka's Worker.baseProducerConfigs / baseConsumerConfigs). The overrides take
effect only where the worker's `connector.client.config.override.policy` allows them: All (the default
since Kafka 3.0, KIP-722), None (refuses every one), Principal (only the SASL identity keys); Connect
does not start a connector its policy refuses. Each client key becomes a producer or consumer entry on
its own line, spelled as the file writes it, so validation and the cliff rules treat it as any client
file's. Keys of the connector or the worker themselves (connector.class, topics, transforms, converters,
group.id, the storage topics) are Connect's and its plugins': read, not Kafka client settings, not
measured. A sink connector (one that sets `topics` or `topics.regex`, which Connect's SinkConnectorConfig
requires of a sink and a source never sets; MirrorMaker2's connectors read `topics` as a filter and are
sources) runs its tasks as one consumer group: consumption.py measures it as such (sink_of). Where the
readers of each format are: connect_files.py (connector JSON and .properties, worker .properties) and
connect_k8s.py (Strimzi's and CFK's resources).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Callable

from kcliff.configrepo.model import Entry, EntryKind, Note, RawEntry
from kcliff.configrepo.reading import ResourceReading
from kcliff.errors import InputError
from kcliff.scenario.consuming import Commit

OVERRIDES = {"producer.override.": "producer", "consumer.override.": "consumer", "admin.override.": "admin"}
WORKER_PREFIXES = {"producer.": "producer", "consumer.": "consumer", "admin.": "admin"}
POLICY = "connector.client.config.override.policy"
POLICIES = ("All", "None", "Principal")
DEFAULT_POLICY = "All"  # Kafka 3.0+ (KIP-722); every release kcliff reads at is 3.3 or later
PRINCIPAL_KEYS = ("sasl.jaas.config", "sasl.mechanism", "security.protocol")  # what Principal lets through
TASKS = "tasks.max"
SINK_KEYS = ("topics", "topics.regex")  # what a sink reads (SinkConnectorConfig); their presence makes one
MIRROR_CLASSES = ("MirrorSourceConnector", "MirrorCheckpointConnector", "MirrorHeartbeatConnector")
CONNECTOR_SCOPE, WORKER_SCOPE = "connector", "connect-worker"  # Connect's own keys kcliff acts on
SCOPES = (CONNECTOR_SCOPE, WORKER_SCOPE)
# Connect's own settings for a task's producer, under the worker's and the connector's (Worker.java).
CONNECT_PRODUCER: dict[str, Any] = {"acks": "all", "max.in.flight.requests.per.connection": 1,
                                    "enable.idempotence": False, "delivery.timeout.ms": 2**31 - 1}
CONNECT_CONSUMER: dict[str, Any] = {"enable.auto.commit": False}  # the task commits offsets itself
CONNECT_CLIENTS = {"producer": CONNECT_PRODUCER, "consumer": CONNECT_CONSUMER}
# The worker commits a sink task's offsets every offset.flush.interval.ms (60 s), asynchronously, off the
# poll path: periodic like auto-commit (here off, so none in a read of seconds), unlike a commit per poll.
CONNECT_COMMIT = Commit.AUTO
# Labels: a worker resource is "<worker kind> <name>"; a connector names its worker "(cluster <name>)".
WORKER_KINDS = ("KafkaConnect", "Connect ", "KafkaMirrorMaker2")  # "Connect <name>" is CFK's
_CLUSTER = re.compile(r"\(cluster (?P<name>[^)]+)\)$")


def is_worker(resource: str | None) -> bool:
    return resource is not None and resource.startswith(WORKER_KINDS) and _CLUSTER.search(resource) is None


def is_connector(resource: str | None) -> bool:
    return resource is not None and not is_worker(resource) and resource.startswith(
        ("connector ", "KafkaConnector ", "Connector ", "KafkaMirrorMaker2 "))


def connector_entries(config: dict[str, Any], line: Callable[[str], int | None], label: str,
                      out: ResourceReading, connector_class: Any = None) -> None:
    """A connector's config map: its client overrides as producer/consumer entries, tasks.max and a sink's
    topics (or topics.regex) as Connect's own keys, the rest (connector.class, topics, transforms ...) noted
    once as the connector's, not measured. `connector_class`: where the resource names it outside the map."""
    own: list[str] = []
    mirror = _mirror(label, config.get("connector.class", connector_class))
    for key, value in config.items():
        key = str(key)
        prefix = next((p for p in OVERRIDES if key.startswith(p)), None)
        if prefix is not None:
            _client(OVERRIDES[prefix], prefix, key, value, line(key), label, out)
            continue
        if key == TASKS or (key in SINK_KEYS and not mirror):
            out.entries.append(RawEntry(CONNECTOR_SCOPE, key, value, out.path, line(key), resource=label))
        if key != TASKS:  # what a sink reads is the plugin's too: still in the note
            own.append(key)
    if not mirror and all(str(config.get(k) or "").strip() for k in SINK_KEYS):
        out.problem(f"{label}: a sink reads 'topics' or 'topics.regex', not both: Connect refuses a connector that "
                    "sets both (SinkConnectorConfig); keep one", line(SINK_KEYS[1]))
    _note_own(own, line, label, out, "of the connector itself", "configure Connect and its plugins, not a Kafka "
              "client: read, not measured")


def worker_entries(config: dict[str, Any], line: Callable[[str], int | None], label: str,
                   out: ResourceReading) -> None:
    """A worker's config map: `producer.*` / `consumer.*` as every task's client defaults, the override
    policy as Connect's own key, the rest (group.id, storage topics, converters) noted once, not measured."""
    own: list[str] = []
    for key, value in config.items():
        key = str(key)
        prefix = next((p for p in WORKER_PREFIXES if key.startswith(p)), None)
        if prefix is not None and not key.startswith(tuple(OVERRIDES)):
            _client(WORKER_PREFIXES[prefix], prefix, key, value, line(key), label, out)
        elif key == POLICY:
            out.entries.append(RawEntry(WORKER_SCOPE, POLICY, value, out.path, line(key), resource=label))
        else:
            own.append(key)
    _note_own(own, line, label, out, "of the Connect worker itself", "are not Kafka client settings: read, not "
              "checked against a catalogue, not measured")


def _note_own(own: list[str], line: Callable[[str], int | None], label: str, out: ResourceReading, whose: str,
              what: str) -> None:
    """One note for the keys that are not a client's, on the first one's line."""
    if own:
        out.note(line(own[0]), f"{label}: {len(own)} keys {whose} ({', '.join(own[:4])}{' ...' if len(own) > 4 else ''}) "
                               f"{what}")


def _mirror(label: str, connector_class: Any) -> bool:
    """A MirrorMaker2 connector (its `topics` a filter of what it copies, not what a sink reads)."""
    name = str(connector_class or "").rsplit(".", 1)[-1]
    return label.startswith("KafkaMirrorMaker2 ") or name in MIRROR_CLASSES


def _client(scope: str, prefix: str, key: str, value: Any, line: int | None, label: str,
            out: ResourceReading) -> None:
    name = key[len(prefix):]
    if scope == "admin":  # kcliff's catalogue holds no admin client: said, not checked
        out.note(line, f"{label}: '{key}' configures the task's admin client, which kcliff neither checks nor measures")
        return
    out.entries.append(RawEntry(scope, name, value, out.path, line, resource=label, spelled=_spelled(prefix)))


def _spelled(prefix: str) -> Callable[[str], str]:
    """How the file writes a client key: messages name 'producer.override.linger.ms', not 'linger.ms'."""
    return lambda key: f"{prefix}{key}"


def validate_entry(raw: RawEntry) -> Entry | Note:
    """Connect's own keys kcliff acts on: tasks.max (how many tasks, so clients, a connector runs), a sink's
    topics or topics.regex (what makes it a sink) and the worker's override policy."""
    if raw.name in SINK_KEYS:
        return Entry(raw.scope, raw.name, str(raw.raw).strip(), raw.path, raw.line, EntryKind.UNMEASURED,
                     resource=raw.resource)
    if raw.name == TASKS:
        text = str(raw.raw).strip()
        if isinstance(raw.raw, bool) or not text.isdigit() or int(text) < 1:
            raise InputError(f"'{TASKS}' must be a positive integer (Connect's ConnectorConfig), got {raw.raw!r}",
                             raw.path, raw.line)
        return Entry(raw.scope, raw.name, int(text), raw.path, raw.line, EntryKind.UNMEASURED, resource=raw.resource)
    value = str(raw.raw).strip()
    if value not in POLICIES:
        return Note(raw.path, raw.line, f"{raw.resource}: {POLICY}={value} is a policy class kcliff does not know; "
                                        "its connectors' overrides are read as if it allowed them")
    return Entry(raw.scope, raw.name, value, raw.path, raw.line, EntryKind.UNMEASURED, resource=raw.resource)


def worker_of(connector: str, workers: list[str]) -> str | None:
    """The worker a connector runs on: the one its label names (Strimzi's strimzi.io/cluster), else the
    repo's only worker, else its only worker run from a .properties file (a connector sent to the REST API
    runs on a worker of its own configuration; an operator's takes its resources); None when unsure."""
    named = _CLUSTER.search(connector)
    if named is not None:
        return next((w for w in workers if w.split(" ", 1)[-1] == named["name"]), None)
    files = [w for w in workers if w.startswith("Connect worker ")]
    return workers[0] if len(workers) == 1 else files[0] if len(files) == 1 else None


def workers(entries: list[Entry]) -> list[str]:
    return list(dict.fromkeys(e.resource for e in entries if e.resource is not None and is_worker(e.resource)))


def refused(entries: list[Entry]) -> list[InputError]:
    """Overrides the connector's worker's policy refuses: Connect does not start such a connector."""
    policies = {e.resource: e for e in entries if e.scope == WORKER_SCOPE and e.name == POLICY}
    found = workers(entries)
    problems: list[InputError] = []
    for e in entries:
        if e.scope not in ("producer", "consumer") or not is_connector(e.resource):
            continue
        worker = worker_of(e.resource or "", found)
        policy = policies.get(worker)
        value = policy.value if policy is not None else DEFAULT_POLICY
        if value == "None" or (value == "Principal" and e.name not in PRINCIPAL_KEYS):
            allows = "no override" if value == "None" else f"only {', '.join(PRINCIPAL_KEYS)}"
            problems.append(InputError(
                f"{e.resource}: '{e.scope}.override.{e.name}' is refused by the worker's {POLICY}={value} at "
                f"{policy.where() if policy else '?'} (it allows {allows}): Connect does not start this connector",
                e.path, e.line))
    return problems


@dataclass(frozen=True)
class TaskClients:
    """A connector's client as its tasks run it (task_clients)."""

    clients: list[Entry]
    connector: str | None = None  # None: not a connector's file, or a worker's file alone
    tasks: Entry | None = None  # its tasks.max: how many producers a source's tasks run (None for a sink's)


@dataclass(frozen=True)
class Sink:
    """A sink connector: its tasks are tasks.max members of one consumer group (Connect's connect-<name>)."""

    connector: str
    reads: Entry  # its topics or topics.regex, which make it a sink
    tasks: Entry | None  # its tasks.max (None: Connect's default, one task)


def measured_connector(entries: list[Entry], path: str, scope: str, notes: list[str] | None = None) -> str | None:
    """The connector of file `path` whose `scope` client is measured: the first that overrides that client,
    for the consumer also the first sink (its tasks consume whether or not it overrides); a note when the
    file holds several."""
    found = list(dict.fromkeys(str(e.resource) for e in entries if e.path == path and is_connector(e.resource)
                               and (e.scope == scope or (scope == "consumer" and _reads(e)))))
    if len(found) > 1 and notes is not None:
        notes.append(f"{path} holds several connectors ({', '.join(found)}); measuring {found[0]}'s {scope}")
    return found[0] if found else None


def _reads(e: Entry) -> bool:
    return e.scope == CONNECTOR_SCOPE and e.name in SINK_KEYS


def _own(entries: list[Entry], path: str, connector: str | None, names: tuple[str, ...]) -> Entry | None:
    """The connector's own key of `names` (tasks.max, what a sink reads) in file `path`."""
    return next((e for e in entries if e.path == path and e.resource == connector and e.scope == CONNECTOR_SCOPE
                 and e.name in names), None)


def sink_of(entries: list[Entry], path: str) -> Sink | None:
    """The sink connector of file `path` whose consumer is measured, if it is a sink."""
    connector = measured_connector(entries, path, "consumer")
    reads = _own(entries, path, connector, SINK_KEYS)
    return Sink(str(connector), reads, _own(entries, path, connector, (TASKS,))) if reads is not None else None


def sink_files(entries: list[Entry]) -> set[str]:
    """The files holding a sink connector: each a consumer's, whether or not it overrides the consumer."""
    return {e.path for e in entries if _reads(e) and is_connector(e.resource)}


def task_clients(repo_entries: list[Entry], path: str | None, scope: str, notes: list[str]) -> TaskClients:
    """File `path`'s `scope` client as a connector's tasks run it: Connect's own settings, under the
    worker's `scope`.* keys, under the connector's overrides (measured_connector chooses it); and, for a
    source's producer, its tasks.max (a sink's tasks are consumers: its producer, the dead-letter queue's,
    is one). A worker's file alone is a connector that overrides nothing; other files' entries pass as they are."""
    chosen = [e for e in repo_entries if e.scope == scope and e.path == path]
    if path is None:
        return TaskClients(chosen)
    connector = measured_connector(repo_entries, path, scope, notes)
    named = list(dict.fromkeys(str(e.resource) for e in chosen if is_worker(e.resource)))
    if connector is None and not named:
        return TaskClients(chosen)
    own = [e for e in chosen if connector is not None and e.resource == connector]
    worker = worker_of(connector, workers(repo_entries)) if connector is not None else named[0]
    base = [e for e in repo_entries if e.scope == scope and worker is not None and e.resource == worker]
    kinds = {"acks": EntryKind.DURABILITY}
    defaults = [Entry(scope, name, value, path, None, kinds.get(name, EntryKind.MEASURED),
                      resource=f"Kafka Connect's own {scope} setting") for name, value in CONNECT_CLIENTS[scope].items()]
    notes.append(f"{connector or worker}: its tasks' {scope} starts from Connect's own "
                 f"{', '.join(f'{k}={v}' for k, v in CONNECT_CLIENTS[scope].items())}, then "
                 f"{f'the {scope}.* keys of ' + worker if worker else 'no worker config of the repo'}, then "
                 f"{f'its {scope}.override.* keys' if connector else 'no connector overrides'}")
    merged = {e.name: e for e in (*defaults, *base, *own)}
    if scope == "consumer" or connector is None:
        return TaskClients(list(merged.values()), connector)
    if _own(repo_entries, path, connector, SINK_KEYS) is not None:
        notes.append(f"{connector} is a sink: its tasks.max is its consumer group's members; its producer (the "
                     "dead-letter queue's) is measured as one")
        return TaskClients(list(merged.values()), connector)
    return TaskClients(list(merged.values()), connector, _own(repo_entries, path, connector, (TASKS,)))

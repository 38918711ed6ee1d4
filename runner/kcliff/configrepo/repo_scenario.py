"""Map a config repo onto a kcliff Scenario: what the repo sets overrides Kafka's defaults.

kcliff's own scenarios may not change the invariants (acks=all, RF 3, min.insync.replicas=2), and
Scenario validation rejects them. A config repo is measured as it is, so RepoScenario carries the
repo's durability settings in a separate field, `durability`, which as_applied() lays over the
invariants. The cliff rules flag the weakened ones; nothing here silently "fixes" them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from kcliff.configrepo import connect, consumption, rdkafka_producer
from kcliff.configrepo.discover import ConfigRepo
from kcliff.configrepo.model import Entry, EntryKind
from kcliff.configrepo.production import Production, production_of
from kcliff.errors import InputError
from kcliff.kafka.clients import Client
from kcliff.scenario import settings
from kcliff.scenario.latency_budget import LatencyBudget
from kcliff.scenario.payload import Payload
from kcliff.scenario.suites import ID_PATTERN, Scenario

CLUSTER_BROKERS = 3


@dataclass(frozen=True)
class RepoScenario(Scenario):
    """A Scenario read from a config repo. `durability` holds {scope: {name: value}} for acks,
    min.insync.replicas and replication.factor exactly as the repo sets them (capped to what a
    3-broker cluster can host); `notes` says what was ignored, capped or chosen."""

    durability: dict[str, dict[str, Any]] = field(default_factory=dict)
    notes: tuple[str, ...] = ()
    production: Production | None = None  # how kcliff.yaml says its producer runs (None: it does not say)
    # where the repo says how many producers run, to annotate a change of it (None: nowhere): kcliff.yaml's
    # instances, else a source connector's tasks.max (the connector's line where it has none: Connect's one)
    producers_said: tuple[str, int | None] | None = None

    def as_applied(self) -> dict[str, Any]:
        applied = super().as_applied()
        for scope, values in self.durability.items():
            applied[scope].update(values)
        return applied

    @property
    def latency_budget(self) -> LatencyBudget | None:
        """What kcliff.yaml says the service tolerates at its rate (None: it does not say)."""
        return self.production.latency if self.production else None

    def weakened_durability(self) -> dict[str, dict[str, Any]]:
        """The durability settings that differ from kcliff's invariants."""
        out: dict[str, dict[str, Any]] = {}
        for scope, values in self.durability.items():
            fixed = settings.INVARIANTS.get(scope, {})
            diff = {k: v for k, v in values.items() if k in fixed and fixed[k] != v and not (k == "acks" and v == "-1")}
            if diff:
                out[scope] = diff
        return out


def _merge_broker(entries: list[Entry]) -> dict[str, Entry]:
    """kcliff applies broker settings cluster-wide: several broker files must agree on them."""
    merged: dict[str, Entry] = {}
    for e in entries:
        if not e.kind.measured:
            continue
        first = merged.get(e.name)
        if first is not None and first.value != e.value:
            raise InputError(f"broker setting '{e.name}' is {e.value!r} here but {first.value!r} at {first.where()}; "
                             "kcliff measures one cluster-wide broker config, so broker files must agree",
                             e.path, e.line)
        merged.setdefault(e.name, e)
    return merged


def _choose(options: list[str], wanted: str | None, what: str, notes: list[str]) -> str | None:
    if not options:
        return None
    if wanted is not None:
        if wanted not in options:
            raise InputError(f"{what} {wanted!r} is not in the repo: expected one of {', '.join(options)}")
        return wanted
    if len(options) > 1:
        notes.append(f"several {what}s ({', '.join(options)}); measuring {options[0]} "
                     f"(choose with measure.{what} in kcliff.yaml)")
    return options[0]


@dataclass(frozen=True)
class Chosen:
    """The entries `check` measures besides the brokers': one producer file, one consumer file, one topic."""

    producer: list[Entry]
    consumer: list[Entry]
    topic: list[Entry]
    producer_file: str | None = None
    # the measured producer as a connector's tasks run it: a source's tasks.max is how many producers run
    tasks: connect.TaskClients | None = None
    client: Client = Client.JAVA  # the measured producer's library: a librdkafka file's is librdkafka
    consuming: list[Entry] = field(default_factory=list)  # how the consumer's service consumes (consumption.py)


def _chosen(repo: ConfigRepo, topic: str | None, producer: str | None, notes: list[str]) -> Chosen:
    """The measured producer and consumer files' entries and the measured topic's (see to_scenario). A
    librdkafka producer file is measured when it is named, or when the repo has no Java producer file."""
    rdkafka_files = rdkafka_producer.producer_files(repo.files)
    wanted = producer or repo.measure.producer
    rdkafka = bool(rdkafka_files) and (wanted in rdkafka_files or (wanted is None and not repo.files_with_role("producer")))
    producer_file = _choose(rdkafka_files if rdkafka else repo.files_with_role("producer"), wanted, "producer", notes)
    consumer_file = _choose(repo.files_with_role("consumer"), repo.measure.consumer, "consumer", notes)
    topic_name = _choose([t.name for t in repo.topics], topic or repo.measure.topic, "topic", notes)
    decl = next((t for t in repo.topics if t.name == topic_name), None)
    if decl is not None and decl.problem:
        raise InputError(decl.problem, decl.path, decl.line)
    # a connector's clients are its tasks': Connect's settings, the worker's, then its overrides (connect.py)
    consumers = connect.task_clients(repo.entries, consumer_file, "consumer", notes).clients
    topics = [e for e in repo.in_scope("topic") if e.topic == topic_name]
    consuming = consumption.of_consumer(repo.entries, consumer_file)
    if rdkafka:  # librdkafka's names and values, as the file writes them
        return Chosen(rdkafka_producer.measured([e for e in repo.entries if e.path == producer_file]), consumers, topics,
                      producer_file, client=Client.LIBRDKAFKA, consuming=consuming)
    producers = connect.task_clients(repo.entries, producer_file, "producer", notes)
    return Chosen(producers.clients, consumers, topics, producer_file, producers, consuming=consuming)


def measured_entries(repo: ConfigRepo, topic: str | None = None, producer: str | None = None) -> list[Entry]:
    """The entries to_scenario measures, each where it is written: modelled and durability settings
    of every broker file, the measured producer and consumer files and the measured topic."""
    chosen = _chosen(repo, topic, producer, [])
    return [e for e in (*repo.in_scope("broker"), *chosen.producer, *chosen.consumer, *chosen.consuming, *chosen.topic)
            if e.kind.measured]


def to_scenario(repo: ConfigRepo, scenario_id: str = "repo", description: str = "",
                topic: str | None = None, producer: str | None = None) -> RepoScenario:
    """The scenario kcliff measures for this repo: broker settings from all broker files, the
    producer from one producer file and the topic from one topic definition (chosen by argument,
    by kcliff.yaml `measure:`, or the first one with a note)."""
    if not ID_PATTERN.match(scenario_id):
        raise InputError(f"scenario id must match {ID_PATTERN.pattern}, got {scenario_id!r}")
    notes: list[str] = [str(n) for n in repo.notes]
    broker = _merge_broker(repo.in_scope("broker"))
    chosen = _chosen(repo, topic, producer, notes)
    producer_entries, topic_entries = chosen.producer, chosen.topic

    def modelled(entries: list[Entry]) -> dict[str, Any]:
        return {e.name: e.value for e in entries if e.kind is EntryKind.MEASURED}

    broker_durability = {n: e.value for n, e in broker.items() if e.kind is EntryKind.DURABILITY}
    topic_durability = {e.name: e.value for e in topic_entries if e.kind is EntryKind.DURABILITY}
    producer_durability = ({e.name: e.value for e in producer_entries if e.kind is EntryKind.DURABILITY}
                           if chosen.client is Client.JAVA else rdkafka_producer.durability(producer_entries))
    durability = _durability(broker_durability, topic_durability, producer_durability, notes)
    sources = sorted({f.path for f in repo.files})
    production = production_of(repo.measure.productions, chosen.producer_file)
    # a service sends its own records: its samples, else events like a service's, never the studies' letters
    payload = Payload.samples(production.samples) if production and production.samples else Payload.json_events()
    return RepoScenario(
        id=scenario_id,
        description=description or f"config repo: {', '.join(sources)}",
        broker={n: e.value for n, e in broker.items() if e.kind is EntryKind.MEASURED},
        topic=modelled(topic_entries),
        producer=modelled(producer_entries),
        consumer=modelled(chosen.consumer),
        consuming=consumption.model(chosen.consuming),
        source=sources[0] if sources else "",
        durability=durability,
        notes=tuple(notes),
        rate=production.rate if production else None,
        # kcliff.yaml's instances where it says them, else a connector's tasks.max
        producers=production.instances if production and production.instances_line else _instances(chosen.tasks, notes),
        production=production,
        producers_said=_producers_said(repo, production, chosen),
        payload=payload,
        record_size=payload.default_record_size(settings.RECORD_SIZE),
        client=chosen.client,
    )


def _producers_said(repo: ConfigRepo, production: Production | None, chosen: Chosen) -> tuple[str, int | None] | None:
    """The line that says how many producers run (RepoScenario.producers_said), as to_scenario counts them."""
    if production and production.instances_line:
        return production.where, production.instances_line
    source = chosen.tasks
    if source is None or source.connector is None or chosen.producer_file is None:
        return None
    if source.tasks is not None:
        return source.tasks.path, source.tasks.line
    resources = (r for f in repo.files if f.path == chosen.producer_file for r in f.resources)
    return chosen.producer_file, next((r.line for r in resources if r.name == source.connector and r.line), 1)


def _instances(source: connect.TaskClients | None, notes: list[str]) -> int:
    """A source connector's tasks.max as the producers measured at once (each task runs its own producer)."""
    if source is None or source.tasks is None:
        return 1
    tasks: int = source.tasks.value  # validated by connect.validate_entry: a positive integer
    if tasks > settings.MAX_PRODUCERS:
        notes.append(f"tasks.max {tasks} measured as {settings.MAX_PRODUCERS} producers at once, kcliff's most")
    return min(tasks, settings.MAX_PRODUCERS)


def _durability(broker: dict[str, Any], topic: dict[str, Any], producer: dict[str, Any],
                notes: list[str]) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    if "acks" in producer:
        out["producer"] = {"acks": producer["acks"]}
    if "default.replication.factor" in broker:
        notes.append("broker default.replication.factor only affects auto-created topics; kcliff creates its "
                     "topic with an explicit replication factor")
    rf = topic.get("replication.factor", settings.INVARIANTS["topic"]["replication.factor"])
    if rf > CLUSTER_BROKERS:
        notes.append(f"replication.factor {rf} measured as {CLUSTER_BROKERS}: kcliff's cluster has {CLUSTER_BROKERS} brokers")
        rf = CLUSTER_BROKERS
    # A topic without its own min.insync.replicas inherits the broker's, as in Kafka.
    min_isr = topic.get("min.insync.replicas", broker.get("min.insync.replicas"))
    topic_out: dict[str, Any] = {}
    if "replication.factor" in topic:
        topic_out["replication.factor"] = rf
    if min_isr is not None:
        if min_isr > rf:
            notes.append(f"min.insync.replicas {min_isr} measured as {rf}: above the replication factor no "
                         "acks=all write could succeed")
            min_isr = rf
        topic_out["min.insync.replicas"] = min_isr
    elif rf < settings.INVARIANTS["topic"]["min.insync.replicas"]:
        topic_out["min.insync.replicas"] = rf
    if topic_out:
        out["topic"] = topic_out
    if "min.insync.replicas" in broker:
        out["broker"] = {"min.insync.replicas": min(broker["min.insync.replicas"], CLUSTER_BROKERS)}
    return out

"""Strimzi custom resources in multi-document YAML files, as GitOps repos keep them.

    Kafka          spec.kafka.config -> broker settings; spec.kafka.version -> the repo's Kafka version
    KafkaTopic     spec.topicName (else metadata.name) -> a topic; spec.partitions, spec.replicas
                   (-> replication.factor) and spec.config -> its settings
    KafkaNodePool  replicas, roles, storage: the cluster's shape, which kcliff does not measure -> notes

Other resources in the same files (ConfigMaps, KafkaUsers, ...) are skipped with a note. Rules
follow Strimzi 1.2.0 (kafka.strimzi.io/v1; the v1beta2 of Strimzi 0.x is read the same way): keys
Strimzi manages itself are noted on their line (Strimzi drops them with a warning), never read as
settings and never "unknown setting" errors; what Strimzi or Kafka would refuse (a bad topic name,
a partition count that is not a positive integer) is an InputError on its line, each resource's
reported together (InputErrors).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from kcliff import yamlio
from kcliff.configrepo import connect_k8s
from kcliff.configrepo.kubernetes import api_of, claim_name, count, line_of, mapping, read_documents
from kcliff.configrepo.model import RawEntry, ReadResult, Resource, TopicDecl, require_topic_name
from kcliff.configrepo.reading import ResourceReading
from kcliff.configrepo.version_file import check as check_version
from kcliff.errors import InputError
from kcliff.kafka import dist as kafka_dist

GROUP = "kafka.strimzi.io"
API_VERSIONS = ("v1", "v1beta2")  # Strimzi 1.x serves v1 only; 0.x repos still write v1beta2
_SNIFF = re.compile(r"^\s*apiVersion:\s*[\"']?kafka\.strimzi\.io/", re.MULTILINE)

# Strimzi 1.2.0, api/.../kafka/KafkaClusterSpec.java: FORBIDDEN_PREFIXES (keys it sets itself: listeners,
# security, storage, KRaft roles, its quota and metrics plugins) and FORBIDDEN_PREFIX_EXCEPTIONS. Strimzi
# compares the lower-cased key's start with each prefix; an exception is an exact key.
FORBIDDEN_PREFIXES = (
    "listeners", "advertised.", "broker.", "listener.", "host.name", "port", "inter.broker.listener.name",
    "sasl.", "ssl.", "security.", "password.", "log.dir", "zookeeper.connect", "zookeeper.set.acl",
    "zookeeper.ssl", "zookeeper.clientcnxnsocket", "authorizer.", "super.user", "cruise.control.metrics.topic",
    "cruise.control.metrics.reporter.bootstrap.servers", "node.id", "process.roles", "controller.",
    "metadata.log.dir", "zookeeper.metadata.migration.enable", "client.quota.callback.static.kafka.admin.",
    "client.quota.callback.static.produce", "client.quota.callback.static.fetch",
    "client.quota.callback.static.storage.per.volume.limit.min.available.",
    "client.quota.callback.static.excluded.principal.name.list", "prometheus.metrics.reporter.",
    "cordoned.log.dirs",
)
FORBIDDEN_PREFIX_EXCEPTIONS = (
    "zookeeper.connection.timeout.ms", "sasl.server.max.receive.size", "ssl.cipher.suites", "ssl.protocol",
    "ssl.enabled.protocols", "ssl.secure.random.implementation", "cruise.control.metrics.topic.num.partitions",
    "cruise.control.metrics.topic.replication.factor", "cruise.control.metrics.topic.retention.ms",
    "cruise.control.metrics.topic.auto.create.retries", "cruise.control.metrics.topic.auto.create.timeout.ms",
    "cruise.control.metrics.topic.min.insync.replicas", "broker.session.timeout.ms",
    "broker.heartbeat.interval.ms", "controller.socket.timeout.ms", "controller.quorum.election.backoff.max.ms",
    "controller.quorum.election.timeout.ms", "controller.quorum.fetch.timeout.ms",
)
# KafkaClusterSpec.ALLOWED_PER_LISTENER_CONFIGS: listener.name.<listener>.<one of these> passes too.
PER_LISTENER = ("connections.max.reauth.ms", "max.connections", "max.connection.creation.rate")


def holds_resources(path: Path) -> bool:
    """Whether a YAML file holds Strimzi resources (its text names the kafka.strimzi.io group): Strimzi
    repos name their files freely, so the content says what a file is. Unreadable text is not ours."""
    try:
        return _SNIFF.search(yamlio.read_text(path)) is not None
    except InputError:
        return False


def forbidden_prefix(key: str) -> str | None:
    """The Strimzi-forbidden prefix `key` starts with, or None where Strimzi passes the key to Kafka."""
    if key in FORBIDDEN_PREFIX_EXCEPTIONS:
        return None
    parts = key.split(".")
    if key.startswith("listener.name.") and len(parts) > 3 and ".".join(parts[3:]) in PER_LISTENER:
        return None
    return next((p for p in FORBIDDEN_PREFIXES if key.lower().startswith(p)), None)


def _kafka(doc: Any, name: str, out: ResourceReading) -> None:
    path, label = out.path, f"Kafka {name}"
    kafka = mapping(mapping(doc, "spec", "Kafka", path), "kafka", "spec", path)
    if "version" in kafka:
        out.versions.append(check_version(str(kafka["version"]), path, line_of(kafka, "version")))
    else:
        out.note(yamlio.node_line(kafka), f"{label}: spec.kafka.version is not set, so Strimzi runs its own default "
                                          f"Kafka version; kcliff measures {kafka_dist.DEFAULT_VERSION}")
    for shape in ("replicas", "storage"):  # Strimzi 0.x's spec.kafka; node pools hold them since
        if shape in kafka:
            out.note(line_of(kafka, shape), f"{label}: spec.kafka.{shape} is the cluster's shape, not a setting kcliff "
                                          "measures (it measures its own 3 combined broker+controller nodes)")
    config = mapping(kafka, "config", "spec.kafka", path, required=False) or {}
    out.resources.append(Resource(label, line_of(kafka, "config") if config else yamlio.node_line(kafka)))
    for key, value in config.items():
        key, line = str(key), line_of(config, key)
        prefix = forbidden_prefix(key)
        if prefix is not None:
            out.note(line, f"{label}: spec.kafka.config '{key}' is managed by Strimzi (forbidden prefix "
                           f"'{prefix}'): Strimzi ignores it, and so does kcliff")
            continue
        out.entries.append(RawEntry("broker", key, value, path, line, resource=label))


def _topic(doc: Any, name: str, out: ResourceReading) -> None:
    path, label = out.path, f"KafkaTopic {name}"
    spec = mapping(doc, "spec", "KafkaTopic", path, required=False) or {}  # every field of it is optional
    topic = spec.get("topicName", name)
    where = line_of(spec, "topicName") if "topicName" in spec else line_of(doc["metadata"], "name")
    topic = require_topic_name(topic, path, where)
    out.once(f"topic {topic}", where)
    problem = None
    if "partitions" in spec:
        partitions = count(spec, "partitions", "spec", path, 2**31 - 1)
        out.entries.append(RawEntry("topic", "partitions", partitions, path, line_of(spec, "partitions"), topic, label))
    else:
        problem = (f"{label}: spec.partitions is not set, so Strimzi leaves the partition count to the broker's "
                   "num.partitions, which kcliff does not read; set spec.partitions to measure this topic")
    out.topics.append(TopicDecl(topic, path, where, problem))
    if "replicas" in spec:
        replicas = count(spec, "replicas", "spec", path, 32767)
        out.entries.append(RawEntry("topic", "replication.factor", replicas, path, line_of(spec, "replicas"), topic,
                                    label))
    config = mapping(spec, "config", "spec", path, required=False) or {}
    out.resources.append(Resource(label, line_of(spec, "config") if config else line_of(doc, "spec")))
    for key, value in config.items():
        key, line = str(key), line_of(config, key)
        if key in ("partitions", "replicas", "replication.factor"):
            raise InputError(f"'{key}' is not a topic config Kafka accepts: set spec.partitions or spec.replicas",
                             path, line)
        out.entries.append(RawEntry("topic", key, value, path, line, topic, label))


def _node_pool(doc: Any, name: str, out: ResourceReading) -> None:
    spec = mapping(doc, "spec", "KafkaNodePool", out.path)
    roles, storage = spec.get("roles"), spec.get("storage")
    shape = [f"{spec['replicas']} replicas" if "replicas" in spec else "",
             "roles " + "+".join(map(str, roles)) if isinstance(roles, list) else "",
             f"{storage.get('type')} storage" if isinstance(storage, dict) else ""]
    out.note(line_of(doc, "spec"), f"KafkaNodePool {name} ({', '.join(filter(None, shape))}): the cluster's shape is "
                                 "not a setting kcliff measures (it measures its own 3 combined broker+controller nodes)")


KINDS = {"Kafka": _kafka, "KafkaTopic": _topic, "KafkaNodePool": _node_pool,
         "KafkaConnector": connect_k8s.strimzi_connector, "KafkaConnect": connect_k8s.strimzi_connect,
         "KafkaMirrorMaker2": connect_k8s.strimzi_mirror_maker}


def _document(doc: Any, out: ResourceReading) -> None:
    path, line = out.path, yamlio.node_line(doc)
    group, version, kind = api_of(doc, path)
    if group != GROUP or kind not in KINDS:
        out.note(line, f"{kind} ({doc['apiVersion']}) holds no settings kcliff reads; skipped")
        return
    if version not in API_VERSIONS:
        raise InputError(f"apiVersion {doc['apiVersion']}: expected {GROUP}/v1 (Strimzi 1.x) or {GROUP}/v1beta2 "
                         "(Strimzi 0.x)", path, line_of(doc, "apiVersion"))
    KINDS[kind](doc, claim_name(doc, kind, out), out)


class StrimziReader:
    format = "strimzi"
    roles = ("strimzi",)

    def read(self, path: Path, role: str) -> ReadResult:
        return read_documents(path, _document)

"""Kafka Connect as the Kubernetes operators declare it (what each key means to Connect: connect.py):

    Strimzi KafkaConnector     spec.config (its client overrides), spec.tasksMax; its worker is the
                               KafkaConnect its strimzi.io/cluster label names
    Strimzi KafkaConnect       spec.config: the worker's config (producer.*, consumer.*, the policy)
    Strimzi KafkaMirrorMaker2  the Connect cluster's config (spec.clusters[connectCluster].config, or
                               spec.target.config) as its worker; each mirror's source, checkpoint and
                               heartbeat connector's config and tasksMax as its connectors
    CFK Connector              spec.configs, spec.taskMax; its worker the Connect of spec.connectClusterRef
    CFK Connect                spec.configOverrides.server ("key=value" lines of the worker's properties)

What is not read: the replication flows MirrorMaker2 runs (which topics, how many) and the Connect
workers' own JVMs, replicas and plugins: kcliff measures a connector's clients, not a Connect cluster.
"""

from __future__ import annotations

from typing import Any

from kcliff import yamlio
from kcliff.configrepo import connect
from kcliff.configrepo.kubernetes import line_of, mapping
from kcliff.configrepo.model import RawEntry, Resource
from kcliff.configrepo.properties import parse_text
from kcliff.configrepo.reading import ResourceReading
from kcliff.errors import InputError

STRIMZI_CLUSTER_LABEL = "strimzi.io/cluster"
MIRROR_CONNECTORS = (("sourceConnector", "MirrorSourceConnector"), ("checkpointConnector", "MirrorCheckpointConnector"),
                     ("heartbeatConnector", "MirrorHeartbeatConnector"))


def _labelled(doc: Any, kind: str, name: str) -> str:
    metadata = doc.get("metadata") or {}
    labels = metadata.get("labels") if isinstance(metadata, dict) else None
    cluster = labels.get(STRIMZI_CLUSTER_LABEL) if isinstance(labels, dict) else None
    return f"{kind} {name} (cluster {cluster})" if isinstance(cluster, str) and cluster else f"{kind} {name}"


def _tasks(node: Any, key: str, label: str, out: ResourceReading) -> None:
    if key in node:
        out.entries.append(RawEntry(connect.CONNECTOR_SCOPE, connect.TASKS, node[key], out.path, line_of(node, key),
                                    resource=label))


def _connector(config: Any, node: Any, where: str, label: str, out: ResourceReading, key: str = "config") -> None:
    """A connector's config map at `node[key]` (CFK's is `configs`), its class the node's `class` if any."""
    if config is None:
        out.resources.append(Resource(label, line_of(node, where)))
        return
    if not isinstance(config, dict):
        raise InputError(f"{label}: {where}.{key} must be a mapping", out.path, line_of(node, key))
    out.resources.append(Resource(label, line_of(node, key)))
    connect.connector_entries(config, lambda key: line_of(config, key), label, out, node.get("class"))


def strimzi_connector(doc: Any, name: str, out: ResourceReading) -> None:
    label = _labelled(doc, "KafkaConnector", name)
    if "(cluster " not in label:
        out.note(line_of(doc, "metadata"), f"{label}: no {STRIMZI_CLUSTER_LABEL} label, so Strimzi runs it on no "
                                           "KafkaConnect; read as the repo's only worker's connector, if it has one")
    spec = mapping(doc, "spec", "KafkaConnector", out.path)
    _tasks(spec, "tasksMax", label, out)
    _connector(spec.get("config"), spec, "spec", label, out)


def strimzi_connect(doc: Any, name: str, out: ResourceReading) -> None:
    label = f"KafkaConnect {name}"
    spec = mapping(doc, "spec", "KafkaConnect", out.path)
    config = mapping(spec, "config", "spec", out.path, required=False) or {}
    out.resources.append(Resource(label, line_of(spec, "config") if config else line_of(doc, "spec")))
    connect.worker_entries(config, lambda key: line_of(config, key), label, out)


def strimzi_mirror_maker(doc: Any, name: str, out: ResourceReading) -> None:
    label = f"KafkaMirrorMaker2 {name}"
    spec = mapping(doc, "spec", "KafkaMirrorMaker2", out.path)
    clusters = spec.get("clusters") if isinstance(spec.get("clusters"), list) else []
    worker = next((c for c in clusters if isinstance(c, dict) and c.get("alias") == spec.get("connectCluster")), None)
    if worker is None and isinstance(spec.get("target"), dict):
        worker = spec["target"]
    config = mapping(worker, "config", "the Connect cluster", out.path, required=False) if worker else None
    out.resources.append(Resource(label, line_of(worker, "config") if config else line_of(doc, "spec")))
    connect.worker_entries(config or {}, lambda key: line_of(config, key), label, out)
    mirrors = spec.get("mirrors") if isinstance(spec.get("mirrors"), list) else []
    for mirror in mirrors:
        if not isinstance(mirror, dict):
            continue
        source = mirror.get("source")  # Strimzi 1.x names the source cluster inside the mirror
        flow = (f"{mirror.get('sourceCluster') or (source.get('alias') if isinstance(source, dict) else None)}->"
                f"{mirror.get('targetCluster') or spec.get('connectCluster')}")
        for field, kind in MIRROR_CONNECTORS:
            connector = mirror.get(field)
            if not isinstance(connector, dict):
                continue
            mirror_label = f"KafkaMirrorMaker2 {name} {flow} {kind} (cluster {name})"
            _tasks(connector, "tasksMax", mirror_label, out)
            _connector(connector.get("config"), connector, field, mirror_label, out)
    out.note(line_of(spec, "mirrors") if mirrors else line_of(doc, "spec"),
             f"{label}: its replication flows (topics, groups, offsets) are not measured; its connectors' clients are "
             "read as any connector's")


def cfk_connector(doc: Any, name: str, out: ResourceReading) -> None:
    spec = mapping(doc, "spec", "Connector", out.path)
    ref = spec.get("connectClusterRef")
    cluster = ref.get("name") if isinstance(ref, dict) else None
    label = f"Connector {name} (cluster {cluster})" if isinstance(cluster, str) and cluster else f"Connector {name}"
    _tasks(spec, "taskMax", label, out)
    _connector(spec.get("configs"), spec, "spec", label, out, "configs")


def cfk_connect(doc: Any, name: str, out: ResourceReading) -> None:
    label = f"Connect {name}"
    spec = mapping(doc, "spec", "Connect", out.path)
    overrides = mapping(spec, "configOverrides", "spec", out.path, required=False) or {}
    server = overrides.get("server") or []
    if not isinstance(server, list):
        raise InputError("spec.configOverrides.server must be a list of \"key=value\" strings", out.path,
                         line_of(overrides, "server"))
    config: dict[str, Any] = {}
    lines: dict[str, int | None] = {}
    for index, item in enumerate(server):
        line = yamlio.key_line(server, index)
        parsed = parse_text(item, out.path) if isinstance(item, str) else None
        if parsed is None or len(parsed) > 1:
            out.problem(f"{label}: spec.configOverrides.server items are one \"key=value\" line each, got {item!r}", line)
        elif parsed:  # an empty list: a comment line of the worker's properties
            config[parsed[0][0]], lines[parsed[0][0]] = parsed[0][1], line
    out.resources.append(Resource(label, line_of(overrides, "server") if server else line_of(doc, "spec")))
    connect.worker_entries(config, lines.get, label, out)

"""Confluent for Kubernetes (CFK) custom resources (platform.confluent.io/v1beta1), as GitOps repos keep them.

    Kafka       spec.configOverrides.server ("key=value" strings, each a line of the brokers'
                server.properties) -> broker settings on their own line; spec.image.application
                (confluentinc/cp-server:7.6.0) -> the Kafka version of that Confluent Platform release
    KafkaTopic  spec.name (else metadata.name) -> a topic; spec.partitionCount, spec.replicas
                (-> replication.factor) and spec.configs -> its settings

Confluent Platform 7.x ships Kafka 3.x and 8.x ships Kafka 4.x, minor for minor (CP 7.6 -> Kafka 3.6,
CP 8.1 -> Kafka 4.1; Confluent's "Supported Versions and Interoperability" table). Confluent's own
patch releases are not Apache's, so the version read is the minor's first release, with a note
saying it was derived. Connect and Connector are Kafka Connect's worker and connectors (connect_k8s.py).
Other kinds (KRaftController, Zookeeper, SchemaRegistry, ...) are
noted and skipped: their configOverrides configure those components, not the Kafka brokers. Keys of
Confluent Server itself (`confluent.*`, in the cp-server image, not in Apache Kafka) and values Kafka
resolves at start-up (`${file:...}` config providers) are noted on their line, not read. What CFK,
its CRDs or Kafka would refuse is bad input on its line; every one found in the file is reported.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Callable

from kcliff import yamlio
from kcliff.configrepo import connect_k8s
from kcliff.configrepo.kubernetes import api_of, claim_name, count, line_of, mapping, read_documents
from kcliff.configrepo.model import RawEntry, ReadResult, Resource, TopicDecl, require_topic_name
from kcliff.configrepo.properties import parse_text
from kcliff.configrepo.reading import ResourceReading
from kcliff.configrepo.version_file import check as check_version
from kcliff.configrepo.version_file import newest_patch
from kcliff.errors import InputError
from kcliff.kafka import dist as kafka_dist

GROUP = "platform.confluent.io"
API_VERSIONS = ("v1beta1",)
_SNIFF = re.compile(r"^\s*apiVersion:\s*[\"']?platform\.confluent\.io/", re.MULTILINE)
# The Confluent Platform images that run the brokers: Confluent Server and its community build.
BROKER_IMAGES = ("cp-server", "cp-kafka")
_IMAGE = re.compile(r"(?:.+/)?(?P<name>[^/:@]+)(?::(?P<tag>[^@]+))?(?:@.+)?")
_CP_TAG = re.compile(r"(?P<major>\d+)\.(?P<minor>\d+)\.\d+(?:[-.].*)?")
# Confluent Platform major -> Apache Kafka major: CP 7.x ships Kafka 3.x, CP 8.x ships Kafka 4.x.
KAFKA_MAJOR = {7: 3, 8: 4}
CONFLUENT_PREFIX = "confluent."  # Confluent Server's own settings (not in Apache Kafka)
_PROVIDED = re.compile(r"\$\{[^}]*\}")  # a Kafka config provider reference, resolved by the broker


def holds_resources(path: Path) -> bool:
    """Whether a YAML file holds CFK resources (its text names the platform.confluent.io group)."""
    try:
        return _SNIFF.search(yamlio.read_text(path)) is not None
    except InputError:
        return False


def kafka_of_platform(image: str) -> tuple[str, str] | None:
    """(Kafka minor version, Confluent Platform version) of a broker image such as
    confluentinc/cp-server:7.6.0, or None when the image is not one whose Kafka is known."""
    match = _IMAGE.fullmatch(image.strip())
    if match is None or match["name"] not in BROKER_IMAGES or not match["tag"]:
        return None
    tag = _CP_TAG.fullmatch(match["tag"])
    if tag is None or int(tag["major"]) not in KAFKA_MAJOR:
        return None
    return f"{KAFKA_MAJOR[int(tag['major'])]}.{tag['minor']}", f"{tag['major']}.{tag['minor']}"


def confluent_server_note(key: str) -> str | None:
    """Why kcliff does not read `key` when it is Confluent Server's own setting (cp-server, Confluent
    Cloud: schema validation, tiered storage, the balancer), else None."""
    if key.startswith(CONFLUENT_PREFIX):
        return f"'{key}' is Confluent Server's own setting, not Apache Kafka's; kcliff does not read it"
    return None


def _setting(scope: str, key: str, value: Any, line: int | None, label: str, out: ResourceReading,
             topic: str | None = None) -> None:
    if (why := confluent_server_note(key)) is not None:
        out.note(line, f"{label}: {why}")
    elif isinstance(value, str) and _PROVIDED.search(value):
        out.note(line, f"{label}: '{key}' = {value} is resolved by a config provider when the broker starts: not "
                       "a literal; kcliff does not guess it")
    else:
        out.entries.append(RawEntry(scope, key, value, out.path, line, topic, label))


def _version(spec: Any, label: str, out: ResourceReading) -> None:
    image = spec.get("image")
    application = image.get("application") if isinstance(image, dict) else None
    line = line_of(image, "application") if isinstance(image, dict) else line_of(spec, "image")
    if not isinstance(application, str):
        out.note(line, f"{label}: spec.image.application is not set, so CFK's default image runs; kcliff measures "
                       f"Kafka {kafka_dist.DEFAULT_VERSION}")
        return
    found = kafka_of_platform(application)
    if found is None:
        out.note(line, f"{label}: image {application} is not a versioned confluentinc/cp-server or cp-kafka image, "
                       f"so its Kafka version is unknown; kcliff measures Kafka {kafka_dist.DEFAULT_VERSION}")
        return
    kafka, platform = found
    release = newest_patch(*kafka.split("."))
    out.note(line, f"{label}: {application} is Confluent Platform {platform}, which ships Kafka {kafka}; kcliff "
                   f"derived the version from the image and reads it at that minor's newest release kcliff knows, {release}")
    try:
        out.versions.append(check_version(release, out.path, line))
    except InputError as exc:
        out.problems.append(exc)


def _kafka(doc: Any, name: str, out: ResourceReading) -> None:
    path, label = out.path, f"Kafka {name}"
    spec = mapping(doc, "spec", "Kafka", path)
    _version(spec, label, out)
    shape = [key for key in ("replicas", "dataVolumeCapacity", "storageClass", "podTemplate") if key in spec]
    if shape:
        out.note(line_of(spec, shape[0]), f"{label}: spec.{', spec.'.join(shape)}: the cluster's shape, not a setting "
                                        "kcliff measures (it measures its own 3 combined broker+controller nodes)")
    overrides = mapping(spec, "configOverrides", "spec", path, required=False) or {}
    for other in ("jvm", "log4j", "log4j2"):
        if other in overrides:
            out.note(line_of(overrides, other), f"{label}: spec.configOverrides.{other}: not Kafka settings; not read")
    server = overrides.get("server")
    if server is None:
        out.resources.append(Resource(label, line_of(spec, "configOverrides") if overrides else yamlio.node_line(spec)))
        return
    if not isinstance(server, list):
        raise InputError("spec.configOverrides.server must be a list of \"key=value\" strings", path,
                         line_of(overrides, "server"))
    out.resources.append(Resource(label, line_of(overrides, "server")))
    for index, item in enumerate(server):
        line = yamlio.key_line(server, index)
        if not isinstance(item, str):
            out.problems.append(InputError(f"spec.configOverrides.server items are \"key=value\" strings, got "
                                           f"{item!r}", path, line))
            continue
        try:
            parsed = parse_text(item, path)
        except InputError as exc:
            out.problems.append(InputError(exc.message, path, line))
            continue
        if not parsed:  # a comment line: server.properties keeps it, Kafka reads nothing from it
            continue
        if len(parsed) != 1:
            out.problems.append(InputError(f"{item!r}: expected one \"key=value\" line of server.properties",
                                           path, line))
            continue
        key, value, _ = parsed[0]
        _setting("broker", key, value, line, label, out)


def _topic(doc: Any, name: str, out: ResourceReading) -> None:
    path, label = out.path, f"KafkaTopic {name}"
    spec = mapping(doc, "spec", "KafkaTopic", path, required=False) or {}
    topic = spec.get("name", name)
    where = line_of(spec, "name") if "name" in spec else line_of(doc["metadata"], "name")
    topic = require_topic_name(topic, path, where)
    out.once(f"topic {topic}", where)
    problem = None
    if "partitionCount" in spec:
        partitions = count(spec, "partitionCount", "spec", path, 2**31 - 1)
        out.entries.append(RawEntry("topic", "partitions", partitions, path, line_of(spec, "partitionCount"), topic,
                                    label))
    else:
        problem = (f"{label}: spec.partitionCount is not set, so CFK's default applies, which kcliff does not "
                   "assume; set spec.partitionCount to measure this topic")
    out.topics.append(TopicDecl(topic, path, where, problem))
    if "replicas" in spec:
        out.entries.append(RawEntry("topic", "replication.factor", count(spec, "replicas", "spec", path, 32767), path,
                                    line_of(spec, "replicas"), topic, label))
    configs = mapping(spec, "configs", "spec", path, required=False) or {}
    out.resources.append(Resource(label, line_of(spec, "configs") if configs else line_of(doc, "spec")))
    for key, value in configs.items():
        key, line = str(key), line_of(configs, key)
        if key in ("partitions", "replicas", "replication.factor"):
            out.problems.append(InputError(f"'{key}' is not a topic config Kafka accepts: set spec.partitionCount or "
                                           "spec.replicas", path, line))
            continue
        _setting("topic", key, value, line, label, out, topic)


KINDS: dict[str, Callable[[Any, str, ResourceReading], None]] = {"Kafka": _kafka, "KafkaTopic": _topic,
                                                                 "Connector": connect_k8s.cfk_connector,
                                                                 "Connect": connect_k8s.cfk_connect}


def _document(doc: Any, out: ResourceReading) -> None:
    path, line = out.path, yamlio.node_line(doc)
    group, version, kind = api_of(doc, path)
    if group != GROUP:
        out.note(line, f"{kind} ({doc['apiVersion']}) holds no settings kcliff reads; skipped")
        return
    if version not in API_VERSIONS:
        raise InputError(f"apiVersion {doc['apiVersion']}: expected {GROUP}/v1beta1 (Confluent for Kubernetes)",
                         path, line_of(doc, "apiVersion"))
    if kind not in KINDS:
        named = doc.get("metadata", {}).get("name") if isinstance(doc.get("metadata"), dict) else None
        out.note(line, f"{kind}{f' {named}' if named else ''}: a Confluent Platform component, not the Kafka brokers or a topic; its settings "
                       "(configOverrides too) are not Kafka broker settings; skipped")
        return
    KINDS[kind](doc, claim_name(doc, kind, out), out)


class CfkReader:
    format = "cfk"
    roles = ("cfk",)

    def read(self, path: Path, role: str) -> ReadResult:
        return read_documents(path, _document)

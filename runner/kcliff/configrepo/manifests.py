"""Kubernetes manifests that configure Kafka without an operator: workloads running a broker image
(workloads.py: their containers' environment) and ConfigMaps holding Kafka .properties text
(configmap_properties.py), several resources per file separated by `---` (a `kind: List` too).

Found by content, whatever the file's name: a workload kind beside an `image:` line naming a broker image,
or a ConfigMap whose `*.properties` data holds Kafka's keys (decided by its content: a game server's
server.properties is not read). Other resources (Services, PodDisruptionBudgets, ...) are skipped with
a note. A file that is a template (Helm's templates/, not YAML until rendered) is noted, not read.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from kcliff import yamlio
from kcliff.configrepo import configmap_properties
from kcliff.configrepo.container_env import disagreements, is_yaml, load_rendered
from kcliff.configrepo.images import IMAGE_LINE
from kcliff.configrepo.kubernetes import api_of, claim_name
from kcliff.configrepo.model import RawEntry, ReadResult
from kcliff.configrepo.reading import ResourceReading
from kcliff.configrepo.workloads import POD_SPEC, ConfigMaps, read_workload
from kcliff.errors import InputError

_WORKLOAD = re.compile(r"^kind:\s*[\"']?(?:" + "|".join(POD_SPEC) + r")\b", re.MULTILINE)
_CONFIGMAP = re.compile(r"^kind:\s*[\"']?ConfigMap\b", re.MULTILINE)
_PROPERTIES_KEY = re.compile(r"^\s+[\"']?[\w.\-]+\.properties[\"']?\s*:", re.MULTILINE)
_PROPERTY_LINE = re.compile(r"^\s+([a-z][a-z0-9]*(?:\.[a-z0-9\-]+)+)\s*[=:]", re.MULTILINE)


def holds_kafka(path: Path) -> bool:
    """Whether a YAML file holds a workload of a broker image (its text names a workload kind and a broker
    image) or a ConfigMap of Kafka .properties (parsed to judge its content, only once its text has a
    `*.properties` key and a key Kafka knows)."""
    try:
        text = yamlio.read_text(path)
        if _WORKLOAD.search(text) and IMAGE_LINE.search(text):
            return is_yaml(path, text)
        # a text of Kafka's holds at least one key of Kafka's: most ConfigMaps fail this before any parsing
        if not (_CONFIGMAP.search(text) and _PROPERTIES_KEY.search(text)) or \
                not any(configmap_properties.kafka_key(key) for key in _PROPERTY_LINE.findall(text)):
            return False
        return any(configmap_properties.holds_kafka(doc, str(path)) for doc in _resources(yamlio.load_all(path)))
    except InputError:  # unreadable, or not YAML (a template): not a file this reader reads
        return False


def _resources(documents: list[Any]) -> list[Any]:
    """The documents, a `kind: List`'s items in its place (as kubectl get -o yaml writes them)."""
    out: list[Any] = []
    for doc in documents:
        items = doc.get("items") if isinstance(doc, dict) and doc.get("kind") == "List" else None
        out.extend(items if isinstance(items, list) else [doc])
    return out


def _service_links(documents: list[Any]) -> set[Any]:
    """The namespaces of the file's Services named kafka that Kubernetes makes service links of (not headless)."""
    return {doc["metadata"].get("namespace") for doc in documents
            if isinstance(doc, dict) and doc.get("kind") == "Service" and isinstance(doc.get("metadata"), dict)
            and doc["metadata"].get("name") == "kafka" and isinstance(doc.get("spec"), dict)
            and doc["spec"].get("clusterIP") != "None"}


class ManifestsReader:
    format = "kubernetes"
    roles = ("kubernetes",)

    def read(self, path: Path, role: str) -> ReadResult:
        out = ResourceReading(str(path))
        loaded = load_rendered(path, out)
        documents = _resources(loaded or [])
        configmaps, links = ConfigMaps(path, documents), _service_links(documents)
        brokers: list[tuple[str, list[RawEntry]]] = []
        for doc in documents:
            try:
                _group, _version, kind = api_of(doc, str(path))
                if kind == "ConfigMap":
                    configmap_properties.read_configmap(doc, claim_name(doc, kind, out), out)
                elif kind in POD_SPEC:
                    brokers += read_workload(doc, kind, claim_name(doc, kind, out), configmaps, links, out)
                else:
                    out.note(yamlio.node_line(doc), f"{kind} ({doc['apiVersion']}) holds no settings kcliff reads; "
                                                    "skipped")
            except InputError as exc:  # this resource stops here; the file's others are still read
                out.problems.append(exc)
        out.notes.extend(disagreements(brokers))
        return out.result()

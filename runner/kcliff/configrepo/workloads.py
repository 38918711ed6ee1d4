"""Kubernetes workloads (Pod, Deployment, StatefulSet, DaemonSet, ReplicaSet) whose containers run a
Kafka broker image: each such container's environment, read as its image's entry script reads it.

    envFrom: - configMapRef: {name}      every key of that ConfigMap (with the entry's prefix), in order
    env: - {name, value}                  over envFrom, as Kubernetes applies them
         - {name, valueFrom: {configMapKeyRef: {name, key}}}   that ConfigMap's value, on its line

A ConfigMap is looked for in the same file, then in the YAML files of the same directory (a kustomize
base keeps them side by side); one that is not there, a Secret (secretRef, secretKeyRef), the downward
API (fieldRef, resourceFieldRef) and a value Kubernetes expands ($(POD_NAME)) are noted, never guessed.
What Kubernetes refuses (a value that is not a string; a missing key of a ConfigMap the repo holds) and
what the image refuses are bad input on their line. Confluent's images exit at start when KAFKA_PORT is
set, which Kubernetes does in every pod of a namespace holding a Service named kafka (a service link)
unless the pod spec says enableServiceLinks: false: bad input too.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from kcliff import yamlio
from kcliff.configrepo.container_env import EnvVar, configures_broker, image_version, not_a_broker, settings_of, \
    template_mark
from kcliff.configrepo.images import Family, Image, broker_image
from kcliff.configrepo.kubernetes import line_of
from kcliff.configrepo.model import RawEntry, Resource
from kcliff.configrepo.reading import ResourceReading
from kcliff.errors import InputError

POD_SPEC = {"Pod": ("spec",), "Deployment": ("spec", "template", "spec"), "StatefulSet": ("spec", "template", "spec"),
            "DaemonSet": ("spec", "template", "spec"), "ReplicaSet": ("spec", "template", "spec")}
_CONFIGMAP = re.compile(r"^kind:\s*[\"']?ConfigMap\b", re.MULTILINE)


def _is_configmap(doc: Any) -> bool:
    return isinstance(doc, dict) and doc.get("kind") == "ConfigMap" and isinstance(doc.get("metadata"), dict)


class ConfigMaps:
    """The ConfigMaps a workload can name: the file's own, then (read on first need) its directory's."""

    def __init__(self, path: Path, documents: list[Any]) -> None:
        self.path = path
        self.own = {str(d["metadata"].get("name")): (d, str(path)) for d in documents if _is_configmap(d)}
        self.siblings: dict[str, tuple[Any, str]] | None = None

    def find(self, name: str) -> tuple[Any, str] | None:
        if name in self.own:
            return self.own[name]
        if self.siblings is None:
            self.siblings = self._scan()
        return self.siblings.get(name)

    def _scan(self) -> dict[str, tuple[Any, str]]:
        found: dict[str, tuple[Any, str]] = {}
        base = self.path.parent
        for other in sorted(base.iterdir()):
            if other == self.path or other.suffix.lower() not in (".yaml", ".yml") or not other.is_file() \
                    or not other.resolve().is_relative_to(base.resolve()):
                continue
            try:
                documents = yamlio.load_all(other) if _CONFIGMAP.search(yamlio.read_text(other)) else []
            except InputError:  # not YAML (a template): no ConfigMap kcliff can read
                continue
            for doc in documents:
                if _is_configmap(doc):
                    found.setdefault(str(doc["metadata"].get("name")), (doc, str(other)))
        return found


def unresolved(value: str) -> str | None:
    """Why a Kubernetes env value is not a literal ($(VAR) is expanded when the container starts; $$ escapes)."""
    if "$(" in value.replace("$$", ""):
        return "expanded by Kubernetes from the container's other variables when it starts"
    return template_mark(value)


def _string(value: Any, what: str, path: str, line: int | None) -> str:
    if not isinstance(value, str):
        raise InputError(f"{what}: Kubernetes takes a string here and refuses {value!r} ({type(value).__name__}); "
                         "quote it", path, line)
    return value


def _configmap_key(var: str, ref: dict[str, Any], line: int | None, label: str, configmaps: ConfigMaps,
                   out: ResourceReading) -> EnvVar | None:
    name, key = str(ref.get("name")), str(ref.get("key"))
    found = configmaps.find(name)
    if found is None:
        return EnvVar(var, f"configMapKeyRef {name}/{key}", out.path, line,
                      "a ConfigMap that is not in this file or its directory")
    doc, path = found
    data = doc.get("data") or {}
    if key not in data:
        if ref.get("optional") is not True:
            out.problem(f"{label}: {var} names key {key!r} of ConfigMap {name} ({path}), which has no such key: "
                        "Kubernetes does not start the container", line)
        return None
    at = yamlio.key_line(data, key)
    value = _string(data[key], f"ConfigMap {name} {key}", path, at)
    return EnvVar(var, value, path, at, unresolved(value))


def _env(node: Any, label: str, configmaps: ConfigMaps, out: ResourceReading) -> list[EnvVar]:
    found: list[EnvVar] = []
    for index, item in enumerate(node if isinstance(node, list) else []):
        line = yamlio.key_line(node, index)
        if not isinstance(item, dict) or not isinstance(item.get("name"), str):
            out.problem(f"{label}: env items are {{name, value}} or {{name, valueFrom}}", line)
            continue
        var, source = item["name"], item.get("valueFrom")
        try:
            if isinstance(source, dict) and isinstance(source.get("configMapKeyRef"), dict):
                read = _configmap_key(var, source["configMapKeyRef"], line, label, configmaps, out)
                found += [read] if read else []
            elif isinstance(source, dict):
                what = next(iter(source), "valueFrom")
                secret = "a Secret's value, not in the repo" if what == "secretKeyRef" else \
                    f"set from the pod ({what}) when it starts"
                found.append(EnvVar(var, f"valueFrom.{what}", out.path, line, secret))
            else:
                at = yamlio.key_line(item, "value") or line  # where the value is written
                value = _string(item.get("value", ""), f"{label}: env {var}", out.path, at)
                found.append(EnvVar(var, value, out.path, at, unresolved(value)))
        except InputError as exc:
            out.problems.append(exc)
    return found


def _env_from(node: Any, label: str, configmaps: ConfigMaps, out: ResourceReading) -> list[EnvVar]:
    found: list[EnvVar] = []
    for index, item in enumerate(node if isinstance(node, list) else []):
        line = yamlio.key_line(node, index)
        ref = item.get("configMapRef") if isinstance(item, dict) else None
        if not isinstance(ref, dict):
            out.note(line, f"{label}: envFrom of a Secret (or another source): its variables are not in the repo; "
                           "not read")
            continue
        name, prefix = str(ref.get("name")), str(item.get("prefix") or "")
        located = configmaps.find(name)
        if located is None:
            out.note(line, f"{label}: envFrom ConfigMap {name} is not in this file or its directory: its variables "
                           "are not read")
            continue
        doc, path = located
        data = doc.get("data") or {}
        for key, value in data.items() if isinstance(data, dict) else []:
            at = yamlio.key_line(data, key)
            try:
                text = _string(value, f"ConfigMap {name} {key}", path, at)
            except InputError as exc:
                out.problems.append(exc)
                continue
            found.append(EnvVar(prefix + str(key), text, path, at, unresolved(text)))
    return found


def _service_link(image: Image, pod: Any, namespace: Any, links: set[Any], label: str, line: int | None,
                  out: ResourceReading) -> None:
    """Confluent's images exit when KAFKA_PORT is set; a Service named kafka sets it in the pod's namespace."""
    if image.family is Family.CONFLUENT and pod.get("enableServiceLinks") is not False and namespace in links:
        out.problem(f"{label}: the Service named kafka in this file makes Kubernetes set KAFKA_PORT in this pod (a "
                    f"service link), and {image.name}'s configure script exits at start when KAFKA_PORT is set: set "
                    "enableServiceLinks: false in the pod spec", line)


def read_workload(doc: Any, kind: str, name: str, configmaps: ConfigMaps, links: set[Any],
                  out: ResourceReading) -> list[tuple[str, list[RawEntry]]]:
    """The settings of each broker container of a workload, with its label ("StatefulSet kafka"); `links` holds
    the namespaces of the file's Services named kafka that Kubernetes makes service links of."""
    pod = doc
    for step in POD_SPEC[kind]:
        pod = pod.get(step) if isinstance(pod, dict) else None
    containers = pod.get("containers") if isinstance(pod, dict) else None
    if not isinstance(containers, list):
        out.problem(f"{kind} {name}: {'.'.join(POD_SPEC[kind])}.containers must be a list", line_of(doc, "spec"))
        return []
    brokers = [(c, image) for c in containers if isinstance(c, dict) and (image := broker_image(c.get("image")))]
    for other in containers:
        env = other.get("env") if isinstance(other, dict) and not broker_image(other.get("image")) else None
        if isinstance(env, list) and any(isinstance(e, dict) and str(e.get("name")).startswith("KAFKA_") for e in env):
            out.note(line_of(other, "image"), not_a_broker(f"{kind} {name} container {other.get('name')}",
                                                           other.get("image")))
    namespace = doc["metadata"].get("namespace")
    found = []
    for container, image in brokers:
        label = f"{kind} {name}" + (f" container {container.get('name')}" if len(brokers) > 1 else "")
        image_version(image, label, line_of(container, "image"), out)
        command = line_of(container, "command" if "command" in container else "args")
        if not configures_broker(image, label, (container.get("command"), container.get("args")), command, out):
            continue
        _service_link(image, pod, namespace, links, label, line_of(doc["metadata"], "name"), out)
        variables = _env_from(container.get("envFrom"), label, configmaps, out)
        variables += _env(container.get("env"), label, configmaps, out)
        out.resources.append(Resource(label, line_of(container, "env") if "env" in container else
                                      yamlio.node_line(container)))
        entries = settings_of(image, variables, label, out)
        out.entries.extend(entries)
        found.append((label, entries))
    return found

"""Bitnami's kafka chart (bitnami/charts, bitnami/kafka), its values read as its templates render them.

    chart 20-23  the camelCase keys (logRetentionHours, numPartitions, ...), one KAFKA_CFG_* variable
                 each, or `config` (a whole server.properties): helm_bitnami_legacy.py
    chart 24-31  two statefulsets, controller-eligible nodes (brokers too unless controller.controllerOnly)
                 and broker-only nodes (broker.replicaCount, 0 by default), each with its server.properties
                 in a ConfigMap: `config` / `controller.config` / `broker.config` replace it whole; else the
                 chart appends `extraConfig`, then the group's `extraConfig`, then `extraConfigYaml` with the
                 group's `extraConfigYaml` over it (29.2.0 on), the last line of a key winning
    chart 32     `config` (key: value) replaces the generated config; `overrideConfiguration`, then the
                 group's, is laid over it
    all          provisioning.topics: helm_provisioning.py; the Kafka version from `image.tag`
                 (3.9.0-debian-12-r12), else from the chart version (chart 31 ships Kafka 3.9.0)

The chart version comes from where the chart is named (a Chart.yaml dependency, a HelmRelease, an
Argo CD Application); without one, the keys the file sets say which chart it is for, and keys of
another chart version, which that chart ignores, are warnings. `existingConfigmap` and
`secretConfig` (a ConfigMap, a Secret) and `extraEnvVars` (environment variables) are noted, not read.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import Enum

from kcliff.configrepo.helm_bitnami_legacy import LEGACY, legacy_keys, read_brokers
from kcliff.configrepo.helm_charts import Target
from kcliff.configrepo.helm_provisioning import read_topics
from kcliff.configrepo.helm_values import Values, nested, properties_text, yaml_mapping, yaml_settings
from kcliff.configrepo.model import Note, NoteLevel, Resource
from kcliff.configrepo.version_file import check as check_version
from kcliff.errors import InputError


class Era(Enum):
    """The chart versions that read a file's keys alike."""

    ENV_VARS = "20-23"
    EXTRA_CONFIG = "24-31"
    OVERRIDE = "32"


# The keys only one era's chart reads (top level; the group keys are the same under controller/broker).
ERA_KEYS = {Era.EXTRA_CONFIG: ("extraConfig", "extraConfigYaml"), Era.OVERRIDE: ("overrideConfiguration",)}
GROUP_CONFIG = ("config", "existingConfigmap", "extraConfig", "extraConfigYaml", "overrideConfiguration",
                "secretConfig")
ENV_KEYS = ("extraEnvVars", "extraEnvVarsCM", "extraEnvVarsSecret")
KNOWN = (*LEGACY, *GROUP_CONFIG, *ENV_KEYS, "controller", "broker", "provisioning", "image")
# Bitnami's chart major -> the Kafka its newest release of that major ships (Chart.yaml appVersion; a major's
# releases differ by a patch release at most, and 20.x spans 3.3 and 3.4, so it is not mapped).
KAFKA_OF_CHART = {21: "3.4.0", 22: "3.4.1", 23: "3.5.1", 24: "3.5.1", 25: "3.5.1", 26: "3.6.1", 27: "3.7.0",
                  28: "3.7.0", 29: "3.7.1", 30: "3.8.1", 31: "3.9.0", 32: "4.0.0"}
_TAG = re.compile(r"(?P<version>\d+\.\d+\.\d+)(?:[-+].*)?")


@dataclass(frozen=True)
class Group:
    key: str  # the values key holding the group's own settings
    name: str
    replicas: int  # the chart's default replicaCount


CONTROLLER = Group("controller", "controller-eligible nodes", 3)
BROKER = Group("broker", "broker-only nodes", 0)


def _era_of(major: int) -> Era:
    return Era.ENV_VARS if major <= 23 else Era.EXTRA_CONFIG if major <= 31 else Era.OVERRIDE


def _era_keys(values: Values, era: Era) -> list[tuple[Values, str]]:
    """The keys of `era` the file sets, each with the mapping it is in."""
    if era is Era.ENV_VARS:
        return [(values, k) for k in legacy_keys(values)]
    nodes = [values, *filter(None, (values.child(g.key) for g in (CONTROLLER, BROKER)))]
    return [(node, k) for node in nodes for k in ERA_KEYS[era] if node.get(k) not in (None, "", {})]


def _era(values: Values, target: Target) -> tuple[Era, str]:
    """The chart version the file is read as, and why."""
    major = target.major()
    if major is not None:
        return _era_of(major), f"chart version {target.version}"
    for era in (Era.OVERRIDE, Era.EXTRA_CONFIG, Era.ENV_VARS):
        found = _era_keys(values, era)
        if found:
            node, key = found[0]
            return era, f"{node.name(key)} at line {node.line(key)} is a chart {era.value} key"
    return Era.EXTRA_CONFIG, "no key of this file says which chart version"


def _other_eras(values: Values, era: Era, why: str) -> None:
    for other in Era:
        for node, key in ([] if other is era else _era_keys(values, other)):
            values.out.notes.append(Note(values.out.path, node.line(key), (
                f"{node.name(key)} is a key of Bitnami's kafka chart {other.value}; this file is read as chart "
                f"{era.value} ({why}), which ignores it"), NoteLevel.WARNING))


def _near_misses(node: Values) -> None:
    """A key the chart does not have that differs from one it has only in case (Helm ignores it)."""
    known = {k.lower(): k for k in KNOWN}
    for key in node.node:
        meant = known.get(str(key).lower())
        if meant is not None and meant != key:
            node.out.notes.append(Note(node.out.path, node.line(key), (
                f"{node.name(str(key))} is not a key of Bitnami's kafka chart, so Helm ignores it: did you mean "
                f"{node.name(meant)}?"), NoteLevel.WARNING))


def _replicas(node: Values | None, group: Group) -> int | None:
    """A group's replicaCount (None: not a literal, so taken to run)."""
    raw = node.get("replicaCount") if node is not None else None
    if raw is None:
        return group.replicas
    if isinstance(raw, int) and not isinstance(raw, bool):
        return raw
    return int(raw) if isinstance(raw, str) and raw.strip().isdigit() else None


def _sets_config(node: Values | None) -> str | None:
    return next((k for k in GROUP_CONFIG if node is not None and node.get(k) not in (None, "", {})), None)


def _groups(values: Values) -> list[tuple[Group, Values | None]]:
    """The node groups that run brokers, each with its own settings' mapping."""
    controller, broker = values.child(CONTROLLER.key), values.child(BROKER.key)
    running: list[tuple[Group, Values | None]] = []
    if _replicas(controller, CONTROLLER) != 0:
        if controller is not None and controller.get("controllerOnly") is True:
            if (key := _sets_config(controller)) is not None:
                controller.note(key, f"{controller.name('controllerOnly')} is true: the controller-eligible nodes run "
                                     f"as dedicated KRaft controllers, not brokers; {controller.name(key)} is not read")
        else:
            running.append((CONTROLLER, controller))
    if _replicas(broker, BROKER) != 0:
        running.append((BROKER, broker))
    elif broker is not None and (key := _sets_config(broker)) is not None:
        broker.note(key, f"{broker.name('replicaCount')} is 0 (the chart's default): no broker-only nodes run, so "
                         f"{broker.name(key)} configures none; not read")
    if not running:
        values.note(None, "no node of this chart runs a broker (controller.controllerOnly with broker.replicaCount 0)")
    return running


def _first(nodes: list[Values], key: str) -> Values | None:
    """The first of `nodes` setting `key` (the group's own, then the chart-wide: the chart's coalesce)."""
    return next((n for n in nodes if n.get(key) not in (None, "", {})), None)


def _whole_config(node: Values, era: Era, label: str) -> None:
    """`config`: server.properties text (24-31; a mapping prints as key: value lines, which Java reads
    alike) or, in chart 32, key: value YAML (a mapping, or text of one)."""
    raw = node.get("config")
    if isinstance(raw, dict):
        yaml_settings(node, "config", label)
    elif era is Era.EXTRA_CONFIG:
        properties_text(node, "config", label)
    else:
        inner = nested(node, "config", node.name("config"), node.name("config") + ".")
        if inner is not None:
            yaml_mapping(inner, label)


def _overrides(node: Values, label: str) -> None:
    raw = node.get("overrideConfiguration")
    if isinstance(raw, str):
        inner = nested(node, "overrideConfiguration", node.name("overrideConfiguration"),
                       node.name("overrideConfiguration") + ".")
        if inner is not None:
            yaml_mapping(inner, label)
    else:
        yaml_settings(node, "overrideConfiguration", label)


def _group(values: Values, group: Group, own: Values | None, era: Era) -> None:
    label = f"{values.label}: {group.name}"
    nodes = [n for n in (own, values) if n is not None]  # the chart coalesces the group's own first
    configured = [(n, k) for n in reversed(nodes) for k in GROUP_CONFIG if n.get(k) not in (None, "", {})]
    values.out.resources.append(Resource(label, configured[0][0].line(configured[0][1]) if configured
                                         else values.line(None)))
    for node in filter(None, (_first(nodes, "secretConfig"),)):
        node.note("secretConfig", f"{label}: {node.name('secretConfig')} is kept in a Secret by the chart; kcliff "
                                  "does not read secrets")
    existing = _first(nodes, "existingConfigmap")
    if existing is not None:
        existing.note("existingConfigmap", f"{label}: server.properties comes from ConfigMap "
                                           f"'{existing.get('existingConfigmap')}', which replaces the settings here; "
                                           "kcliff reads that ConfigMap where the repo holds it")
        return
    whole = _first(nodes, "config")
    if whole is not None:
        _whole_config(whole, era, label)
        ignored = [n.name(k) for n, k in configured if k in ("extraConfig", "extraConfigYaml")]
        if ignored and era is Era.EXTRA_CONFIG:
            whole.note("config", f"{label}: {whole.name('config')} replaces the configuration the chart generates, so "
                                 f"it ignores {', '.join(ignored)}; not read")
    if era is Era.OVERRIDE:
        for node in reversed(nodes):  # the chart-wide overrides, then the group's over them
            _overrides(node, label)
    elif whole is None:
        for key in ("extraConfig", "extraConfigYaml"):
            for node in reversed(nodes):
                (properties_text if key == "extraConfig" else yaml_settings)(node, key, label)


def _env_vars(values: Values) -> None:
    for node in [values, *filter(None, (values.child(g.key) for g in (CONTROLLER, BROKER)))]:
        for key in ENV_KEYS:
            if node.get(key) not in (None, "", []):
                node.note(key, f"{node.name(key)}: environment variables of the Kafka containers (KAFKA_CFG_* ones "
                               "become broker settings in Bitnami's image); kcliff does not read them here yet")


def _release(values: Values, target: Target) -> None:
    """The Kafka version: the image tag's, else the one the chart version ships."""
    image = values.child("image")
    tag = image.get("tag") if image is not None else None
    match = _TAG.fullmatch(str(tag).strip()) if tag is not None and image is not None else None
    if image is not None and match is not None:
        image.note("tag", f"{image.name('tag')} {tag} runs Kafka {match['version']}: kcliff reads the repo at it")
        values.out.versions.append(check_version(match["version"], values.out.path, image.line("tag")))
        return
    major = target.major()
    if major is None or major not in KAFKA_OF_CHART:
        return
    release = KAFKA_OF_CHART[major]
    where = target.path or values.out.path
    values.out.notes.append(Note(where, target.line, (
        f"Bitnami's kafka chart {target.version} ships Kafka {release} (the appVersion of its newest {major}.x "
        f"release): kcliff derived the version from the chart version and reads {values.out.path} at it")))
    try:
        values.out.versions.append(check_version(release, where, target.line))
    except InputError as exc:
        values.out.problems.append(exc)


def read_bitnami(values: Values, target: Target) -> None:
    """Every broker setting, topic, note and the Kafka version of one Bitnami kafka chart's values."""
    era, why = _era(values, target)
    _other_eras(values, era, why)
    _near_misses(values)
    if era is Era.ENV_VARS:
        label = f"{values.label}: brokers"
        values.out.resources.append(Resource(label, values.line(None)))
        read_brokers(values, label)
    else:
        for group, own in _groups(values):
            if own is not None:
                _near_misses(own)
            _group(values, group, own, era)
    read_topics(values)
    _env_vars(values)
    _release(values, target)

"""Helm values of Kafka charts as config repo files: Bitnami's kafka chart (helm_bitnami.py),
cp-helm-charts' cp-kafka (helm_cp_kafka.py), in values files (which chart they are for: helm_charts.py)
and inside Flux HelmReleases and Argo CD Applications (helm_gitops.py).

    role bitnami-kafka / cp-kafka  (format helm-values)  a values file beside a Chart.yaml naming the
                                   chart, or one kcliff.yaml maps with that role
    role helm-gitops (format helm-gitops)                a YAML file of HelmRelease / Application
                                                         resources installing one of these charts

Each setting is read on its own line; what Helm, the chart or Kafka would refuse is bad input on its
line, every one in the file reported together; values that are not literals are noted.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ruamel.yaml.comments import CommentedMap

from kcliff import yamlio
from kcliff.configrepo.helm_bitnami import KNOWN, read_bitnami
from kcliff.configrepo.helm_charts import Chart, Target, looks_like_kafka_values, targets, values_role
from kcliff.configrepo.helm_cp_kafka import read_cp_kafka
from kcliff.configrepo.helm_gitops import holds_releases, read_releases
from kcliff.configrepo.helm_values import Values
from kcliff.configrepo.model import Note, ReadResult
from kcliff.configrepo.reading import ResourceReading
from kcliff.errors import InputError

GITOPS_ROLE = "helm-gitops"
LABELS = {Chart.BITNAMI: "Bitnami kafka", Chart.CP_KAFKA: "cp-kafka"}
# A mapped values file of an umbrella chart: the keys its Kafka chart's values are under, by chart.
PARENT_KEYS = {Chart.BITNAMI: (("kafka",),), Chart.CP_KAFKA: (("cp-kafka",), ("cp-helm-charts", "cp-kafka"))}
OWN_KEYS = {Chart.BITNAMI: KNOWN, Chart.CP_KAFKA: ("configurationOverrides", "imageTag", "customEnv", "brokers")}


def file_role(path: Path) -> str | None:
    """The role of a YAML file of Helm values of a Kafka chart, by the Chart.yaml beside it or by the
    GitOps resources it holds; None for any other file."""
    return values_role(path) or (GITOPS_ROLE if holds_releases(path) else None)


def unread_hint(path: Path) -> Note | None:
    """A note for a values file kcliff does not read whose keys look like a Kafka chart's."""
    if not looks_like_kafka_values(path):
        return None
    return Note(str(path), None, "looks like Helm values of a Kafka chart, but no Chart.yaml beside it names "
                                 "Bitnami's kafka, cp-kafka or cp-helm-charts: not read (map it in kcliff.yaml with "
                                 "role bitnami-kafka or cp-kafka to read it)")


def _switched_off(values: Values, condition: tuple[str, ...]) -> bool:
    """Whether the values set a dependency's condition (`kafka.enabled`) to false."""
    node: Any = values.node
    for key in condition[:-1]:
        node = node.get(key) if isinstance(node, dict) else None
    if not isinstance(node, dict) or node.get(condition[-1]) is not False:
        return False
    Values(node, values.out, values.label).note(condition[-1], f"{'.'.join(condition)} is false: the dependency "
                                                               "is not installed; its values are not read")
    return True


def read_chart(values: Values, target: Target) -> None:
    """One chart's values, under the keys leading to them (a parent chart's alias, cp-helm-charts'
    cp-kafka), unless its condition switches the chart off."""
    if target.condition and _switched_off(values, target.condition):
        return
    for key in target.keys:
        below = values.child(key)
        if below is None:
            values.note(None, f"{values.label}: no values under {values.name(key)} in this file")
            return
        if key == "cp-kafka" and below.get("enabled") is False:
            below.note("enabled", f"{below.name('enabled')} is false: cp-helm-charts installs no brokers")
            return
        values = below
    if target.chart is Chart.BITNAMI:
        read_bitnami(values, target)
    else:
        read_cp_kafka(values)


def _mapped(data: Any, chart: Chart, out: ResourceReading) -> Target:
    """A values file kcliff.yaml maps as `chart`'s, with no Chart.yaml beside it: the chart's own values,
    or an umbrella chart's with them under the chart's usual key (`kafka:`, `cp-kafka:`)."""
    if not any(key in data for key in OWN_KEYS[chart]):
        for keys in PARENT_KEYS[chart]:
            node: Any = data
            for key in keys:
                node = node.get(key) if isinstance(node, dict) else None
            if isinstance(node, dict):
                out.note(yamlio.key_line(data, keys[0]), f"{LABELS[chart]} values read under {'.'.join(keys)} "
                                                        "(a parent chart's values)")
                return Target(chart, keys)
    return Target(chart, ())


class HelmValuesReader:
    """Values files of Bitnami's kafka chart or cp-kafka (the role names the chart when no Chart.yaml does)."""

    format = "helm-values"
    roles = (Chart.BITNAMI.value, Chart.CP_KAFKA.value)

    def read(self, path: Path, role: str) -> ReadResult:
        out = ResourceReading(str(path))
        docs = yamlio.load_all(path)
        data = docs[0] if docs else CommentedMap()
        if not isinstance(data, dict):
            raise InputError("expected a mapping of chart values", str(path), yamlio.node_line(data))
        if len(docs) > 1:
            out.note(yamlio.node_line(docs[1]), "a second YAML document: Helm reads a values file's first only; "
                                                "not read")
        for target in targets(path.parent) or (_mapped(data, Chart(role), out),):
            # under a parent chart, its alias names the cluster: two aliases of one chart are two clusters
            label = f"{target.keys[0]} ({LABELS[target.chart]})" if target.keys else LABELS[target.chart]
            read_chart(Values(data, out, label), target)
        return out.result()


class HelmGitOpsReader:
    """Flux HelmReleases and Argo CD Applications installing a Kafka chart."""

    format = GITOPS_ROLE
    roles = (GITOPS_ROLE,)

    def read(self, path: Path, role: str) -> ReadResult:
        return read_releases(path, read_chart)

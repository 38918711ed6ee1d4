"""Which Kafka chart a Helm values file configures, decided strictly: a values.yaml is YAML with no
marker of its own, and an application's values with a `kafka:` section of bootstrap servers must
never be read as broker settings.

A file is a chart's values when its name has the word `values` (values.yaml, values-prod.yaml,
prod.values.yml) and the Chart.yaml beside it (or requirements.yaml, Helm 2's dependencies) says
which chart they configure:
- the chart itself: `name: kafka` whose Chart.yaml names Bitnami (a vendored bitnami/kafka), `name:
  cp-kafka`, or `name: cp-helm-charts` (its values under `cp-kafka:`);
- a dependency: `kafka` from a Bitnami repository (https://charts.bitnami.com/bitnami,
  oci://registry-1.docker.io/bitnamicharts), `cp-kafka`, or `cp-helm-charts`; its values are under
  its `alias`, else its name, and its `condition` (`kafka.enabled`) can switch it off.
Elsewhere a values file is read only when kcliff.yaml maps it (role bitnami-kafka or cp-kafka), or
through the Flux HelmRelease or Argo CD Application installing the chart (helm_gitops.py).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Any

from kcliff import yamlio
from kcliff.errors import InputError

CHART_FILES = ("Chart.yaml", "requirements.yaml")  # Helm 3 dependencies are in Chart.yaml, Helm 2's beside it
VALUES_WORD = "values"
YAML_SUFFIXES = (".yaml", ".yml")
# A chart version constraint that pins a major: 31.5.0, ~31.5, ^31.0.0, 31.x, =31.2.1, v31 (not >=30, *).
_MAJOR = re.compile(r"\s*[~^=]?\s*v?(?P<major>\d+)(?:\.(?:\d+|[xX*])){0,2}(?:[-+][\w.-]*)?\s*")
# Kafka charts' names in the text of a Chart.yaml: a cheap test before parsing it.
_NAMES = re.compile(r"\b(?:kafka|cp-kafka|cp-helm-charts)\b")
# Where Kafka-chart values show in a values file kcliff was not told about (for a hint, never a read).
_LOOKS_LIKE = re.compile(r"^\s*(?:extraConfig|extraConfigYaml|overrideConfiguration|configurationOverrides|"
                         r"logFlushIntervalMessages|logRetentionHours|numPartitions|defaultReplicationFactor):",
                         re.MULTILINE)


class Chart(StrEnum):
    """The charts whose values kcliff reads; each is also the role of a values file of it."""

    BITNAMI = "bitnami-kafka"
    CP_KAFKA = "cp-kafka"


@dataclass(frozen=True)
class Target:
    """A chart a values file configures: `keys` lead to its values (() when the file is the chart's own,
    ("kafka",) under a dependency's alias), `version` is its version (constraint) where it is written."""

    chart: Chart
    keys: tuple[str, ...]
    version: str | None = None
    path: str | None = None
    line: int | None = None
    condition: tuple[str, ...] = ()  # the values key whose false switches the dependency off

    def major(self) -> int | None:
        return chart_major(self.version)


def chart_major(version: Any) -> int | None:
    """The major version a chart version constraint pins (31 for "31.5.0", "^31.0.0", "31.x"), else None."""
    match = _MAJOR.fullmatch(str(version)) if version is not None else None
    return int(match["major"]) if match else None


def chart_of(name: Any, source: str) -> tuple[Chart, tuple[str, ...]] | None:
    """The chart a name stands for and where its Kafka values are inside its own values; `source` is
    what says where it comes from (a repository URL, a Chart.yaml's text): `kafka` is Bitnami's only
    when the source names Bitnami, since other charts are called kafka too."""
    if name == "kafka" and "bitnami" in source.lower():
        return Chart.BITNAMI, ()
    if name == "cp-kafka":
        return Chart.CP_KAFKA, ()
    if name == "cp-helm-charts":
        return Chart.CP_KAFKA, ("cp-kafka",)
    return None


def is_values_name(path: Path) -> bool:
    """values.yaml, values-prod.yaml, prod.values.yml ...: the word `values` in a YAML file's stem."""
    name = path.name.lower()
    suffix = next((s for s in YAML_SUFFIXES if name.endswith(s)), None)
    return suffix is not None and VALUES_WORD in re.split(r"[-_.]", name[: -len(suffix)])


def _condition(dep: dict[str, Any]) -> tuple[str, ...]:
    """The values key a dependency's `condition` names first ("kafka.enabled" -> ("kafka", "enabled"))."""
    first = str(dep.get("condition") or "").split(",")[0].strip()
    return tuple(first.split(".")) if first else ()


def _dependencies(data: Any, where: Path) -> list[Target]:
    found = []
    for index, dep in enumerate(data.get("dependencies") or [] if isinstance(data, dict) else []):
        if not isinstance(dep, dict):
            continue
        known = chart_of(dep.get("name"), str(dep.get("repository", "")))
        if known is None:
            continue
        chart, inner = known
        key = str(dep.get("alias") or dep.get("name"))
        line = yamlio.key_line(dep, "version") or yamlio.key_line(data["dependencies"], index)
        found.append(Target(chart, (key, *inner), dep.get("version"), str(where), line, _condition(dep)))
    return found


def _chart_file(path: Path) -> list[Target]:
    text = yamlio.read_text(path)
    if not _NAMES.search(text):
        return []
    data = yamlio.load(path)
    if not isinstance(data, dict):
        return []
    found = []
    own = chart_of(data.get("name"), text) if path.name == "Chart.yaml" else None
    if own is not None:
        found.append(Target(own[0], own[1], data.get("version"), str(path), yamlio.key_line(data, "version")))
    return found + _dependencies(data, path)


_CACHE: dict[tuple[str, tuple[int, ...]], tuple[Target, ...]] = {}


def targets(directory: Path) -> tuple[Target, ...]:
    """The Kafka charts the Chart.yaml (and requirements.yaml) in `directory` name; () when none does.
    A chart file that is a symbolic link, or unreadable, names none (it is not read)."""
    files = [directory / name for name in CHART_FILES]
    present = [f for f in files if f.is_file() and not f.is_symlink()]
    if not present:
        return ()
    key = (str(directory), tuple(f.stat().st_mtime_ns for f in present))
    if key not in _CACHE:
        found: list[Target] = []
        for chart_file in present:
            try:
                found.extend(_chart_file(chart_file))
            except InputError:
                continue  # a broken Chart.yaml names no chart here; helm itself reports it
        # cp-helm-charts names cp-kafka twice (its own values' key, its requirements.yaml): read it once
        unique: dict[tuple[Chart, tuple[str, ...]], Target] = {}
        for target in found:
            unique.setdefault((target.chart, target.keys), target)
        _CACHE[key] = tuple(unique.values())
    return _CACHE[key]


def values_role(path: Path) -> str | None:
    """The role of a values file of a Kafka chart (the chart its Chart.yaml names), else None."""
    if not is_values_name(path):
        return None
    found = targets(path.parent)
    return found[0].chart.value if found else None


def looks_like_kafka_values(path: Path) -> bool:
    """A values file kcliff does not read but whose keys look like a Kafka chart's, for a hint."""
    if not is_values_name(path):
        return False
    try:
        return _LOOKS_LIKE.search(yamlio.read_text(path)) is not None
    except InputError:
        return False

"""Helm values inside GitOps resources: a Flux `HelmRelease` or an Argo CD `Application` installing
Bitnami's kafka chart, cp-kafka or cp-helm-charts, read with the manifest's own lines.

    Flux HelmRelease (helm.toolkit.fluxcd.io/v2, v2beta2, v2beta1)
        spec.chart.spec.chart names the chart (a path's last part for a GitRepository source), its
        sourceRef the HelmRepository (whose name or url in the same file must say bitnami for `kafka`);
        or spec.chartRef an OCIRepository of the same file (oci://registry-1.docker.io/bitnamicharts/kafka);
        spec.chart.spec.version (or the OCIRepository's ref.tag) is the chart version; spec.values the values
    Argo CD Application (argoproj.io/v1alpha1)
        spec.source, or each of spec.sources, with `chart` (and a repoURL naming bitnami for `kafka`);
        targetRevision the chart version; helm.values (YAML text: a `|` block keeps its lines in the
        manifest) and helm.valuesObject (a mapping, laid over it, as Argo CD does)

What these resources take from elsewhere (valuesFrom ConfigMaps and Secrets, valueFiles,
helm.parameters) is noted; Flux's `${VAR}` post-build substitutions in values are noted, not guessed.
Other resources of the file (HelmRepository, Kustomization, releases of other charts) are skipped.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Callable

from ruamel.yaml.comments import CommentedMap

from kcliff import yamlio
from kcliff.configrepo.helm_charts import Target, chart_of
from kcliff.configrepo.helm_values import Values, nested
from kcliff.configrepo.kubernetes import api_of, line_of, mapping
from kcliff.configrepo.model import ReadResult
from kcliff.configrepo.reading import ResourceReading
from kcliff.errors import InputError

FLUX, ARGO = "helm.toolkit.fluxcd.io", "argoproj.io"
SOURCES = ("HelmRepository", "OCIRepository", "GitRepository")  # Flux sources a HelmRelease refers to
_API = re.compile(r"^\s*apiVersion:\s*[\"']?(?:helm\.toolkit\.fluxcd\.io|argoproj\.io)/", re.MULTILINE)
# Reads one chart's values (helm.read_chart): handed in, so this module only finds them in the manifests.
ReadChart = Callable[[Values, Target], None]
_CHART = re.compile(r"^\s*(?:-\s+)?chart:\s*[\"']?(?:\./)?(?:[\w.-]+/)*(?:kafka|cp-kafka|cp-helm-charts)[\"']?\s*(?:#.*)?$"
                    r"|^\s*url:\s*[\"']?oci://\S*/(?:kafka|cp-kafka)[\"']?\s*(?:#.*)?$", re.MULTILINE)


def holds_releases(path: Path) -> bool:
    """Whether a YAML file holds a HelmRelease or Application of a Kafka chart (by its text, cheaply)."""
    try:
        text = yamlio.read_text(path)
    except InputError:
        return False
    return _API.search(text) is not None and _CHART.search(text) is not None


def _sources(docs: list[Any]) -> dict[tuple[str, str], Any]:
    """(kind, name) -> spec of each Flux source in the file, to tell where a HelmRelease's chart comes from."""
    found = {}
    for doc in docs:
        if isinstance(doc, dict) and doc.get("kind") in SOURCES and isinstance(doc.get("metadata"), dict):
            found[(doc["kind"], str(doc["metadata"].get("name")))] = doc.get("spec") or {}
    return found


def _flux_chart(spec: Any, sources: dict[tuple[str, str], Any], path: str) -> tuple[Any, str, Any, int | None]:
    """(chart name, what says where it comes from, version, line of the version) of a HelmRelease."""
    if isinstance(spec.get("chartRef"), dict):
        ref = spec["chartRef"]
        source = sources.get((str(ref.get("kind")), str(ref.get("name"))), {})
        url = str(source.get("url", "")) if isinstance(source, dict) else ""
        tag = source.get("ref", {}).get("tag") if isinstance(source, dict) and isinstance(source.get("ref"), dict) else None
        return url.rstrip("/").rsplit("/", 1)[-1] or None, url, tag, line_of(spec, "chartRef")
    chart = mapping(mapping(spec, "chart", "spec", path), "spec", "spec.chart", path)
    ref = chart.get("sourceRef") if isinstance(chart.get("sourceRef"), dict) else {}
    source = sources.get((str(ref.get("kind")), str(ref.get("name"))), {})
    where = f"{ref.get('name', '')} {source.get('url', '') if isinstance(source, dict) else ''}"
    name = str(chart.get("chart", "")).rstrip("/").rsplit("/", 1)[-1]
    return name, where, chart.get("version"), line_of(chart, "version" if "version" in chart else "chart")


def _helm_release(doc: Any, name: str, sources: dict[tuple[str, str], Any], out: ResourceReading,
                  read: ReadChart) -> None:
    spec = mapping(doc, "spec", "HelmRelease", out.path)
    chart_name, where, version, line = _flux_chart(spec, sources, out.path)
    label = f"HelmRelease {name}"
    known = chart_of(chart_name, where)
    if known is None:
        out.note(yamlio.node_line(doc), f"{label} installs chart {chart_name!r}"
                 + (", whose source does not say it is Bitnami's" if chart_name == "kafka" else "")
                 + ": not a Kafka chart kcliff reads; skipped")
        return
    for key in ("valuesFrom",):
        if spec.get(key):
            out.note(line_of(spec, key), f"{label}: spec.{key} merges values from ConfigMaps or Secrets, which kcliff "
                                         "does not read here")
    values = spec.get("values")
    if values is not None and not isinstance(values, dict):
        raise InputError(f"{label}: spec.values must be a mapping of chart values", out.path, line_of(spec, "values"))
    node = Values(values if values is not None else CommentedMap(), out, label, "spec.values.")
    read(node, Target(known[0], known[1], version, out.path, line))


def _argo_layers(helm: Any, label: str, out: ResourceReading) -> list[Values]:
    """Argo CD's values layers of one source, in the order it lays them: helm.values, then valuesObject."""
    if not isinstance(helm, dict):
        return [Values(CommentedMap(), out, label)]
    source = Values(helm, out, label, "helm.")
    layers = []
    if isinstance(helm.get("values"), dict):
        raise InputError(f"{label}: helm.values is YAML text (a string, `values: |`); a mapping goes in "
                         "helm.valuesObject", out.path, line_of(helm, "values"))
    text = nested(source, "values", f"{label} helm.values", "helm.values.")
    if text is not None:
        layers.append(text)
    if isinstance(helm.get("valuesObject"), dict):
        layers.append(Values(helm["valuesObject"], out, label, "helm.valuesObject."))
    for key, what in (("valueFiles", "values files (map them in kcliff.yaml to read them)"),
                      ("parameters", "parameters, laid over every values layer")):
        if helm.get(key):
            source.note(key, f"{label}: helm.{key}: {what}; not read here")
    return layers or [Values(CommentedMap(), out, label)]


def _application(doc: Any, name: str, out: ResourceReading, read: ReadChart) -> None:
    spec = mapping(doc, "spec", "Application", out.path)
    sources = [spec["source"]] if isinstance(spec.get("source"), dict) else list(spec.get("sources") or [])
    label = f"Application {name}"
    read_any = False
    for source in sources:
        if not isinstance(source, dict) or "chart" not in source:
            continue  # a Git path or a `ref` source for value files: no chart named here
        known = chart_of(source.get("chart"), str(source.get("repoURL", "")))
        if known is None:
            continue
        read_any = True
        line = line_of(source, "targetRevision" if "targetRevision" in source else "chart")
        target = Target(known[0], known[1], source.get("targetRevision"), out.path, line)
        for layer in _argo_layers(source.get("helm"), label, out):
            read(layer, target)
    if not read_any:
        out.note(yamlio.node_line(doc), f"{label} installs no Kafka chart kcliff reads (Bitnami's kafka from a "
                                        "repository naming bitnami, cp-kafka, cp-helm-charts); skipped")


def read_releases(path: Path, read: ReadChart) -> ReadResult:
    """Every HelmRelease and Application of a Kafka chart in the file; each bad one stops there, the
    file's others are still read, and every bad input is reported together."""
    out = ResourceReading(str(path))
    docs = yamlio.load_all(path)
    sources = _sources(docs)
    for doc in docs:
        try:
            group, _, kind = api_of(doc, out.path)
            metadata = doc.get("metadata") if isinstance(doc.get("metadata"), dict) else {}
            name = str(metadata.get("name", ""))
            if group == FLUX and kind == "HelmRelease":
                out.once(f"HelmRelease {name}", line_of(metadata, "name"))
                _helm_release(doc, name, sources, out, read)
            elif group == ARGO and kind == "Application":
                out.once(f"Application {name}", line_of(metadata, "name"))
                _application(doc, name, out, read)
            else:
                out.note(yamlio.node_line(doc), f"{kind} ({doc['apiVersion']}) holds no chart values kcliff reads; skipped")
        except InputError as exc:
            out.problems.append(exc)
    return out.result()

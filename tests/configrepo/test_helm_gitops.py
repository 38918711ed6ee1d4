"""Helm values inside Flux HelmReleases and Argo CD Applications: found by the chart the resource
installs (Bitnami's kafka only from a source naming Bitnami), read with the manifest's own lines (an
Argo CD `values: |` block offset into the manifest), every bad input of the file at once, and the
releases of other charts, even with a `kafka:` section in their values, never read."""

from __future__ import annotations

from pathlib import Path

import pytest
from kcliff import configrepo
from kcliff.configrepo import helm
from kcliff.errors import InputError
from repo_files import line_of, write

FLUX = """\
apiVersion: source.toolkit.fluxcd.io/v1
kind: OCIRepository
metadata:
  name: kafka-chart
spec:
  interval: 12h
  url: oci://registry-1.docker.io/bitnamicharts/kafka
  ref:
    tag: 31.5.0
---
apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata:
  name: events
spec:
  interval: 10m
  chartRef:
    kind: OCIRepository
    name: kafka-chart
  values:
    extraConfig: |
      num.io.threads=12
      log.flush.interval.messages=1
    provisioning:
      enabled: true
      topics:
        - name: clicks
          partitions: 12
          replicationFactor: ${clicks_replicas}
---
apiVersion: helm.toolkit.fluxcd.io/v2beta2
kind: HelmRelease
metadata:
  name: kafka-mirror
spec:
  chart:
    spec:
      chart: kafka
      version: 26.x
      sourceRef:
        kind: HelmRepository
        name: internal-charts
  values:
    extraConfig: |
      num.io.threads=1
---
apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata:
  name: orders
spec:
  chart:
    spec:
      chart: orders-service
      sourceRef:
        kind: HelmRepository
        name: bitnami
  values:
    kafka:
      bootstrapServers: kafka:9092
"""

ARGO = """\
apiVersion: argoproj.io/v1alpha1
kind: Application
metadata:
  name: kafka
spec:
  project: default
  sources:
    - repoURL: https://git.example.com/platform/kafka-values.git
      targetRevision: main
      ref: values
    - repoURL: registry-1.docker.io/bitnamicharts
      chart: kafka
      targetRevision: 31.0.0
      helm:
        valueFiles:
          - $values/prod/kafka.yaml
        values: |
          # the block keeps its lines in the manifest
          extraConfig: |
            num.network.threads=6
            num.io.threads=10
          provisioning:
            topics:
              - name: orders
                partitions: 6
        valuesObject:
          extraConfigYaml:
            num.io.threads: 16
  destination:
    server: https://kubernetes.default.svc
    namespace: kafka
"""


def read(path: Path) -> configrepo.ReadResult:
    return helm.HelmGitOpsReader().read(path, "helm-gitops")


def test_a_helm_release_of_bitnamis_chart_from_an_oci_repository_is_read_on_its_lines(tmp_path):
    path = write(tmp_path, "kafka.yaml", FLUX)
    result = read(path)
    assert [(e.name, e.raw, e.line) for e in result.entries if e.scope == "broker"] == [
        ("num.io.threads", "12", line_of(path, "num.io.threads=12")),
        ("log.flush.interval.messages", "1", line_of(path, "log.flush.interval.messages=1"))]
    assert {e.resource for e in result.entries if e.scope == "broker"} == {"HelmRelease events: controller-eligible nodes"}
    assert [(e.topic, e.name, e.raw) for e in result.entries if e.scope == "topic"] == [("clicks", "partitions", 12)]
    assert result.topics[0].problem is None  # the partition count is a literal: measurable
    messages = {n.line: n.message for n in result.notes}
    assert "replicationFactor = ${clicks_replicas}" in messages[line_of(path, "replicationFactor:")]
    assert "chart 'kafka', whose source does not say it is Bitnami's" in messages[line_of(path, "apiVersion: helm.toolkit.fluxcd.io/v2beta2")]
    assert "HelmRelease orders installs chart 'orders-service': not a Kafka chart" in messages[
        line_of(path, "name: orders") - 3]
    assert not any(e.resource and "orders" in e.resource for e in result.entries)
    assert result.kafka_version is not None and result.kafka_version.version == "3.9.0"  # chart 31.x ships 3.9.0


def test_an_argo_application_values_block_keeps_the_manifests_lines(tmp_path):
    path = write(tmp_path, "apps/kafka.yaml", ARGO)
    result = read(path)
    assert [(e.name, e.raw, e.line) for e in result.entries if e.scope == "broker"] == [
        ("num.network.threads", "6", line_of(path, "num.network.threads=6")),
        ("num.io.threads", "10", line_of(path, "num.io.threads=10")),
        ("num.io.threads", "16", line_of(path, "num.io.threads: 16"))]  # valuesObject over values
    assert [(e.topic, e.name, e.line) for e in result.entries if e.scope == "topic"] == [
        ("orders", "partitions", line_of(path, "partitions: 6"))]
    messages = {n.line: n.message for n in result.notes}
    assert "helm.valueFiles: values files (map them in kcliff.yaml" in messages[line_of(path, "valueFiles:")]
    assert result.kafka_version is not None and result.kafka_version.line == line_of(path, "targetRevision: 31.0.0")


def test_a_quoted_values_string_is_read_on_its_key_line(tmp_path):
    path = write(tmp_path, "app.yaml", """\
apiVersion: argoproj.io/v1alpha1
kind: Application
metadata:
  name: cp
spec:
  source:
    repoURL: https://confluentinc.github.io/cp-helm-charts/
    chart: cp-helm-charts
    targetRevision: 0.6.1
    helm:
      values: "cp-kafka:\\n  configurationOverrides:\\n    num.io.threads: '12'\\n"
""")
    result = read(path)
    assert [(e.name, e.raw, e.line) for e in result.entries] == [("num.io.threads", "12", 11)]


def test_what_argo_cd_or_kafka_would_refuse_is_reported_all_at_once(tmp_path):
    path = write(tmp_path, "apps.yaml", """\
apiVersion: argoproj.io/v1alpha1
kind: Application
metadata:
  name: one
spec:
  source:
    repoURL: https://charts.bitnami.com/bitnami
    chart: kafka
    targetRevision: 31.0.0
    helm:
      values:
        extraConfig: num.io.threads=4
---
apiVersion: argoproj.io/v1alpha1
kind: Application
metadata:
  labels:
    tier: data
  name: two
spec:
  source:
    chart: kafka
    repoURL: registry-1.docker.io/bitnamicharts
    helm:
      values: |
        extraConfig: |
          num.io.threads=4
        provisioning:
          topics:
            - name: bad topic
        extraConfigYaml:
          log.dirs: [/a, /b]
      parameters:
        - name: extraConfig
          value: num.io.threads=2
---
apiVersion: argoproj.io/v1alpha1
kind: Application
metadata:
  name: three
spec:
  source:
    chart: cp-kafka
    repoURL: https://example.com
    helm:
      values: |
        configurationOverrides:
          num.io.threads: [
---
apiVersion: argoproj.io/v1alpha1
kind: Application
metadata:
  name: one
""")
    with pytest.raises(InputError) as caught:
        read(path)
    expected = {11: "helm.values is YAML text", 30: "topic name 'bad topic' is not one Kafka accepts",
                32: "helm.values.extraConfigYaml.log.dirs: a list prints as YAML lines",
                48: "Application three helm.values is not valid YAML",
                53: "Application one is defined twice in this file"}
    found = {p.line: p.message for p in caught.value.problems}
    assert set(found) == set(expected) and all(expected[n] in found[n] for n in expected), found


def test_discovery_claims_only_resources_of_kafka_charts(tmp_path):
    write(tmp_path, "clusters/prod/kafka.yaml", FLUX)
    write(tmp_path, "apps/argo.yaml", ARGO)
    write(tmp_path, "apps/ui.yaml", ARGO.replace("chart: kafka", "chart: kafka-ui"))
    write(tmp_path, "apps/redis.yaml", ARGO.replace("chart: kafka", "chart: redis"))
    write(tmp_path, "apps/orders.yaml", FLUX.split("---\n")[-1])
    files, _, _ = configrepo.discover([str(tmp_path)])
    assert sorted((Path(f.path).relative_to(tmp_path).as_posix(), f.role) for f in files) == [
        ("apps/argo.yaml", "helm-gitops"), ("clusters/prod/kafka.yaml", "helm-gitops")]


def test_lint_annotates_the_cliff_written_into_a_helm_release(tmp_path):
    write(tmp_path, "kafka.yaml", FLUX)
    repo = configrepo.load([str(tmp_path)])
    flush = [e for e in repo.in_scope("broker") if e.name == "log.flush.interval.messages"]
    assert [(e.value, e.line) for e in flush] == [(1, line_of(tmp_path / "kafka.yaml", "log.flush.interval.messages=1"))]

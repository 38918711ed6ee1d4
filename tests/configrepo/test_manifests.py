"""Kubernetes manifests as a config repo, without an operator: a workload's broker containers read
from their env and envFrom (ConfigMaps of the same file or directory, each value on its own line),
values Kubernetes resolves later noted; ConfigMaps holding Kafka .properties read on the manifest's
lines, decided by content (a game server's server.properties is not Kafka's); what Kubernetes or the
image refuses is bad input on its line; discovery by content; lint annotations on the right line."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from conftest import ROOT, run_kcliff
from kcliff import configrepo
from kcliff.configrepo import configmap_properties, manifests
from kcliff.errors import InputError
from repo_files import line_of, write

EXAMPLE = ROOT / "examples" / "k8s-repo"

# A Confluent cp-kafka StatefulSet (the shape of the manifests teams wrote before operators, e.g.
# cp-helm-charts' rendered output): settings from a ConfigMap, per-pod values from the downward API.
STATEFULSET = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: kafka-env
  namespace: data
data:
  KAFKA_NUM_PARTITIONS: "12"
  KAFKA_LOG_RETENTION_HOURS: "72"
  KAFKA_NUM_IO_THREADS: "8"
  KAFKA_OFFSETS_TOPIC_REPLICATION_FACTOR: "3"
---
apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: kafka
  namespace: data
spec:
  serviceName: kafka-headless
  replicas: 3
  template:
    spec:
      enableServiceLinks: false
      containers:
        - name: kafka-broker
          image: confluentinc/cp-kafka:7.6.1
          command: ["sh", "-exc", "export KAFKA_BROKER_ID=${HOSTNAME##*-} && exec /etc/confluent/docker/run"]
          envFrom:
            - configMapRef:
                name: kafka-env
            - secretRef:
                name: kafka-jaas
          env:
            - name: POD_IP
              valueFrom:
                fieldRef: {fieldPath: status.podIP}
            - name: KAFKA_ADVERTISED_LISTENERS
              value: "PLAINTEXT://$(POD_IP):9092"
            - name: KAFKA_NUM_IO_THREADS
              value: "16"
            - name: KAFKA_LOG_SEGMENT_BYTES
              valueFrom:
                configMapKeyRef: {name: kafka-tuning, key: segment-bytes}
            - name: KAFKA_SSL_KEYSTORE_PASSWORD
              valueFrom:
                secretKeyRef: {name: kafka-tls, key: keystore-password}
            - name: KAFKA_JMX_PORT
              value: "5555"
        - name: jmx-exporter
          image: solsson/kafka-prometheus-jmx-exporter:1.0
          env:
            - name: KAFKA_JMX_URL
              value: service:jmx:rmi:///jndi/rmi://127.0.0.1:5555/jmxrmi
---
apiVersion: v1
kind: Service
metadata:
  name: kafka-headless
  namespace: data
spec:
  clusterIP: None
"""
TUNING = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: kafka-tuning
  namespace: data
data:
  segment-bytes: "536870912"
"""


def read(path: Path) -> configrepo.ReadResult:
    return manifests.ManifestsReader().read(path, "kubernetes")


def test_a_statefulset_reads_its_configmaps_each_value_on_its_line(tmp_path):
    path = write(tmp_path, "kafka/kafka.yaml", STATEFULSET)
    tuning = write(tmp_path, "kafka/tuning.yaml", TUNING)
    result = read(path)
    broker = {e.name: (e.raw, e.path, e.line) for e in result.entries}
    assert {e.resource for e in result.entries} == {"StatefulSet kafka"}  # one container: no container in the label
    assert broker["num.partitions"] == ("12", str(path), line_of(path, "KAFKA_NUM_PARTITIONS"))
    assert broker["num.io.threads"] == ("16", str(path), line_of(path, "value: \"16\""))  # env over envFrom
    assert broker["log.segment.bytes"] == ("536870912", str(tuning), line_of(tuning, "segment-bytes"))
    assert {"advertised.listeners", "ssl.keystore.password", "jmx.port", "jmx.url"}.isdisjoint(broker)
    assert result.kafka_version is not None and result.kafka_version.version.startswith("3.6.")
    notes = [str(n) for n in result.notes]
    assert any("KAFKA_ADVERTISED_LISTENERS ('advertised.listeners') is 'PLAINTEXT://$(POD_IP):9092': expanded by "
               "Kubernetes" in n for n in notes)
    assert any("KAFKA_SSL_KEYSTORE_PASSWORD" in n and "a Secret's value, not in the repo" in n for n in notes)
    assert any("envFrom of a Secret" in n for n in notes)
    assert any("KAFKA_NUM_IO_THREADS is set again at" in n for n in notes)
    assert any("container jmx-exporter runs solsson/kafka-prometheus-jmx-exporter:1.0, not a Kafka broker" in n
               for n in notes)
    assert any("Service (v1) holds no settings kcliff reads" in n for n in notes)


def test_a_configmap_not_in_the_directory_is_noted(tmp_path):
    path = write(tmp_path, "kafka.yaml", STATEFULSET)
    result = read(path)
    assert any("KAFKA_LOG_SEGMENT_BYTES ('log.segment.bytes') is 'configMapKeyRef kafka-tuning/segment-bytes': a "
               "ConfigMap that is not in this file or its directory" in str(n) for n in result.notes)


def test_a_configmap_behind_a_link_leading_out_of_the_directory_is_not_read(tmp_path):
    path = write(tmp_path, "repo/kafka.yaml", STATEFULSET)
    outside = write(tmp_path, "elsewhere/tuning.yaml", TUNING)
    (tmp_path / "repo" / "tuning.yaml").symlink_to(outside)
    result = read(path)
    assert "log.segment.bytes" not in {e.name for e in result.entries}
    assert any("a ConfigMap that is not in this file or its directory" in str(n) for n in result.notes)


# A broker's server.properties and its clients' files in one ConfigMap (the shape of the ConfigMaps
# Kafka-on-Kubernetes tutorials mount into /opt/kafka/config), beside a game server's.
PROPERTIES = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: kafka-config
data:
  server.properties: |
    # Broker settings, mounted at /opt/kafka/config/server.properties
    process.roles=broker,controller
    num.network.threads=3
    num.io.threads=8
    socket.send.buffer.bytes=102400
    log.retention.hours=168
    log.segment.bytes=1073741824
    num.partitions=6
  client.properties: "bootstrap.servers=kafka:9092\\nacks=all\\nlinger.ms=20\\n"
  log4j.properties: |
    log4j.rootLogger=INFO, stdout
    log4j.appender.stdout=org.apache.log4j.ConsoleAppender
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: minecraft
data:
  server.properties: |
    motd=Lunch break server
    gamemode=survival
    difficulty=normal
    max-players=20
    level-seed=
    enable-rcon=false
"""


def test_configmaps_of_properties_are_read_on_the_manifest_lines(tmp_path):
    path = write(tmp_path, "config.yaml", PROPERTIES)
    result = read(path)
    found = {(e.scope, e.name): (e.raw, e.line, e.resource) for e in result.entries}
    assert found[("broker", "num.io.threads")] == ("8", line_of(path, "num.io.threads=8"),
                                                    "ConfigMap kafka-config server.properties")
    assert found[("broker", "num.partitions")][1] == line_of(path, "num.partitions=6")
    assert found[("producer", "linger.ms")] == ("20", line_of(path, "client.properties"),
                                                "ConfigMap kafka-config client.properties")  # quoted: the key's line
    assert not any(name in ("motd", "gamemode") or name.startswith("log4j") for _, name in found)
    notes = {n.line: n.message for n in result.notes}
    assert "not Kafka's settings (0 of its 6 keys are Kafka's; motd, gamemode, difficulty, max-players, " \
           "level-seed, ... are not)" in notes[line_of(path, "server.properties", line_of(path, "name: minecraft"))]
    assert "log4j.properties: not Kafka's settings" in notes[line_of(path, "log4j.properties")]


@pytest.mark.parametrize("name, keys, scope", [
    ("server.properties", ["num.io.threads", "log.retention.hours", "acks"], "broker"),
    ("kafka.properties", ["bootstrap.servers", "acks", "linger.ms", "batch.size"], "producer"),
    ("orders-consumer.properties", ["bootstrap.servers", "group.id", "max.poll.records"], "consumer"),
    ("client.properties", ["bootstrap.servers"], "producer"),  # a tie, and no name: the producer's first? no:
    ("consumer.properties", ["bootstrap.servers"], "consumer"),  # a tie the name decides
    ("server.properties", ["motd", "gamemode", "max-players", "server-port"], None),
    ("app.properties", ["server.port", "spring.application.name", "bootstrap.servers"], None),
    ("empty.properties", [], None),
])
def test_whether_a_properties_text_is_kafkas_is_decided_by_its_content(name, keys, scope):
    assert configmap_properties.classify(name, keys).scope == scope


def test_what_kubernetes_and_the_image_refuse_is_reported_together(tmp_path):
    path = write(tmp_path, "kafka.yaml", """\
apiVersion: v1
kind: Service
metadata:
  name: kafka
  namespace: data
spec:
  ports: [{port: 9092}]
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: kafka-env
  namespace: data
data:
  KAFKA_NUM_PARTITIONS: 12
---
apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: kafka
  namespace: data
spec:
  template:
    spec:
      containers:
        - name: kafka
          image: confluentinc/cp-server:7.9.0
          envFrom:
            - configMapRef: {name: kafka-env}
          env:
            - name: KAFKA_NUM_IO_THREADS
              value: 8
            - name: KAFKA_LOG_SEGMENT_BYTES
              valueFrom:
                configMapKeyRef: {name: kafka-env, key: segment-bytes}
            - value: "no name"
""")
    with pytest.raises(InputError) as caught:
        read(path)
    found = {p.line: p.message for p in caught.value.problems}
    assert set(found) == {15, 20, 32, 33, 36}, found  # a value's line, where it has its own
    assert "Kubernetes takes a string here and refuses 12 (int)" in found[15]
    assert "the Service named kafka in this file makes Kubernetes set KAFKA_PORT" in found[20]
    assert "enableServiceLinks: false" in found[20]
    assert "env KAFKA_NUM_IO_THREADS: Kubernetes takes a string here and refuses 8 (int); quote it" in found[32]
    assert "names key 'segment-bytes' of ConfigMap kafka-env" in found[33]
    assert "env items are {name, value} or {name, valueFrom}" in found[36]


def test_a_typo_in_a_workload_names_the_variable_and_the_key(tmp_path):
    path = write(tmp_path, "kafka.yaml", STATEFULSET.replace("KAFKA_LOG_RETENTION_HOURS", "KAFKA_LOG_RETENTION_HOUR"))
    with pytest.raises(InputError) as caught:
        configrepo.load([str(tmp_path)])
    assert [str(p) for p in caught.value.problems] == [
        f"{path}:{line_of(path, 'RETENTION_HOUR')}: unknown broker setting 'log.retention.hour' "
        "(KAFKA_LOG_RETENTION_HOUR): did you mean 'log.retention.hours' (KAFKA_LOG_RETENTION_HOURS)?"]


def test_bitnami_statefulsets_read_kafka_cfg_and_the_legacy_aliases(tmp_path):
    path = write(tmp_path, "kafka.yaml", """\
apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: kafka
spec:
  template:
    spec:
      containers:
        - name: kafka
          image: docker.io/bitnamilegacy/kafka:3.9.0-debian-12-r13
          env:
            - {name: KAFKA_CFG_PROCESS_ROLES, value: "broker,controller"}
            - {name: KAFKA_NUM_PARTITIONS, value: "6"}
            - {name: KAFKA_CFG_NUM_PARTITIONS, value: "3"}
            - {name: KAFKA_CFG_LOG_RETENTION_HOURS, value: "72"}
            - {name: KAFKA_KRAFT_CLUSTER_ID, value: "abc"}
            - {name: KAFKA_CFG_MAX_REQUEST_SIZE, value: "2097152"}
""")
    result = read(path)
    broker = {e.name: (e.raw, e.line) for e in result.entries}
    assert broker["num.partitions"] == ("6", line_of(path, "KAFKA_NUM_PARTITIONS"))  # the alias wins, as in libkafka.sh
    assert broker["log.retention.hours"] == ("72", line_of(path, "KAFKA_CFG_LOG_RETENTION_HOURS"))
    assert "max.request.size" not in broker and "kraft.cluster.id" not in broker
    assert result.kafka_version is not None and result.kafka_version.version == "3.9.0"
    notes = [n.message for n in result.notes]
    assert any("KAFKA_CFG_NUM_PARTITIONS and KAFKA_NUM_PARTITIONS both set 'num.partitions'" in m for m in notes)
    assert any("KAFKA_KRAFT_CLUSTER_ID is the Bitnami scripts' own setting" in m for m in notes)


def test_discovery_reads_manifests_by_content_and_never_a_game_server(tmp_path):
    write(tmp_path, "k8s/kafka.yaml", STATEFULSET)
    write(tmp_path, "k8s/config.yaml", PROPERTIES)
    write(tmp_path, "games/minecraft.yaml", PROPERTIES.split("---\n")[1])
    write(tmp_path, "apps/orders.yaml", "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: orders\nspec:\n"
                                        "  template:\n    spec:\n      containers:\n        - name: orders\n"
                                        "          image: acme/orders:1\n")
    write(tmp_path, "chart/templates/statefulset.yaml", "{{- if .Values.enabled }}\napiVersion: apps/v1\n"
                                                        "kind: StatefulSet\n{{- end }}\nimage: apache/kafka:3.9.1\n")
    files, _, _ = configrepo.discover([str(tmp_path)])
    assert sorted((Path(f.path).name, f.role) for f in files) == [("config.yaml", "kubernetes"),
                                                                  ("kafka.yaml", "kubernetes")]
    games = tmp_path / "games"
    with pytest.raises(InputError, match="no Kafka config files found"):
        configrepo.discover([str(games)])


# --- the real CLI ------------------------------------------------------------------------------------

def test_the_example_lints_clean():
    done = run_kcliff("lint", "--verbose", str(EXAMPLE))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "0 error(s), 0 warning(s) in 2 file(s)" in done.stdout


def test_lint_annotates_a_cliff_in_a_configmap_the_statefulset_reads(tmp_path):
    repo = tmp_path / "repo"
    shutil.copytree(EXAMPLE, repo)
    (repo / ".git").mkdir()
    configmap = repo / "kafka" / "configmap.yaml"
    configmap.write_text(configmap.read_text().replace('  KAFKA_NUM_IO_THREADS: "8"\n',
                                                       '  KAFKA_NUM_IO_THREADS: "8"\n  KAFKA_LOG_FLUSH_INTERVAL_MESSAGES: "1"\n'))
    producer = repo / "apps" / "orders.yaml"
    producer.write_text(producer.read_text().replace("    max.in.flight.requests.per.connection=5\n",
                                                     "    max.in.flight.requests.per.connection=1\n"))
    done = run_kcliff("lint", "--format", "github", "repo", cwd=tmp_path)
    assert done.returncode == 1, done.stdout + done.stderr
    found = sorted(line.split("::")[1] for line in done.stdout.splitlines() if line.startswith("::error"))
    assert found == [f"error file=apps/orders.yaml,line={line_of(producer, 'max.in.flight')},title=kcliff inflight-one%3A "
                     "one request in flight",
                     f"error file=kafka/configmap.yaml,line={line_of(configmap, 'FLUSH')},title=kcliff "
                     "flush-every-message%3A fsync on every message"], done.stdout

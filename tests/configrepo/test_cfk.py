"""Confluent for Kubernetes resources as a config repo: the Kafka resource's configOverrides.server
lines as broker settings on their own line, its cp-server image as the Kafka version (derived, with a
note), KafkaTopics as topics, other kinds noted and skipped; what CFK or Kafka would refuse is bad
input on its line; discovery by content; lint annotations on the right line of the example repo."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from conftest import ROOT, run_kcliff
from kcliff import configrepo
from kcliff.configrepo import cfk
from kcliff.errors import InputError
from repo_files import line_of, write

EXAMPLE = ROOT / "examples" / "cfk-repo"

# A production CFK cluster file: controllers, brokers with the overrides platform teams set, and the
# components deployed beside them.
PLATFORM = """\
apiVersion: platform.confluent.io/v1beta1
kind: KRaftController
metadata:
  name: kraftcontroller
  namespace: confluent
spec:
  replicas: 3
  image:
    application: confluentinc/cp-server:8.0.2
    init: confluentinc/confluent-init-container:3.0.1
  configOverrides:
    server:
      - controller.quorum.fetch.timeout.ms=4000
---
apiVersion: platform.confluent.io/v1beta1
kind: Kafka
metadata:
  name: kafka-prod
  namespace: event-broker
spec:
  replicas: 6
  image:
    application: docker.io/confluentinc/cp-server:8.0.2
    init: confluentinc/confluent-init-container:3.0.1
  dataVolumeCapacity: 1Ti
  configOverrides:
    server:
      - "num.partitions=12"
      - "default.replication.factor=3"
      - "min.insync.replicas=2"
      - num.io.threads = 16
      - num.network.threads:8
      - "# tuned for the 25 Gbit/s nodes"
      - socket.send.buffer.bytes=1048576
      - socket.receive.buffer.bytes=1048576
      - replica.fetch.max.bytes=10485760
      - log.segment.bytes=536870912
      - log.retention.hours=72
      - compression.type=producer
      - confluent.tier.feature=true
      - confluent.tier.enable=true
      - ssl.keystore.password=${file:/mnt/secrets/ssl.properties:keystore.password}
      - auto.create.topics.enable=false
    jvm:
      - "-Xms8g"
      - "-Xmx12g"
---
apiVersion: platform.confluent.io/v1beta1
kind: Connect
metadata:
  name: connect
spec:
  replicas: 1
  image:
    application: confluentinc/cp-server-connect:8.0.2
  configOverrides:
    server:
      - group.id=connect-cg
      - offset.storage.replication.factor=3
---
apiVersion: platform.confluent.io/v1beta1
kind: KafkaTopic
metadata:
  name: payments
  namespace: event-broker
spec:
  replicas: 3
  partitionCount: 24
  configs:
    cleanup.policy: "delete"
    retention.ms: "1209600000"
    min.insync.replicas: "2"
    segment.bytes: "268435456"
    max.message.bytes: "2097152"
    confluent.value.schema.validation: "true"
---
apiVersion: platform.confluent.io/v1beta1
kind: KafkaTopic
metadata:
  name: payment-events
spec:
  name: payment_events
  replicas: 3
  configs:
    retention.ms: "604800000"
"""


def read(path: Path) -> configrepo.ReadResult:
    return cfk.CfkReader().read(path, "cfk")


def test_the_kafka_resource_and_topics_are_read_on_their_lines(tmp_path):
    path = write(tmp_path, "platform.yaml", PLATFORM)
    result = read(path)
    broker = {e.name: (e.raw, e.line, e.resource) for e in result.entries if e.scope == "broker"}
    for key, raw in [("num.partitions", "12"), ("min.insync.replicas", "2"), ("num.io.threads", "16"),
                     ("num.network.threads", "8"), ("socket.send.buffer.bytes", "1048576"),
                     ("replica.fetch.max.bytes", "10485760"), ("log.segment.bytes", "536870912"),
                     ("auto.create.topics.enable", "false")]:
        assert broker[key] == (raw, line_of(path, key), "Kafka kafka-prod"), key
    assert "controller.quorum.fetch.timeout.ms" not in broker and "group.id" not in broker  # other kinds
    topics = {(e.topic, e.name): (e.raw, e.line) for e in result.entries if e.scope == "topic"}
    payments = line_of(path, "name: payments")
    assert topics[("payments", "partitions")] == (24, line_of(path, "partitionCount: 24"))
    assert topics[("payments", "replication.factor")] == (3, line_of(path, "replicas: 3", payments))
    assert topics[("payments", "segment.bytes")] == ("268435456", line_of(path, "segment.bytes", payments))
    assert [t.name for t in result.topics] == ["payments", "payment_events"]  # spec.name wins
    assert result.kafka_version is not None
    assert (result.kafka_version.version, result.kafka_version.line) == (
        "4.0.2", line_of(path, "application: docker.io/confluentinc/cp-server"))
    notes = {n.line: n.message for n in result.notes}
    assert "Confluent Platform 8.0, which ships Kafka 4.0; kcliff derived the version from the image" in \
        notes[result.kafka_version.line]
    assert "Confluent Server's own setting" in notes[line_of(path, "confluent.tier.enable")]
    assert "Confluent Server's own setting" in notes[line_of(path, "confluent.value.schema.validation")]
    assert "resolved by a config provider" in notes[line_of(path, "ssl.keystore.password")]
    assert "KRaftController kraftcontroller: a Confluent Platform component" in notes[1]
    # a Connect is its connectors' worker (#44): its own keys noted, its producer.*/consumer.* read (test_connect.py)
    assert "Connect connect: 2 keys of the Connect worker itself (group.id" in notes[line_of(path, "group.id=connect-cg")]
    assert "spec.configOverrides.jvm: not Kafka settings" in notes[line_of(path, "jvm:")]


def test_a_topic_without_partition_count_is_read_but_not_measured(tmp_path):
    write(tmp_path, "platform.yaml", PLATFORM)
    repo = configrepo.load([str(tmp_path)])
    assert configrepo.to_scenario(repo, "head", topic="payments").topic["partitions"] == 24
    with pytest.raises(InputError, match="spec.partitionCount is not set"):
        configrepo.to_scenario(repo, "head", topic="payment_events")


@pytest.mark.parametrize("image, expected", [
    ("confluentinc/cp-server:7.6.0", ("3.6", "7.6")), ("confluentinc/cp-server:7.9.1", ("3.9", "7.9")),
    ("confluentinc/cp-kafka:7.4.3", ("3.4", "7.4")), ("confluentinc/cp-server:8.1.0", ("4.1", "8.1")),
    ("registry.example.com:5000/mirror/confluentinc/cp-server:8.0.0-1-ubi9", ("4.0", "8.0")),
    ("confluentinc/cp-server:7.6.0@sha256:0123abcd", ("3.6", "7.6")),
    ("confluentinc/cp-server:latest", None), ("confluentinc/cp-server", None),
    ("confluentinc/cp-server:6.2.0", None), ("acme/kafka:3.7.1", None),
])
def test_the_kafka_of_a_confluent_platform_image(image, expected):
    assert cfk.kafka_of_platform(image) == expected


def test_what_cfk_or_kafka_would_refuse_is_reported_all_at_once(tmp_path):
    path = write(tmp_path, "bad.yaml", """\
apiVersion: platform.confluent.io/v1beta1
kind: Kafka
metadata:
  name: kafka
spec:
  image:
    application: confluentinc/cp-server:8.1.0
  configOverrides:
    server:
      - num.io.threads=16
      - 42
---
apiVersion: platform.confluent.io/v1beta1
kind: KafkaTopic
metadata:
  name: orders
spec:
  partitionCount: 0
---
apiVersion: platform.confluent.io/v1beta1
kind: KafkaTopic
metadata:
  name: Orders_Upper
spec:
  partitionCount: 3
---
apiVersion: platform.confluent.io/v1alpha1
kind: KafkaTopic
metadata:
  name: old
""")
    with pytest.raises(InputError) as caught:
        read(path)
    found = {p.line: p.message for p in caught.value.problems}
    assert set(found) == {11, 18, 23, 27}, found
    assert "are \"key=value\" strings, got 42" in found[11]
    assert "spec.partitionCount must be an integer from 1" in found[18]
    assert "not a Kubernetes object name" in found[23]
    assert "expected platform.confluent.io/v1beta1" in found[27]


def test_discovery_reads_cfk_files_by_content(tmp_path):
    write(tmp_path, "k8s/platform.yaml", PLATFORM)
    write(tmp_path, "k8s/values.yaml", "replicaCount: 3\nimage: confluentinc/cp-server:8.0.2\n")
    files, _, _ = configrepo.discover([str(tmp_path)])
    assert [(Path(f.path).name, f.role, f.format) for f in files] == [("platform.yaml", "cfk", "cfk")]


# --- the real CLI ------------------------------------------------------------------------------------

def test_the_example_lints_clean():
    done = run_kcliff("lint", "--verbose", str(EXAMPLE))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "0 error(s), 0 warning(s) in 2 file(s)" in done.stdout
    assert "which ships Kafka 4.1" in done.stdout and "SchemaRegistry schemaregistry" in done.stdout


def test_lint_annotates_flush_1_in_config_overrides_on_its_line(tmp_path):
    repo = tmp_path / "repo"
    shutil.copytree(EXAMPLE, repo)
    (repo / ".git").mkdir()
    platform = repo / "confluent-platform.yaml"
    platform.write_text(platform.read_text().replace("      - num.io.threads=16\n",
                                                     "      - num.io.threads=16\n      - log.flush.interval.messages=1\n"))
    done = run_kcliff("lint", "--format", "github", "repo", cwd=tmp_path)
    assert done.returncode == 1, done.stdout + done.stderr
    found = [line for line in done.stdout.splitlines() if line.startswith("::")]
    assert len(found) == 1, found
    assert found[0].startswith(f"::error file=confluent-platform.yaml,line="
                               f"{line_of(platform, 'log.flush.interval.messages=1')},title=kcliff flush-every-message%3A ")


def test_lint_of_a_bad_override_exits_2_naming_file_and_line(tmp_path):
    repo = tmp_path / "repo"
    shutil.copytree(EXAMPLE, repo)
    platform = repo / "confluent-platform.yaml"
    platform.write_text(platform.read_text().replace("num.io.threads=16", "num.io.thread=16"))
    done = run_kcliff("lint", str(repo))
    assert done.returncode == 2, done.stdout + done.stderr
    assert f"{platform}:{line_of(platform, 'num.io.thread=16')}: unknown broker setting 'num.io.thread'" in done.stderr
    assert "did you mean 'num.io.threads'" in done.stderr and "Traceback" not in done.stderr

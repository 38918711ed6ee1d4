"""docker-compose files as a config repo: each service of a Kafka broker image is a broker whose
environment is read as its image's entry script reads it (apache/kafka, Confluent's cp-kafka and
cp-server, Bitnami's kafka), each setting on the line that writes it (an anchor's line, when three
brokers merge one); other services' KAFKA_* never taken for a broker's; interpolated values noted;
what compose, the image or Kafka refuses is bad input on its line; discovery by content."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from conftest import ROOT, run_kcliff
from kcliff import configrepo
from kcliff.configrepo import compose, images
from kcliff.configrepo.model import NoteLevel
from kcliff.errors import InputError
from repo_files import line_of, write

EXAMPLE = ROOT / "examples" / "compose-repo"

# Three combined KRaft nodes of the apache/kafka image (the shape of Kafka's docker/examples cluster
# files), their shared settings in an anchor each merges, and the services a team runs beside them.
THREE_NODES = """\
# Local three-node cluster for the integration tests (docker compose up -d)
x-kafka-common: &kafka-common
  image: apache/kafka:3.9.1
  restart: unless-stopped

x-kafka-env: &kafka-env
  KAFKA_PROCESS_ROLES: broker,controller
  KAFKA_CONTROLLER_QUORUM_VOTERS: 1@kafka-1:9093,2@kafka-2:9093,3@kafka-3:9093
  KAFKA_LISTENERS: PLAINTEXT://:19092,CONTROLLER://:9093,PLAINTEXT_HOST://:9092
  KAFKA_LISTENER_SECURITY_PROTOCOL_MAP: CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT,PLAINTEXT_HOST:PLAINTEXT
  KAFKA_CONTROLLER_LISTENER_NAMES: CONTROLLER
  KAFKA_INTER_BROKER_LISTENER_NAME: PLAINTEXT
  CLUSTER_ID: 4L6g3nShT-eMCtK--X86sw
  KAFKA_NUM_PARTITIONS: 6
  KAFKA_DEFAULT_REPLICATION_FACTOR: 3
  KAFKA_MIN_INSYNC_REPLICAS: 2
  KAFKA_OFFSETS_TOPIC_REPLICATION_FACTOR: 3
  KAFKA_TRANSACTION_STATE_LOG_MIN_ISR: 2
  KAFKA_GROUP_INITIAL_REBALANCE_DELAY_MS: 0
  KAFKA_LOG_RETENTION_HOURS: 72
  KAFKA_LOG_SEGMENT_BYTES: 536870912
  KAFKA_AUTO_CREATE_TOPICS_ENABLE: "false"
  KAFKA_NUM_IO_THREADS: 8
  KAFKA_HEAP_OPTS: -Xmx1G -Xms1G
  KAFKA_LOG4J_LOGGERS: kafka.controller=INFO,state.change.logger=WARN

services:
  kafka-1:
    <<: *kafka-common
    ports: ["29092:9092"]
    environment:
      <<: *kafka-env
      KAFKA_NODE_ID: 1
      KAFKA_ADVERTISED_LISTENERS: PLAINTEXT://kafka-1:19092,PLAINTEXT_HOST://localhost:29092
  kafka-2:
    <<: *kafka-common
    ports: ["39092:9092"]
    environment:
      <<: *kafka-env
      KAFKA_NODE_ID: 2
      KAFKA_ADVERTISED_LISTENERS: PLAINTEXT://kafka-2:19092,PLAINTEXT_HOST://localhost:39092
  kafka-3:
    <<: *kafka-common
    ports: ["49092:9092"]
    environment:
      <<: *kafka-env
      KAFKA_NODE_ID: 3
      KAFKA_ADVERTISED_LISTENERS: PLAINTEXT://kafka-3:19092,PLAINTEXT_HOST://localhost:49092

  schema-registry:
    image: confluentinc/cp-schema-registry:7.9.0
    environment:
      SCHEMA_REGISTRY_HOST_NAME: schema-registry
      SCHEMA_REGISTRY_KAFKASTORE_BOOTSTRAP_SERVERS: kafka-1:19092,kafka-2:19092,kafka-3:19092

  orders:
    image: registry.example.com/shop/orders:2.3.1
    environment:
      - KAFKA_BOOTSTRAP_SERVERS=kafka-1:19092
      - KAFKA_NUM_PARTITIONS=1
    depends_on: [kafka-1, kafka-2, kafka-3]
"""


def read(path: Path) -> configrepo.ReadResult:
    return compose.ComposeReader().read(path, "compose")


def test_three_brokers_are_read_each_setting_on_the_line_that_writes_it(tmp_path):
    path = write(tmp_path, "docker-compose.yml", THREE_NODES)
    result = read(path)
    by_broker: dict[str, dict[str, tuple[str, int | None]]] = {}
    for e in result.entries:
        assert e.scope == "broker"
        by_broker.setdefault(e.resource or "", {})[e.name] = (e.raw, e.line)
    assert sorted(by_broker) == ["service kafka-1", "service kafka-2", "service kafka-3"]  # never the app's
    for node, broker in enumerate(by_broker.values(), 1):
        assert broker["num.partitions"] == ("6", line_of(path, "KAFKA_NUM_PARTITIONS"))  # the anchor's line
        assert broker["auto.create.topics.enable"] == ("false", line_of(path, "KAFKA_AUTO_CREATE_TOPICS_ENABLE"))
        assert broker["listener.security.protocol.map"][1] == line_of(path, "KAFKA_LISTENER_SECURITY_PROTOCOL_MAP")
        assert broker["node.id"] == (str(node), line_of(path, f"KAFKA_NODE_ID: {node}"))
        assert "heap.opts" not in broker and "log4j.loggers" not in broker and "cluster.id" not in broker
    assert result.kafka_version is not None
    assert (result.kafka_version.version, result.kafka_version.line) == ("3.9.1", line_of(path, "apache/kafka:3.9.1"))
    notes = {(n.line, n.message) for n in result.notes}
    assert (line_of(path, "KAFKA_HEAP_OPTS"), "KAFKA_HEAP_OPTS is the broker JVM's options (kafka-run-class.sh reads "
                                              "it), not a broker setting") in notes
    assert any(line == line_of(path, "CLUSTER_ID") and "cluster id" in m for line, m in notes)
    assert any("service orders runs registry.example.com/shop/orders:2.3.1, not a Kafka broker image" in m
               for _, m in notes)
    assert not any(n.level is NoteLevel.WARNING for n in result.notes)  # the brokers agree


def test_the_repo_is_one_cluster_at_the_image_release(tmp_path):
    write(tmp_path, "docker-compose.yml", THREE_NODES)
    repo = configrepo.load([str(tmp_path)])
    assert repo.release is not None and repo.release.version == "3.9.1"
    scenario = configrepo.to_scenario(repo, "head")  # three identical brokers: no conflicting settings
    assert scenario.durability["broker"] == {"min.insync.replicas": 2}
    assert [str(n) for n in repo.notes].count(f"{tmp_path}/docker-compose.yml:{line_of(tmp_path / 'docker-compose.yml', 'KAFKA_HEAP_OPTS')}: "
                                              "KAFKA_HEAP_OPTS is the broker JVM's options (kafka-run-class.sh "
                                              "reads it), not a broker setting") == 1  # once, not per broker


def test_a_change_of_the_anchor_is_one_change_on_its_line(tmp_path):
    base = write(tmp_path, "base/docker-compose.yml", THREE_NODES).parent
    head_file = write(tmp_path, "head/docker-compose.yml", THREE_NODES.replace("KAFKA_NUM_IO_THREADS: 8",
                                                                               "KAFKA_NUM_IO_THREADS: 4"))
    before, after = configrepo.load([str(base)]), configrepo.load([str(head_file.parent)])
    changes = configrepo.setting_changes(configrepo.measured_entries(before), configrepo.measured_entries(after),
                                         str(base), str(head_file.parent), after.files)
    assert [(c.name, c.base, c.head, c.path, c.line) for c in changes] == [
        ("num.io.threads", 8, 4, str(head_file), line_of(head_file, "KAFKA_NUM_IO_THREADS"))]  # not once per broker


def test_brokers_that_differ_are_a_warning(tmp_path):
    path = write(tmp_path, "docker-compose.yml", THREE_NODES.replace(
        "      KAFKA_NODE_ID: 2\n", "      KAFKA_NODE_ID: 2\n      KAFKA_LOG_FLUSH_INTERVAL_MESSAGES: 1\n"))
    warnings = [n for n in read(path).notes if n.level is NoteLevel.WARNING]
    assert [(n.line, n.message.split(":")[0]) for n in warnings] == [
        (line_of(path, "KAFKA_LOG_FLUSH_INTERVAL_MESSAGES"),
         "the brokers of this cluster differ on 'log.flush.interval.messages'")]
    assert "service kafka-1 leaves it at its default; service kafka-2 sets '1'" in warnings[0].message


def test_a_list_environment_interpolation_and_env_files(tmp_path):
    write(tmp_path, "kafka.env", "# shared by every broker\nKAFKA_NUM_PARTITIONS=12\nexport KAFKA_LOG_RETENTION_HOURS=24 "
                                 "# a day\nKAFKA_MESSAGE_MAX_BYTES='${NOT_INTERPOLATED}'\nKAFKA_NUM_IO_THREADS\n")
    path = write(tmp_path, "compose.yaml", """\
services:
  broker:
    image: docker.io/apache/kafka-native:4.1.0
    env_file:
      - kafka.env
      - path: optional.env
        required: false
      - ../outside.env
    environment:
      - KAFKA_NODE_ID=1
      - KAFKA_NUM_PARTITIONS=3
      - KAFKA_LOG_SEGMENT_BYTES=${SEGMENT_BYTES:-536870912}
      - KAFKA_SASL_JAAS_CONFIG=org.apache.kafka.common.security.plain.PlainLoginModule required password="p$$w";
      - KAFKA_LOG_CLEANER_THREADS
""")
    result = read(path)
    env_file = tmp_path / "kafka.env"
    broker = {e.name: (e.raw, e.path, e.line) for e in result.entries}
    assert broker["num.partitions"] == ("3", str(path), line_of(path, "KAFKA_NUM_PARTITIONS=3"))  # environment wins
    assert broker["log.retention.hours"] == ("24", str(env_file), 3)  # the comment cut, on the env_file's line
    assert broker["message.max.bytes"] == ("${NOT_INTERPOLATED}", str(env_file), 4)  # single quotes: literal
    assert broker["sasl.jaas.config"][0].endswith('password="p$w";')  # $$ is a literal $
    assert {"log.segment.bytes", "num.io.threads", "log.cleaner.threads"}.isdisjoint(broker)
    notes = [str(n) for n in result.notes]
    assert any(f"kafka.env:2: service broker: KAFKA_NUM_PARTITIONS is set again at {path}:" in n for n in notes)
    assert any("KAFKA_LOG_SEGMENT_BYTES ('log.segment.bytes') is '${SEGMENT_BYTES:-536870912}': interpolated by "
               "compose" in n for n in notes)
    assert any("KAFKA_LOG_CLEANER_THREADS ('log.cleaner.threads') is None: not set in the file" in n for n in notes)
    assert any("KAFKA_NUM_IO_THREADS" in n and "kafka.env:5" in n for n in notes)
    assert any("env_file ../outside.env is outside the compose file's directory: not read" in n for n in notes)
    assert result.kafka_version is not None and result.kafka_version.version == "4.1.0"


# Confluent's all-in-one stack (the shape of confluentinc/cp-all-in-one's docker-compose.yml): one
# cp-server broker and the components beside it, each with its own prefixed variables.
CP_ALL_IN_ONE = """\
services:
  broker:
    image: confluentinc/cp-server:7.9.0
    hostname: broker
    environment:
      KAFKA_NODE_ID: 1
      KAFKA_LISTENER_SECURITY_PROTOCOL_MAP: 'CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT,PLAINTEXT_HOST:PLAINTEXT'
      KAFKA_ADVERTISED_LISTENERS: 'PLAINTEXT://broker:29092,PLAINTEXT_HOST://localhost:9092'
      KAFKA_METRIC_REPORTERS: io.confluent.metrics.reporter.ConfluentMetricsReporter
      KAFKA_OFFSETS_TOPIC_REPLICATION_FACTOR: 1
      KAFKA_CONFLUENT_LICENSE_TOPIC_REPLICATION_FACTOR: 1
      KAFKA_JMX_PORT: 9101
      KAFKA_JMX_HOSTNAME: localhost
      CONFLUENT_METRICS_REPORTER_BOOTSTRAP_SERVERS: broker:29092
      CONFLUENT_METRICS_ENABLE: 'true'
      CONFLUENT_SUPPORT_CUSTOMER_ID: 'anonymous'
      KAFKA_PROCESS_ROLES: 'broker,controller'
      KAFKA_LISTENER_NAME_PLAINTEXT___HOST_MAX_CONNECTIONS: 500
      CLUSTER_ID: 'MkU3OEVBNTcwNTJENDM2Qk'
  rest-proxy:
    image: confluentinc/cp-kafka-rest:7.9.0
    environment:
      KAFKA_REST_HOST_NAME: rest-proxy
      KAFKA_REST_BOOTSTRAP_SERVERS: 'broker:29092'
"""


def test_confluent_images_read_their_prefixes_and_platform_version(tmp_path):
    path = write(tmp_path, "docker-compose.yml", CP_ALL_IN_ONE)
    result = read(path)
    broker = {e.name: e.line for e in result.entries}
    assert broker["metric.reporters"] == line_of(path, "KAFKA_METRIC_REPORTERS")
    assert broker["confluent.license.topic.replication.factor"] == line_of(path, "KAFKA_CONFLUENT_LICENSE")
    assert broker["confluent.metrics.reporter.bootstrap.servers"] == line_of(path, "CONFLUENT_METRICS_REPORTER_BOOT")
    assert broker["confluent.support.customer.id"] == line_of(path, "CONFLUENT_SUPPORT_CUSTOMER_ID")
    assert broker["listener.name.plaintext-host.max.connections"] == line_of(path, "___HOST_MAX_CONNECTIONS")
    assert not any(name.startswith(("rest.", "jmx.")) for name in broker)
    assert result.kafka_version is not None and result.kafka_version.version.startswith("3.9.")
    notes = [n.message for n in result.notes]
    assert any("confluentinc/cp-server:7.9.0 is Confluent Platform 7.9, which ships Kafka 3.9" in m for m in notes)
    assert any("service rest-proxy runs confluentinc/cp-kafka-rest:7.9.0, not a Kafka broker image" in m for m in notes)


@pytest.mark.parametrize("family, var, key", [
    (images.Family.APACHE, "KAFKA_LOG_FLUSH_INTERVAL_MESSAGES", "log.flush.interval.messages"),
    (images.Family.APACHE, "KAFKA_LISTENER_NAME_PLAINTEXT___HOST_MAX_CONNECTIONS",
     "listener.name.plaintext-host.max.connections"),
    (images.Family.APACHE, "KAFKA_LISTENER_NAME_SASL__SSL_SASL_ENABLED_MECHANISMS",
     "listener.name.sasl_ssl.sasl.enabled.mechanisms"),
    (images.Family.CONFLUENT, "KAFKA_CONFLUENT_BALANCER_ENABLE", "confluent.balancer.enable"),
    (images.Family.CONFLUENT, "KAFKA_LISTENER_NAME_INTERNAL__X___Y_SSL_CLIENT_AUTH",
     "listener.name.internal_x-y.ssl.client.auth"),
    (images.Family.BITNAMI, "KAFKA_CFG_LOG_FLUSH_INTERVAL_MESSAGES", "log.flush.interval.messages"),
    (images.Family.BITNAMI, "KAFKA_CFG_LISTENER_NAME_SASL_SSL_SASL_ENABLED_MECHANISMS",
     "listener.name.sasl_ssl.sasl.enabled.mechanisms"),
    (images.Family.BITNAMI, "KAFKA_CFG_ZOOKEEPER_CLIENTCNXNSOCKET", "zookeeper.clientCnxnSocket"),
    (images.Family.BITNAMI, "KAFKA_LOG_RETENTION_HOURS", "log.retention.hours"),  # a legacy alias
    (images.Family.BITNAMI, "KAFKA_MAX_MESSAGE_BYTES", "message.max.bytes"),  # a legacy rename
])
def test_each_image_family_names_keys_as_its_entry_script(family, var, key):
    image = images.broker_image({images.Family.APACHE: "apache/kafka:4.1.0", images.Family.BITNAMI: "bitnami/kafka:3.9",
                                 images.Family.CONFLUENT: "confluentinc/cp-server:8.0.0"}[family])
    assert image is not None
    reading = images.read_variable(image, var)
    assert (reading.kind, reading.key) == (images.VarKind.SETTING, key)


@pytest.mark.parametrize("reference, version, noted", [
    ("apache/kafka:3.9.1", "3.9.1", False), ("apache/kafka-native:4.1.0@sha256:abc", "4.1.0", False),
    ("registry.example.com/mirror/apache/kafka:3.8.0", "3.8.0", False),
    ("confluentinc/cp-kafka:7.6.1", "3.6.", True), ("confluentinc/cp-server:8.1.0-1-ubi9", "4.1.", True),
    ("bitnami/kafka:3.7.0-debian-12-r3", "3.7.0", False), ("bitnamilegacy/kafka:3.9", "3.9.", True),
    ("apache/kafka:latest", None, True), ("apache/kafka", None, True), ("apache/kafka:${KAFKA_VERSION}", None, True),
    ("confluentinc/cp-kafka:5.5.1", None, True),
])
def test_the_release_of_an_image_tag(reference, version, noted):
    image = images.broker_image(reference)
    assert image is not None
    release = images.release_of(image)
    assert (release.version or "").startswith(version or "") and (release.version is None) == (version is None)
    assert (release.note is not None) == noted


@pytest.mark.parametrize("reference", ["confluentinc/cp-kafka-rest:7.9.0", "bitnami/kafka-exporter:1.7.0",
                                       "confluentinc/cp-schema-registry:7.9.0", "acme/apache/kafka-ui:1", None, 3])
def test_other_images_are_not_brokers(reference):
    assert images.broker_image(reference) is None


def test_what_compose_and_the_images_refuse_is_reported_together(tmp_path):
    path = write(tmp_path, "docker-compose.yml", """\
services:
  cp:
    image: confluentinc/cp-kafka:7.6.1
    env_file: missing.env
    environment:
      KAFKA_PORT: 9092
      KAFKA_NUM_PARTITIONS: [3]
  bitnami:
    image: bitnami/kafka:3.9.0
    environment:
      - KAFKA_CFG_NUM_PARTITIONS=3
      - KAFKA_UNCLEAN_LEADER_ELECTION_ENABLE=false
      - 42
  moved-off-bitnami:
    image: apache/kafka:3.9.1
    environment:
      KAFKA_CFG_NUM_PARTITIONS: 3
""")
    with pytest.raises(InputError) as caught:
        read(path)
    found = {p.line: p.message for p in caught.value.problems}
    assert set(found) == {4, 6, 7, 12, 13, 17}, found
    assert "env_file missing.env does not exist" in found[4]
    assert "KAFKA_PORT: confluentinc/cp-kafka's configure script exits at start" in found[6]
    assert "compose takes a string, number or boolean here, not a list" in found[7]
    assert "the Bitnami image ignores KAFKA_UNCLEAN_LEADER_ELECTION_ENABLE" in found[12]
    assert "write KAFKA_CFG_UNCLEAN_LEADER_ELECTION_ENABLE" in found[12]
    assert "items are KEY=value strings, got 42" in found[13]
    assert found[17] == ("KAFKA_CFG_NUM_PARTITIONS: KAFKA_CFG_* is the Bitnami image's form: apache/kafka writes it as "
                         "'cfg.num.partitions', so 'num.partitions' never reaches Kafka; write KAFKA_NUM_PARTITIONS")


def test_a_typo_is_an_error_suggesting_the_variable_and_every_bad_value_is_reported(tmp_path):
    compose_file = write(tmp_path, "docker-compose.yml", THREE_NODES.replace(
        "  KAFKA_AUTO_CREATE_TOPICS_ENABLE", "  KAFKA_UNCLEAN_LEADER_LECTION_ENABLE: \"false\"\n"
                                            "  KAFKA_AUTO_CREATE_TOPICS_ENABLE").replace(
        "KAFKA_NUM_IO_THREADS: 8", "KAFKA_NUM_IO_THREADS: eight"))
    with pytest.raises(InputError) as caught:
        configrepo.load([str(tmp_path)])
    found = {p.line: p.message for p in caught.value.problems}
    assert found == {
        line_of(compose_file, "LECTION"): "unknown broker setting 'unclean.leader.lection.enable' "
                                          "(KAFKA_UNCLEAN_LEADER_LECTION_ENABLE): did you mean "
                                          "'unclean.leader.election.enable' (KAFKA_UNCLEAN_LEADER_ELECTION_ENABLE)?",
        line_of(compose_file, "eight"): "broker setting 'num.io.threads' (KAFKA_NUM_IO_THREADS): expected a 32-bit "
                                        "integer, got 'eight' (Kafka 3.9.1)"}  # each once, for three brokers


def test_discovery_reads_compose_files_by_content(tmp_path):
    write(tmp_path, "local/stack.yml", THREE_NODES)
    write(tmp_path, "apps/docker-compose.yml", "services:\n  app:\n    image: acme/app:1\n    environment:\n"
                                               "      KAFKA_BOOTSTRAP_SERVERS: kafka:9092\n")
    write(tmp_path, "ci/workflow.yml", "on: push\njobs:\n  build:\n    runs-on: ubuntu-latest\n    services:\n"
                                       "      kafka:\n        image: apache/kafka:3.9.1\n")
    write(tmp_path, ".gitlab-ci.yml", "services:\n  - name: docker:dind\ntopics:\n  stage: deploy\n"
                                      "  image: bitnami/kafka:3.9\n  script: [kafka-topics.sh --list]\n")
    files, _, _ = configrepo.discover([str(tmp_path)])
    assert [(Path(f.path).name, f.role, f.format) for f in files] == [("stack.yml", "compose", "compose")]


def test_a_template_that_is_not_yaml_is_noted(tmp_path):
    path = write(tmp_path, "docker-compose.yml", "services:\n  kafka:\n    image: apache/kafka:3.9.1\n"
                                                 "    environment:\n{% for k, v in kafka_env.items() %}\n"
                                                 "      {{ k }}: {{ v }}\n{% endfor %}\n")
    result = read(path)
    assert not result.entries and "not YAML until rendered" in result.notes[0].message


# --- the real CLI ------------------------------------------------------------------------------------

def test_the_example_lints_clean():
    done = run_kcliff("lint", "--verbose", str(EXAMPLE))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "0 error(s), 0 warning(s)" in done.stdout


def test_lint_annotates_flush_1_on_the_env_line(tmp_path):
    repo = tmp_path / "repo"
    shutil.copytree(EXAMPLE, repo)
    (repo / ".git").mkdir()
    compose_file = repo / "docker-compose.yml"
    text = compose_file.read_text()
    assert "  KAFKA_NUM_IO_THREADS: 8\n" in text
    compose_file.write_text(text.replace("  KAFKA_NUM_IO_THREADS: 8\n",
                                         "  KAFKA_NUM_IO_THREADS: 8\n  KAFKA_LOG_FLUSH_INTERVAL_MESSAGES: 1\n"))
    done = run_kcliff("lint", "--format", "github", "repo", cwd=tmp_path)
    assert done.returncode == 1, done.stdout + done.stderr
    found = [line for line in done.stdout.splitlines() if line.startswith("::error")]
    assert len(found) == 1, found  # one line, shared by the three brokers
    assert found[0].startswith(f"::error file=docker-compose.yml,line="
                               f"{line_of(compose_file, 'KAFKA_LOG_FLUSH_INTERVAL_MESSAGES')},title=kcliff "
                               "flush-every-message%3A ")


def test_lint_of_a_typo_exits_2_naming_file_line_and_the_variable(tmp_path):
    repo = tmp_path / "repo"
    shutil.copytree(EXAMPLE, repo)
    compose_file = repo / "docker-compose.yml"
    compose_file.write_text(compose_file.read_text().replace("KAFKA_UNCLEAN_LEADER_ELECTION_ENABLE",
                                                             "KAFKA_UNCLEAN_LEADER_LECTION_ENABLE"))
    done = run_kcliff("lint", str(repo))
    assert done.returncode == 2, done.stdout + done.stderr
    assert (f"{compose_file}:{line_of(compose_file, 'LECTION')}: unknown broker setting 'unclean.leader.lection.enable' "
            "(KAFKA_UNCLEAN_LEADER_LECTION_ENABLE): did you mean 'unclean.leader.election.enable' "
            "(KAFKA_UNCLEAN_LEADER_ELECTION_ENABLE)?") in done.stderr
    assert "Traceback" not in done.stderr

"""Strimzi resources as a config repo: multi-document files read with each setting's own line, the
keys Strimzi manages noted (never "unknown"), what Strimzi or Kafka would refuse is bad input on its
line, discovery by content, and lint / check annotations on the right line of the right document."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from conftest import ROOT, run_kcliff
from kcliff import cli, configrepo, yamlio
from kcliff.commands import check
from kcliff.configrepo import strimzi
from kcliff.errors import InputError
from kcliff.lint import cliffs
from repo_files import line_of, write

from tests.commands.test_check_inputs import synthetic_doc

EXAMPLE = ROOT / "examples" / "strimzi-repo"

KAFKA_HEAD = """\
apiVersion: kafka.strimzi.io/v1
kind: Kafka
metadata:
  name: orders
spec:
  kafka:
    version: 4.2.0
    config:
"""
TOPIC = """\
apiVersion: kafka.strimzi.io/v1
kind: KafkaTopic
metadata:
  name: {name}
spec:
  partitions: 6
  replicas: 3
"""


def kafka(*config: str, version: str = "4.2.0", name: str = "orders") -> str:
    """A Kafka resource whose spec.kafka.config holds `config` lines ("key: value")."""
    head = KAFKA_HEAD.replace("4.2.0", version).replace("name: orders", f"name: {name}")
    return head + "".join(f"      {line}\n" for line in config) + ("" if config else "      {}\n")


def load_error(root: Path) -> InputError:
    with pytest.raises(InputError) as caught:
        configrepo.load([str(root)])
    return caught.value


# --- reading -----------------------------------------------------------------------------------------

def test_load_all_keeps_each_documents_lines_in_the_file(tmp_path):
    path = write(tmp_path, "x.yaml", "# c\na: 1\n---\n# second\nb:\n  c: 2\n---\n")
    docs = yamlio.load_all(path)
    assert len(docs) == 2  # the empty document after the last --- is left out
    assert yamlio.key_line(docs[0], "a") == 2 and yamlio.key_line(docs[1]["b"], "c") == 6
    write(tmp_path, "x.yaml", "a: 1\n---\nb: [1,\n")
    with pytest.raises(InputError, match="invalid YAML") as caught:
        yamlio.load_all(path)
    assert caught.value.line == 4


def test_the_example_maps_onto_broker_and_topic_settings_on_their_lines():
    repo = configrepo.load([str(EXAMPLE)])
    kafka_yaml, topics_yaml = EXAMPLE / "kafka.yaml", EXAMPLE / "topics.yaml"
    assert {Path(f.path).name: (f.role, f.format) for f in repo.files} == {
        "kafka.yaml": ("strimzi", "strimzi"), "topics.yaml": ("strimzi", "strimzi"),
        "orders-producer.properties": ("producer", "properties")}
    broker = {e.name: (e.value, e.line, e.resource) for e in repo.in_scope("broker")}
    assert broker["num.io.threads"] == (8, line_of(kafka_yaml, "num.io.threads:"), "Kafka orders")
    assert broker["min.insync.replicas"] == (2, line_of(kafka_yaml, "min.insync.replicas:"), "Kafka orders")
    assert repo.kafka_version is not None
    assert (repo.kafka_version.version, repo.kafka_version.line) == ("4.2.0", line_of(kafka_yaml, "version: 4.2.0"))
    assert [t.name for t in repo.topics] == ["orders", "order-events", "orders_dead_letters"]  # spec.topicName wins
    events = line_of(topics_yaml, "name: order-events")
    topic = {(e.topic, e.name): (e.value, e.line) for e in repo.in_scope("topic")}
    assert topic[("order-events", "partitions")] == (6, line_of(topics_yaml, "partitions: 6", events))
    assert topic[("order-events", "replication.factor")] == (3, line_of(topics_yaml, "replicas: 3", events))
    assert topic[("order-events", "segment.bytes")] == (536870912, line_of(topics_yaml, "segment.bytes:", events))
    notes = [str(n) for n in repo.notes]
    config_map = f"{kafka_yaml}:{line_of(kafka_yaml, 'kind: ConfigMap') - 1}: ConfigMap (v1)"
    assert any(n.startswith(config_map) and "skipped" in n for n in notes), notes
    assert sum("KafkaNodePool" in n and "3 combined" in n for n in notes) == 2
    sc = configrepo.to_scenario(repo, "head")
    assert sc.broker["num.io.threads"] == 8 and sc.topic == {"partitions": 12, "retention.ms": 604800000}
    assert sc.durability["topic"] == {"replication.factor": 3, "min.insync.replicas": 2}
    assert sc.producer["linger.ms"] == 5


MANAGED = ["listeners: PLAINTEXT://:9092", "advertised.listeners: x", "broker.rack: a", "broker.id: 1",
           "listener.security.protocol.map: a", "sasl.enabled.mechanisms: PLAIN", "ssl.keystore.location: /k",
           "security.inter.broker.protocol: SSL", "password.encoder.secret: s", "log.dirs: /d", "log.dir: /d",
           "node.id: 1", "process.roles: broker", "controller.quorum.voters: x", "controller.listener.names: C",
           "metadata.log.dir: /m", "zookeeper.connect: z:2181", "authorizer.class.name: x", "super.users: User:a",
           "cruise.control.metrics.reporter.bootstrap.servers: x", "client.quota.callback.static.produce: 1",
           "Listeners: upper-case too"]
# Strimzi's exceptions pass to Kafka: kcliff types them like any other key (these it ignores, with a note)
PASSED = ["ssl.cipher.suites: A", "ssl.protocol: TLSv1.3", "ssl.enabled.protocols: TLSv1.3",
          "controller.quorum.election.backoff.max.ms: 1000", "cruise.control.metrics.topic.replication.factor: 3",
          "listener.name.tls-9093.max.connections: 100"]
# ... and these kcliff measures, through a broker's death (docs/failover.md)
PASSED_MEASURED = ["broker.session.timeout.ms: 9000", "broker.heartbeat.interval.ms: 2000",
                   "controller.quorum.election.timeout.ms: 1000", "controller.quorum.fetch.timeout.ms: 2000"]


def test_keys_strimzi_manages_are_noted_on_their_line_not_unknown(tmp_path):
    path = write(tmp_path, "kafka.yaml", kafka(*MANAGED, *PASSED, *PASSED_MEASURED, "num.io.threads: 16"))
    repo = configrepo.load([str(tmp_path)])
    managed = {n.line for n in repo.notes if "managed by Strimzi" in n.message and "Strimzi ignores it" in n.message}
    assert managed == {line_of(path, f"      {m.split(':')[0]}:") for m in MANAGED}
    passed = {line_of(path, f"      {p.split(':')[0]}:") for p in PASSED}
    assert passed <= {n.line for n in repo.notes if "checked, not measured" in n.message
                      or "not defined by Apache Kafka" in n.message}
    assert [(e.name, e.value) for e in repo.entries if e.kind.measured] == [
        ("broker.session.timeout.ms", 9000), ("broker.heartbeat.interval.ms", 2000),
        ("controller.quorum.election.timeout.ms", 1000), ("controller.quorum.fetch.timeout.ms", 2000),
        ("num.io.threads", 16)]
    note = next(n for n in repo.notes if n.line == line_of(path, "advertised.listeners"))
    assert str(note) == (f"{path}:{note.line}: Kafka orders: spec.kafka.config 'advertised.listeners' is managed by "
                         "Strimzi (forbidden prefix 'advertised.'): Strimzi ignores it, and so does kcliff")


@pytest.mark.parametrize("key, prefix", [("listeners", "listeners"), ("log.dirs", "log.dir"),
                                         ("ssl.cipher.suites", None), ("ssl.truststore.type", "ssl."),
                                         ("listener.name.plain-9092.max.connections", None),
                                         ("listener.name.plain-9092.ssl.keystore.type", "listener."),
                                         ("controller.quorum.fetch.timeout.ms", None),
                                         ("controller.quorum.voters", "controller."), ("num.io.threads", None)])
def test_forbidden_prefix_follows_strimzi(key, prefix):
    assert strimzi.forbidden_prefix(key) == prefix


@pytest.mark.parametrize("config, words", [
    ("num.io.thread: 8", "did you mean 'num.io.threads'"),
    ("num.io.threads: 0", "num.io.threads"),
    ("num.io.threads: many", "expected a 32-bit integer"),
    ("log.flush.interval.messages: 0", "log.flush.interval.messages"),
    ("compression.type: brotli", "expected one of"),
])
def test_unknown_keys_and_bad_values_are_bad_input_on_their_line(tmp_path, config, words):
    path = write(tmp_path, "cluster.yaml", "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: kafka\n---\n"
                 + kafka("num.network.threads: 3", config))
    error = load_error(tmp_path)
    assert (error.path, error.line) == (str(path), line_of(path, config.split(":")[0] + ":"))
    assert words in error.message


@pytest.mark.parametrize("text, at, words", [
    (kafka(version="3.9"), "version:", "expected a release number"),
    (kafka().replace("kafka.strimzi.io/v1", "kafka.strimzi.io/v1alpha1"), "apiVersion", "kafka.strimzi.io/v1"),
    (kafka().replace("name: orders", "name: Orders_Cluster"), "name:", "not a Kubernetes object name"),
    (kafka() + "---\n" + kafka(version="4.1.1", name="other"), "version: 4.1.1", "Kafka version 4.1.1 here"),
    (kafka() + "---\n" + kafka(), "name: orders", "Kafka orders is defined twice"),
    (kafka() + "---\nkind: Kafka\n", "kind: Kafka\n", "apiVersion and kind"),
    (kafka() + "---\n- a\n", "- a", "apiVersion and kind"),
    (kafka("num.io.threads: 8", "num.io.threads: 9"), "num.io.threads: 9", "duplicate key"),
    (KAFKA_HEAD.replace("    version: 4.2.0\n    config:\n", "    config: [1]\n"), "config:", "must be a mapping"),
    (TOPIC.format(name="orders") + "  topicName: 'orders events'\n", "topicName", "not one Kafka accepts"),
    (TOPIC.format(name="orders") + "  topicName: ..\n", "topicName", "not one Kafka accepts"),
    (TOPIC.format(name="a") + "---\n" + TOPIC.format(name="b") + "  topicName: a\n", "topicName",
     "topic a is defined twice"),
    (TOPIC.format(name="orders").replace("partitions: 6", "partitions: '6'"), "partitions", "must be an integer"),
    (TOPIC.format(name="orders").replace("replicas: 3", "replicas: 0"), "replicas", "must be an integer"),
    (TOPIC.format(name="orders") + "  config:\n    partitions: 3\n", "    partitions", "set spec.partitions"),
    (TOPIC.format(name="orders") + "  config:\n    flush.message: 1\n", "flush.message", "did you mean"),
])
def test_what_strimzi_or_kafka_would_refuse_is_bad_input_on_its_line(tmp_path, text, at, words):
    path = write(tmp_path, "strimzi.yaml", text)
    error = load_error(tmp_path)
    assert words in error.message, error
    last = [i for i, line in enumerate(text.splitlines(), 1) if at in line + "\n"][-1]
    assert (error.path, error.line) == (str(path), last)


def test_a_topic_without_partitions_is_read_but_cannot_be_measured(tmp_path):
    path = write(tmp_path, "topics.yaml", TOPIC.format(name="orders").replace("  partitions: 6\n", "")
                 + "---\n" + TOPIC.format(name="audit"))
    repo = configrepo.load([str(tmp_path)])  # lint reads it: Strimzi accepts it
    assert [t.name for t in repo.topics] == ["orders", "audit"]
    with pytest.raises(InputError, match="spec.partitions is not set") as caught:
        configrepo.to_scenario(repo, "head")  # measuring it would guess the broker's num.partitions
    assert (caught.value.path, caught.value.line) == (str(path), 4)
    assert configrepo.to_scenario(repo, "head", topic="audit").topic == {"partitions": 6}


# --- discovery ---------------------------------------------------------------------------------------

def test_discovery_reads_strimzi_files_by_content_and_plain_topics_yaml_by_name(tmp_path):
    write(tmp_path, "deploy/cluster.yml", kafka("num.io.threads: 8"))
    write(tmp_path, "deploy/topics.yaml", TOPIC.format(name="orders"))  # named topics, holds KafkaTopics
    write(tmp_path, "plain/topics.yaml", "- name: audit\n  partitions: 3\n")  # the plain topics YAML, as before
    write(tmp_path, "deploy/namespace.yaml", "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: kafka\n")
    write(tmp_path, "deploy/users.yaml", "apiVersion: kafka.strimzi.io/v1\nkind: KafkaUser\nmetadata:\n  name: a\n")
    repo = configrepo.load([str(tmp_path)])
    assert {os.path.relpath(f.path, tmp_path): f.role for f in repo.files} == {
        "deploy/cluster.yml": "strimzi", "deploy/topics.yaml": "strimzi", "plain/topics.yaml": "topics",
        "deploy/users.yaml": "strimzi"}
    assert any("KafkaUser (kafka.strimzi.io/v1) holds no settings" in n.message for n in repo.notes)
    assert sorted(t.name for t in repo.topics) == ["audit", "orders"]
    named = configrepo.load([str(tmp_path / "deploy" / "cluster.yml")])  # a file named on the command line
    assert [f.role for f in named.files] == ["strimzi"]


def test_a_strimzi_file_linked_out_of_the_repo_is_not_read(tmp_path):
    outside = write(tmp_path, "outside/kafka.yaml", kafka("log.flush.interval.messages: 1"))
    repo_dir = tmp_path / "repo"
    write(repo_dir, "producer.properties", "linger.ms=5\n")
    os.symlink(outside, repo_dir / "kafka.yaml")
    repo = configrepo.load([str(repo_dir)])
    assert not repo.in_scope("broker")
    assert any(n.path == str(repo_dir / "kafka.yaml") and "leading out" in n.message for n in repo.notes)


@pytest.mark.parametrize("item", ["{path: 'k8s/*.yaml', format: strimzi}", "{path: 'k8s/*.yaml', role: strimzi}"])
def test_the_manifest_maps_strimzi_files(tmp_path, item):
    write(tmp_path, "k8s/a.yaml", kafka("num.io.threads: 4"))
    write(tmp_path, "kcliff.yaml", f"version: 1\nfiles:\n  - {item}\n")
    repo = configrepo.load([str(tmp_path)])
    assert [(f.role, f.format) for f in repo.files] == [("strimzi", "strimzi")]
    assert [e.value for e in repo.entries] == [4]


def test_the_manifest_refuses_a_role_the_format_does_not_read(tmp_path):
    write(tmp_path, "k8s/a.yaml", kafka())
    write(tmp_path, "kcliff.yaml", "version: 1\nfiles:\n  - {path: k8s/a.yaml, role: broker, format: strimzi}\n")
    error = load_error(tmp_path)
    assert error.line == 3 and "that format reads strimzi" in error.message


# --- rules and changes on the right document ---------------------------------------------------------

def test_each_kafka_resource_is_its_own_broker_config_for_the_rules(tmp_path):
    """Two clusters in one file: flush=1 in the first is not hidden by the second's value."""
    path = write(tmp_path, "clusters.yaml", kafka("log.flush.interval.messages: 1", name="a") + "---\n"
                 + kafka("log.flush.interval.messages: 100", name="b"))
    matches = cliffs.evaluate(configrepo.load([str(tmp_path)]), cliffs.load_rules())
    assert {(m.rule.id, m.line) for m in matches} == {("flush-every-message", line_of(path, "messages: 1")),
                                                      ("flush-frequent", line_of(path, "messages: 100"))}


def test_setting_changes_point_at_the_head_document_that_changed(tmp_path):
    base, head = tmp_path / "base", tmp_path / "head"
    shutil.copytree(EXAMPLE, base)
    shutil.copytree(EXAMPLE, head)
    kafka_yaml, topics_yaml = head / "kafka.yaml", head / "topics.yaml"
    kafka_yaml.write_text(kafka_yaml.read_text().replace("      num.io.threads: 8\n", "")
                          .replace("num.network.threads: 3", "num.network.threads: 6"))
    topics_yaml.write_text(topics_yaml.read_text().replace("    retention.ms: 604800000\n", ""))
    old, new = configrepo.load([str(base)]), configrepo.load([str(head)])
    changes = configrepo.setting_changes(configrepo.measured_entries(old), configrepo.measured_entries(new),
                                         str(base), str(head), new.files)
    assert [(c.describe(), c.path, c.line) for c in changes] == [
        ("broker num.io.threads=8 removed", str(kafka_yaml), line_of(kafka_yaml, "    config:")),
        ("broker num.network.threads 3 -> 6", str(kafka_yaml), line_of(kafka_yaml, "num.network.threads: 6")),
        ("topic retention.ms=604800000 removed", str(topics_yaml), line_of(topics_yaml, "  config:"))]


def test_a_measured_regression_is_annotated_on_the_strimzi_line(tmp_path, monkeypatch, capsys):
    base, head = tmp_path / "base", tmp_path / "head"
    shutil.copytree(EXAMPLE, base)
    shutil.copytree(EXAMPLE, head)
    kafka_yaml = head / "kafka.yaml"
    kafka_yaml.write_text(kafka_yaml.read_text().replace("num.io.threads: 8", "num.io.threads: 1"))
    monkeypatch.setattr(check, "measure", lambda args, self_test, pair, version, upgrade=None, *_: synthetic_doc(0.41))
    code = cli.main(["check", "--base", str(base), "--head", str(head), "--format", "github", "--repo-root", str(head)])
    assert code == 1
    found = [line for line in capsys.readouterr().out.splitlines() if line.startswith("::error")]
    assert len(found) == 1
    assert found[0].startswith(f"::error file=kafka.yaml,line={line_of(kafka_yaml, 'num.io.threads: 1')},title=kcliff"
                               "%3A measured regression::broker num.io.threads 8 -> 1: measured with this change")


# --- the real CLI ------------------------------------------------------------------------------------

def test_lint_fails_flush_1_in_the_kafka_resource_with_an_annotation_on_its_line(tmp_path):
    repo = tmp_path / "repo"
    shutil.copytree(EXAMPLE, repo)
    (repo / ".git").mkdir()  # a checkout: annotations name files relative to it
    kafka_yaml = repo / "kafka.yaml"
    kafka_yaml.write_text(kafka_yaml.read_text().replace(
        "      num.io.threads: 8\n", "      num.io.threads: 8\n      log.flush.interval.messages: 1\n"))
    done = run_kcliff("lint", "--format", "github", "repo", cwd=tmp_path)
    assert done.returncode == 1, done.stdout + done.stderr
    found = [line for line in done.stdout.splitlines() if line.startswith("::")]
    assert len(found) == 1
    assert found[0].startswith(f"::error file=kafka.yaml,line={line_of(kafka_yaml, 'log.flush.interval.messages')},"
                               "title=kcliff flush-every-message%3A ")
    clean = run_kcliff("lint", str(EXAMPLE))
    assert clean.returncode == 0 and "0 error(s), 0 warning(s) in 3 file(s)" in clean.stdout, clean.stdout


def test_lint_of_a_bad_strimzi_file_exits_2_naming_file_and_line(tmp_path):
    repo = tmp_path / "repo"
    shutil.copytree(EXAMPLE, repo)
    topics_yaml = repo / "topics.yaml"
    topics_yaml.write_text(topics_yaml.read_text().replace("segment.bytes: 536870912", "segment.byte: 536870912"))
    done = run_kcliff("lint", str(repo))
    assert done.returncode == 2, done.stdout + done.stderr
    assert f"{topics_yaml}:{line_of(topics_yaml, 'segment.byte:')}: unknown topic setting 'segment.byte'" in done.stderr
    assert "did you mean 'segment.bytes'" in done.stderr and "Traceback" not in done.stderr


def test_every_bad_resource_of_a_file_is_reported_at_once(tmp_path):
    text = (TOPIC.format(name="orders") + "  topicName: 'orders events'\n---\n"
            + TOPIC.format(name="audit").replace("partitions: 6", "partitions: '6'") + "---\n"
            + kafka("num.io.threads: 8"))
    path = write(tmp_path, "strimzi.yaml", text)
    error = load_error(tmp_path)
    found = [(p.path, p.line, p.message) for p in error.problems]
    assert [(p, line) for p, line, _ in found] == [(str(path), line_of(path, "topicName")),
                                                  (str(path), line_of(path, "partitions: '6'"))], found
    assert "not one Kafka accepts" in found[0][2] and "must be an integer" in found[1][2]

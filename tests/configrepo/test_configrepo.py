"""Reading config repos: .properties semantics with line numbers, topics YAML, discovery, validation,
and the mapping onto a scenario (repo values override defaults; durability measured as set)."""

from __future__ import annotations

from pathlib import Path

import pytest
from kcliff import configrepo
from kcliff.configrepo.properties import parse_text
from kcliff.errors import InputError
from kcliff.scenario import settings
from repo_files import write

# Shaped like Kafka 4.2's config/server.properties for a combined-mode KRaft node.
SERVER = """\
############################# Server Basics #############################
process.roles=broker,controller
node.id=1
controller.quorum.bootstrap.servers=localhost:9093
listeners=PLAINTEXT://:9092,CONTROLLER://:9093
inter.broker.listener.name=PLAINTEXT
advertised.listeners=PLAINTEXT://localhost:9092,CONTROLLER://localhost:9093
controller.listener.names=CONTROLLER
listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT,SSL:SSL
num.network.threads=3
num.io.threads=8
socket.send.buffer.bytes=102400
socket.receive.buffer.bytes=102400
socket.request.max.bytes=104857600
log.dirs=/tmp/kraft-combined-logs
num.partitions=1
num.recovery.threads.per.data.dir=1
offsets.topic.replication.factor=1
share.coordinator.state.topic.replication.factor=1
share.coordinator.state.topic.min.isr=1
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
#log.flush.interval.messages=10000
#log.flush.interval.ms=1000
log.retention.hours=168
log.segment.bytes=1073741824
log.retention.check.interval.ms=300000
"""


# --- .properties -----------------------------------------------------------------------------------

def test_properties_separators_comments_continuations_and_escapes_keep_key_lines():
    text = ("# comment\n! bang comment\n#: not metadata=1\n"
            "a=1\nb : 2\nc 3\n  d = multi\\\n     line\ne=x\\u0041\\ty\nempty=\nbare\n")
    assert parse_text(text, "f") == [("a", "1", 4), ("b", "2", 5), ("c", "3", 6), ("d", "multiline", 7),
                                      ("e", "xA\ty", 9), ("empty", "", 10), ("bare", "", 11)]


def test_properties_crlf_and_repeated_keys_keep_each_occurrence():
    text = "a=1\r\nb=2\\\r\n  3\r\na=4\r\n"
    assert parse_text(text, "f") == [("a", "1", 1), ("b", "23", 2), ("a", "4", 4)]


def test_properties_bad_unicode_escape_names_the_line(tmp_path):
    with pytest.raises(InputError) as err:
        parse_text("ok=1\nbad=\\uZZZZ\n", "f.properties")
    assert err.value.path == "f.properties" and err.value.line == 2


def test_repeated_key_uses_the_last_value_and_notes_it(tmp_path):
    write(tmp_path, "producer.properties", "linger.ms=0\nacks=all\nlinger.ms=20\n")
    repo = configrepo.load([str(tmp_path)])
    linger = [e for e in repo.entries if e.name == "linger.ms"]
    assert [(e.value, e.line) for e in linger] == [(20, 3)]
    assert any("set again at line 3" in n.message for n in repo.notes)


def test_latin1_file_is_read(tmp_path):
    (tmp_path / "producer.properties").write_bytes("client.id=caf\xe9\nlinger.ms=7\n".encode("iso-8859-1"))
    repo = configrepo.load([str(tmp_path)])
    assert [(e.name, e.value) for e in repo.entries] == [("client.id", "caf\xe9"), ("linger.ms", 7)]


def test_kafka_style_server_properties_types_modelled_keys_and_notes_the_rest(tmp_path):
    write(tmp_path, "server.properties", SERVER)
    repo = configrepo.load([str(tmp_path)])
    got = {e.name: (e.value, e.line) for e in repo.entries}
    assert got["num.io.threads"] == (8, 11)
    assert got["socket.request.max.bytes"] == (104857600, 14)
    assert "log.flush.interval.messages" not in got  # commented out
    ignored = {n.message.split("'")[1] for n in repo.notes}
    assert {"listeners", "log.dirs", "node.id", "offsets.topic.replication.factor"} <= ignored


def test_unknown_key_names_file_line_and_closest_name(tmp_path):
    path = write(tmp_path, "server.properties", "node.id=1\nlog.flush.interval.message=1\n")
    with pytest.raises(InputError) as err:
        configrepo.load([str(tmp_path)])
    assert (err.value.path, err.value.line) == (str(path), 2)
    assert "did you mean 'log.flush.interval.messages'" in err.value.message


def test_bad_values_name_their_line(tmp_path):
    write(tmp_path, "producer.properties", "linger.ms=5\nbatch.size=lots\n")
    with pytest.raises(InputError) as err:
        configrepo.load([str(tmp_path)])
    assert err.value.line == 2 and "batch.size" in err.value.message
    write(tmp_path, "producer.properties", "acks=2\n")
    with pytest.raises(InputError, match="acks"):
        configrepo.load([str(tmp_path)])


def test_combinations_the_producer_refuses_are_bad_input(tmp_path):
    write(tmp_path, "producer.properties", "enable.idempotence=true\nacks=1\n")
    with pytest.raises(InputError) as err:
        configrepo.load([str(tmp_path)])
    assert err.value.line == 2
    # Without an explicit enable.idempotence, Kafka quietly disables idempotence: accepted.
    write(tmp_path, "producer.properties", "acks=1\nmax.in.flight.requests.per.connection=10\n")
    assert len(configrepo.load([str(tmp_path)]).entries) == 2


# --- topics YAML -------------------------------------------------------------------------------------

def test_topics_yaml_entries_and_lines(tmp_path):
    write(tmp_path, "topics.yaml", "- name: orders\n  partitions: 12\n  replication_factor: 3\n  configs:\n"
                                   "    compression.type: zstd\n    flush.messages: '1000'\n- name: audit\n")
    repo = configrepo.load([str(tmp_path)])
    got = {(e.topic, e.name): (e.value, e.line) for e in repo.entries}
    assert got[("orders", "partitions")] == (12, 2)
    assert got[("orders", "flush.messages")] == (1000, 6)
    assert got[("orders", "replication.factor")] == (3, 3)
    assert [t.name for t in repo.topics] == ["orders", "audit"]


@pytest.mark.parametrize("text, line, words", [
    ("- name: a\n  partitions: 3\n  config:\n    x: 1\n", 3, "unknown topic key 'config'"),
    ("- name: a\n  configs:\n    flush.mesages: 1\n", 3, "did you mean 'flush.messages'"),
    ("- name: a\n- name: a\n", 2, "defined twice"),
    ("topics:\n  - partitions: 3\n", 2, "needs a 'name'"),
    # the names Kafka's own Topic.validate refuses
    ("- name: orders\n- name: 'my topic'\n", 2, "is not one Kafka accepts"),
    ("- name: ''\n", 1, "is not one Kafka accepts"),
    ("- name: ..\n", 1, "and not '.' or '..'"),
    (f"- name: {'t' * 250}\n", 1, "1 to 249"),
    ("- name: 42\n", 1, "is not one Kafka accepts"),
])
def test_topics_yaml_errors(tmp_path, text, line, words):
    """Each refused with its line; a name of 249 legal characters is accepted (below)."""
    write(tmp_path, "topics.yaml", text)
    with pytest.raises(InputError) as err:
        configrepo.load([str(tmp_path)])
    assert err.value.line == line and words in err.value.message


def test_the_longest_topic_name_kafka_accepts_is_read(tmp_path):
    write(tmp_path, "topics.yaml", f"- name: {'a.b_c-D9' * 31}x\n  partitions: 3\n")
    assert len(configrepo.load([str(tmp_path)]).topics[0].name) == 249


# --- discovery ---------------------------------------------------------------------------------------

def test_discovery_by_convention(tmp_path):
    write(tmp_path, "kafka/server-1.properties", "num.io.threads=8\n")
    write(tmp_path, "apps/orders.producer.properties", "linger.ms=10\n")
    write(tmp_path, "apps/consumer.properties", "max.poll.records=500\n")
    write(tmp_path, "topics/prod-topics.yml", "- name: t\n")
    write(tmp_path, "config/log4j.properties", "x=1\n")
    write(tmp_path, ".hidden/server.properties", "nonsense.key=1\n")
    repo = configrepo.load([str(tmp_path)])
    roles = {Path(f.path).name: f.role for f in repo.files}
    assert roles == {"server-1.properties": "broker", "orders.producer.properties": "producer",
                     "consumer.properties": "consumer", "prod-topics.yml": "topics"}
    assert any("log4j.properties" in n.path and "skipped" in n.message for n in repo.notes)


def test_manifest_maps_paths_to_roles(tmp_path):
    write(tmp_path, "kcliff.yaml", "version: 1\nfiles:\n  - {path: 'brokers/*.conf', role: broker}\n"
                                   "  - {path: app.cfg, role: producer}\nmeasure: {producer: app.cfg}\n")
    write(tmp_path, "brokers/a.conf", "num.io.threads=4\n")
    write(tmp_path, "app.cfg", "linger.ms=10\n")
    write(tmp_path, "server.properties", "ignored.by.manifest=1\n")  # the manifest alone decides
    repo = configrepo.load([str(tmp_path)])
    assert sorted(f.role for f in repo.files) == ["broker", "producer"]
    assert repo.measure.producer == str(tmp_path / "app.cfg")


@pytest.mark.parametrize("files, line, words", [
    ("  - {path: 'nothing/*.properties', role: broker}\n", 3, "matches no file"),
    ("  - {path: a.conf, role: brokers}\n", 3, "role 'brokers'"),
    ("  - {path: ../a.conf, role: broker}\n", 3, "inside the repo"),
])
def test_manifest_errors_name_the_line(tmp_path, files, line, words):
    write(tmp_path, "a.conf", "num.io.threads=4\n")
    write(tmp_path, "kcliff.yaml", "version: 1\nfiles:\n" + files)
    with pytest.raises(InputError) as err:
        configrepo.load([str(tmp_path)])
    assert err.value.line == line and words in err.value.message


def test_a_file_whose_name_says_nothing_is_refused(tmp_path):
    path = write(tmp_path, "settings.conf", "linger.ms=1\n")
    with pytest.raises(InputError, match="cannot tell what this file configures"):
        configrepo.load([str(path)])
    with pytest.raises(InputError, match="no Kafka config files"):
        configrepo.load([str(tmp_path)])


# --- scenario mapping --------------------------------------------------------------------------------

def test_repo_values_override_defaults_and_durability_is_measured_as_set(tmp_path):
    write(tmp_path, "server.properties", SERVER + "log.flush.interval.messages=1000\nmin.insync.replicas=1\n")
    write(tmp_path, "producer.properties", "acks=1\nlinger.ms=10\nbootstrap.servers=x:9092\n")
    write(tmp_path, "topics.yaml", "- name: orders\n  partitions: 12\n  configs: {compression.type: lz4}\n")
    sc = configrepo.to_scenario(configrepo.load([str(tmp_path)]), "head")
    applied = sc.as_applied()
    assert applied["broker"]["log.flush.interval.messages"] == 1000
    assert applied["producer"]["linger.ms"] == 10 and applied["producer"]["acks"] == "1"
    assert applied["topic"]["partitions"] == 12 and applied["topic"]["compression.type"] == "lz4"
    # The topic inherits the broker's min.insync.replicas, as in Kafka.
    assert applied["topic"]["min.insync.replicas"] == 1 and applied["broker"]["min.insync.replicas"] == 1
    assert sc.weakened_durability() == {"producer": {"acks": "1"}, "topic": {"min.insync.replicas": 1},
                                        "broker": {"min.insync.replicas": 1}}
    # Durability changes what is measured, so it changes the settings hash.
    write(tmp_path, "producer.properties", "acks=all\nlinger.ms=10\n")
    same_but_acks = configrepo.to_scenario(configrepo.load([str(tmp_path)]), "head")
    assert same_but_acks.settings_hash() != sc.settings_hash()
    assert same_but_acks.as_applied()["producer"]["acks"] == "all"


def test_an_unset_setting_keeps_kcliffs_invariant(tmp_path):
    write(tmp_path, "producer.properties", "linger.ms=10\n")
    sc = configrepo.to_scenario(configrepo.load([str(tmp_path)]))
    applied = sc.as_applied()
    assert applied["producer"]["acks"] == settings.INVARIANTS["producer"]["acks"]
    assert applied["topic"]["min.insync.replicas"] == 2 and sc.weakened_durability() == {}


def test_replication_above_the_cluster_is_capped_with_a_note(tmp_path):
    write(tmp_path, "topics.yaml", "- name: t\n  replication_factor: 5\n  configs: {min.insync.replicas: 4}\n")
    sc = configrepo.to_scenario(configrepo.load([str(tmp_path)]))
    assert sc.as_applied()["topic"]["replication.factor"] == 3
    assert sc.as_applied()["topic"]["min.insync.replicas"] == 3
    assert any("measured as 3" in n for n in sc.notes)


def test_broker_files_must_agree_on_measured_settings(tmp_path):
    write(tmp_path, "server-1.properties", "node.id=1\nnum.io.threads=8\n")
    path = write(tmp_path, "server-2.properties", "node.id=2\nnum.io.threads=4\n")
    with pytest.raises(InputError) as err:
        configrepo.to_scenario(configrepo.load([str(tmp_path)]))
    assert (err.value.path, err.value.line) == (str(path), 2)


def test_choice_of_topic_and_producer(tmp_path):
    write(tmp_path, "a-producer.properties", "linger.ms=1\n")
    write(tmp_path, "b-producer.properties", "linger.ms=2\n")
    write(tmp_path, "topics.yaml", "- name: x\n  partitions: 3\n- name: y\n  partitions: 9\n")
    repo = configrepo.load([str(tmp_path)])
    first = configrepo.to_scenario(repo)
    assert first.producer == {"linger.ms": 1} and first.topic == {"partitions": 3}
    assert any("several producers" in n for n in first.notes)
    chosen = configrepo.to_scenario(repo, topic="y", producer=str(tmp_path / "b-producer.properties"))
    assert chosen.producer == {"linger.ms": 2} and chosen.topic == {"partitions": 9}
    with pytest.raises(InputError, match="topic 'z' is not in the repo"):
        configrepo.to_scenario(repo, topic="z")


def test_every_bad_topic_of_a_topics_file_is_reported_at_once(tmp_path):
    write(tmp_path, "topics.yaml", "- name: 'my topic'\n- name: a\n  partiton: 3\n  config: {}\n- name: a\n"
                                   "- partitions: 3\n- name: b\n  configs: [1]\n")
    with pytest.raises(InputError) as err:
        configrepo.load([str(tmp_path)])
    found = [(p.line, p.message) for p in err.value.problems]
    assert [line for line, _ in found] == [1, 3, 4, 5, 6, 8], found
    words = ["is not one Kafka accepts", "unknown topic key 'partiton'", "unknown topic key 'config'",
             "defined twice", "needs a 'name'", "'configs' must be a mapping"]
    assert all(w in message for w, (_, message) in zip(words, found)), found


def test_every_bad_entry_of_the_manifest_is_reported_at_once(tmp_path):
    write(tmp_path, "a.conf", "num.io.threads=4\n")
    write(tmp_path, "kcliff.yaml", "version: 1\nfile: a.conf\nfiles:\n"
                                   "  - {path: 'nothing/*.properties', role: broker}\n"
                                   "  - {path: a.conf, role: brokers}\n  - {path: a.conf, role: broker}\n"
                                   "measure: {topics: t}\n")
    with pytest.raises(InputError) as err:
        configrepo.load([str(tmp_path)])
    found = [(p.line, p.message) for p in err.value.problems]
    assert [line for line, _ in found] == [2, 4, 5, 7], found
    words = ["unknown key 'file'", "matches no file", "role 'brokers'", "'measure' takes topic"]
    assert all(w in message for w, (_, message) in zip(words, found)), found

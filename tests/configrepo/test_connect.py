"""Kafka Connect in a config repo (#44): a connector's JSON, a Strimzi KafkaConnector, a CFK Connector and a
worker's properties read as Kafka's Worker builds a task's clients: the overrides are client entries on their
own lines (validated with Kafka's catalogue, misspellings named with the right key as the file spells it,
linted where written), the worker's policy refuses what Connect refuses, and the scenario `check` measures
carries Connect's own producer settings under the worker's under the connector's, tasks.max producers."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from conftest import ROOT
from kcliff import configrepo
from kcliff.configrepo import connect_files
from kcliff.configrepo.discover import file_role
from kcliff.errors import InputError
from kcliff.lint import cliffs
from kcliff.results.metrics import ChangeKind
from repo_files import line_of, write

CORPUS = ROOT / "tests" / "data" / "real-repos" / "connect-platform"
SOURCE_JSON = "connectors/orders-postgres-source.json"
STRIMZI = "k8s/kafka-connect.yaml"
WORKER = "worker/connect-distributed.properties"


def _copy(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    shutil.copytree(CORPUS, repo, ignore=shutil.ignore_patterns("expect.yaml"))
    return repo


def _replace(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text, old
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def test_corpus_reads_clean_with_every_client_key_on_its_line():
    repo = configrepo.load([str(CORPUS)])
    roles = {Path(f.path).relative_to(CORPUS).as_posix(): f.role for f in repo.files}
    assert roles == {"cfk/connectors.yaml": "cfk", SOURCE_JSON: "connector", "connectors/events-s3-sink.json": "connector",
                     "connectors/ledger-snowflake-sink.properties": "connector", STRIMZI: "strimzi",
                     WORKER: "connect-worker", "kafka-version": "kafka-version"}
    source = CORPUS / SOURCE_JSON
    linger = next(e for e in repo.entries if e.path == str(source) and e.name == "linger.ms")
    assert (linger.scope, linger.value, linger.line) == ("producer", 50, line_of(source, "producer.override.linger.ms"))
    sink = next(e for e in repo.entries if e.resource == "KafkaConnector inventory-postgres-sink (cluster integration-connect)"
                and e.name == "max.poll.records")
    assert (sink.scope, sink.value, sink.line) == ("consumer", 2000, line_of(CORPUS / STRIMZI, "consumer.override.max.poll"))
    worker = next(e for e in repo.entries if e.path == str(CORPUS / WORKER) and e.name == "compression.type")
    assert (worker.scope, worker.value) == ("producer", "lz4")
    tasks = {e.resource: e.value for e in repo.entries if e.name == "tasks.max"}
    assert tasks["connector events-s3-sink"] == 6 and tasks["Connector clickstream-elastic-sink (cluster connect)"] == 3
    assert not cliffs.evaluate(repo, cliffs.load_rules())


@pytest.mark.parametrize("name, old, new", [
    (SOURCE_JSON, '"producer.override.linger.ms"', '"producer.override.linger.msec"'),
    (STRIMZI, "producer.override.linger.ms: 25", "producer.override.linger.msec: 25"),
])
def test_override_typo_names_file_line_and_the_right_key(tmp_path: Path, name: str, old: str, new: str):
    repo = _copy(tmp_path)
    _replace(repo / name, old, new)
    _replace(repo / WORKER, "consumer.max.poll.records=1000", "consumer.max.poll.record=1000")
    with pytest.raises(InputError) as raised:
        configrepo.load([str(repo)])
    problems = {(p.path, p.line): p.message for p in raised.value.problems}
    typo = problems[(str(repo / name), line_of(repo / name, "linger.msec"))]
    assert "'linger.msec' (producer.override.linger.msec)" in typo
    assert "did you mean 'linger.ms' (producer.override.linger.ms)?" in typo
    worker = problems[(str(repo / WORKER), line_of(repo / WORKER, "max.poll.record="))]  # every bad input in one run
    assert "did you mean 'max.poll.records' (consumer.max.poll.records)?" in worker


@pytest.mark.parametrize("name, old, new", [
    (SOURCE_JSON, '"producer.override.max.in.flight.requests.per.connection": "5"',
     '"producer.override.max.in.flight.requests.per.connection": "1"'),
    (STRIMZI, "    producer.override.acks: all\n",
     "    producer.override.acks: all\n    producer.override.max.in.flight.requests.per.connection: 1\n"),
])
def test_inflight_override_is_linted_on_its_line(tmp_path: Path, name: str, old: str, new: str):
    repo_dir = _copy(tmp_path)
    path = repo_dir / name
    _replace(path, old, new)
    if name == SOURCE_JSON:  # idempotence needs up to 5 in flight anyway; this connector turns it off
        _replace(path, '"producer.override.enable.idempotence": "true"', '"producer.override.enable.idempotence": "false"')
    matches = cliffs.evaluate(configrepo.load([str(repo_dir)]), cliffs.load_rules())
    found = {(m.rule.id, m.path, m.line) for m in matches}
    assert ("inflight-one", str(path), line_of(path, "producer.override.max.in.flight.requests.per.connection")) in found


def _policy_repo(tmp_path: Path, policy: str, override: str) -> Path:
    write(tmp_path, "connect-distributed.properties", "group.id=c\nconfig.storage.topic=c-configs\n"
                                                      f"connector.client.config.override.policy={policy}\n")
    write(tmp_path, "sink.json", json.dumps({"name": "s", "config": {
        "connector.class": "org.example.Sink", "topics": "t", override: "x"}}, indent=2))
    return tmp_path


@pytest.mark.parametrize("policy, override, refused", [
    ("None", "consumer.override.client.rack", True),
    ("Principal", "consumer.override.client.rack", True),
    ("Principal", "consumer.override.sasl.mechanism", False),
    ("All", "consumer.override.client.rack", False),
])
def test_the_workers_policy_refuses_what_connect_refuses(tmp_path: Path, policy: str, override: str, refused: bool):
    repo = _policy_repo(tmp_path, policy, override)
    if not refused:
        configrepo.load([str(repo)])
        return
    with pytest.raises(InputError) as raised:
        configrepo.load([str(repo)])
    (problem,) = raised.value.problems
    assert problem.path == str(repo / "sink.json") and problem.line == line_of(repo / "sink.json", override)
    assert f"connector.client.config.override.policy={policy}" in problem.message


def test_scenario_carries_the_connectors_overrides_over_the_workers_and_connects():
    repo = configrepo.load([str(CORPUS)])
    source = configrepo.to_scenario(repo, producer=str(CORPUS / SOURCE_JSON))
    producer = source.as_applied()["producer"]
    # the connector's own overrides
    assert (producer["compression.type"], producer["linger.ms"], producer["batch.size"]) == ("zstd", 50, 262144)
    assert producer["max.in.flight.requests.per.connection"] == 5 and producer["enable.idempotence"] is True
    # the worker's producer.* where the connector does not override (buffer.memory), Connect's acks=all
    assert producer["buffer.memory"] == 67108864 and producer["acks"] == "all"
    assert source.producers == 1  # tasks.max 1


def test_worker_alone_measures_connects_own_producer(tmp_path: Path):
    repo_dir = _copy(tmp_path)
    repo = configrepo.load([str(repo_dir)])
    worker = configrepo.to_scenario(repo, producer=str(repo_dir / WORKER)).as_applied()["producer"]
    # Connect's Worker sets one request in flight and idempotence off for every task's producer
    assert worker["max.in.flight.requests.per.connection"] == 1 and worker["enable.idempotence"] is False
    assert (worker["compression.type"], worker["linger.ms"]) == ("lz4", 20)
    strimzi = configrepo.to_scenario(repo, producer=str(repo_dir / STRIMZI))
    producer = strimzi.as_applied()["producer"]
    # the KafkaConnector's overrides over its KafkaConnect's producer.* (not the properties worker's)
    assert (producer["compression.type"], producer["linger.ms"], producer["batch.size"]) == ("zstd", 25, 131072)


def test_tasks_max_is_the_producers_measured(tmp_path: Path):
    write(tmp_path, "source.json", json.dumps({"name": "src", "config": {
        "connector.class": "org.example.Source", "tasks.max": "4", "producer.override.linger.ms": "5"}}, indent=2))
    scenario = configrepo.to_scenario(configrepo.load([str(tmp_path)]))
    assert scenario.producers == 4 and scenario.as_applied()["producer"]["linger.ms"] == 5
    assert any("Connect's own" in note for note in scenario.notes)


def test_mirror_maker2_connectors_and_worker(tmp_path: Path):
    write(tmp_path, "mm2.yaml", """\
apiVersion: kafka.strimzi.io/v1beta2
kind: KafkaMirrorMaker2
metadata:
  name: dr
spec:
  connectCluster: backup
  clusters:
    - alias: primary
      bootstrapServers: primary:9092
    - alias: backup
      bootstrapServers: backup:9092
      config:
        config.storage.replication.factor: -1
        producer.linger.ms: 10
  mirrors:
    - sourceCluster: primary
      targetCluster: backup
      sourceConnector:
        tasksMax: 8
        config:
          replication.factor: 3
          producer.override.batch.size: 327680
      checkpointConnector:
        config:
          checkpoints.topic.replication.factor: 3
""")
    repo = configrepo.load([str(tmp_path)])
    batch = next(e for e in repo.entries if e.name == "batch.size")
    assert batch.resource == "KafkaMirrorMaker2 dr primary->backup MirrorSourceConnector (cluster dr)"
    producer = configrepo.to_scenario(repo)
    assert producer.as_applied()["producer"]["linger.ms"] == 10 and producer.producers == 8


def test_discovery_by_content(tmp_path: Path):
    flat = write(tmp_path, "a.json", '{"connector.class": "x", "tasks.max": "1"}')
    other = write(tmp_path, "package.json", '{"name": "web"}')
    worker = write(tmp_path, "workers/prod.properties", "group.id=g\nconfig.storage.topic=t\n")
    standalone = write(tmp_path, "connect-standalone.properties", "offset.storage.file.filename=/tmp/o\n")
    connector = write(tmp_path, "file-source.properties", "name=f\nconnector.class=FileStreamSource\n")
    assert [connect_files.file_role(p) for p in (flat, other, worker, standalone, connector)] == [
        "connector", None, "connect-worker", "connect-worker", "connector"]
    assert file_role(worker) == "connect-worker"


def _head(tmp_path: Path, old: str, new: str) -> tuple[Path, Path]:
    base, head = _copy(tmp_path / "base"), _copy(tmp_path / "head")
    _replace(head / STRIMZI, old, new)
    return base, head


def test_check_sees_an_override_change_on_its_line(tmp_path: Path):
    """What `check` decides from (configrepo.diff): the head's override is a producer change on its line."""
    base, head = _head(tmp_path, "producer.override.linger.ms: 25", "producer.override.linger.ms: 500")
    sides = [configrepo.load([str(side)]) for side in (base, head)]
    scenarios = [configrepo.to_scenario(repo, producer=str(side / STRIMZI)) for repo, side in zip(sides, (base, head))]
    assert configrepo.changed_kinds(*scenarios) == {ChangeKind.PRODUCER}
    changes = configrepo.setting_changes(*(configrepo.measured_entries(repo, producer=str(side / STRIMZI))
                                           for repo, side in zip(sides, (base, head))), str(base), str(head), sides[1].files)
    assert [(c.name, c.base, c.head, c.line) for c in changes] == [
        ("linger.ms", 25, 500, line_of(head / STRIMZI, "producer.override.linger.ms"))]


def test_inflight_one_where_connect_already_runs_one_changes_nothing_measured(tmp_path: Path):
    """Connect's Worker gives every task's producer one request in flight unless the worker or the connector
    says otherwise: writing it out is linted on its line, but measures the same producer as before."""
    base, head = _head(tmp_path, "    producer.override.acks: all\n",
                       "    producer.override.acks: all\n    producer.override.max.in.flight.requests.per.connection: 1\n")
    scenarios = [configrepo.to_scenario(configrepo.load([str(side)]), producer=str(side / STRIMZI)) for side in (base, head)]
    assert scenarios[0].as_applied()["producer"]["max.in.flight.requests.per.connection"] == 1
    assert configrepo.changed_kinds(*scenarios) == frozenset()


def test_kcliff_yaml_names_a_connector_to_measure(tmp_path: Path):
    repo_dir = _copy(tmp_path)
    _replace(repo_dir / STRIMZI, "tasksMax: 1", "tasksMax: 3")
    write(repo_dir, "kcliff.yaml", f"version: 1\nmeasure:\n  producer: {STRIMZI}\nproducers:\n  {STRIMZI}:\n"
                                   "    rate: 500 records/s\n")
    scenario = configrepo.to_scenario(configrepo.load([str(repo_dir)]))
    assert scenario.as_applied()["producer"]["linger.ms"] == 25 and scenario.rate is not None
    assert scenario.producers == 3  # inventory-mysql-source's tasksMax, kcliff.yaml saying no instances
    (repo_dir / "kcliff.yaml").write_text(f"version: 1\nproducers:\n  {STRIMZI}:\n    instances: 2\n")
    assert configrepo.to_scenario(configrepo.load([str(repo_dir)]), producer=str(repo_dir / STRIMZI)).producers == 2


def test_cfk_connect_is_its_connectors_worker(tmp_path: Path):
    write(tmp_path, "connect.yaml", """\
apiVersion: platform.confluent.io/v1beta1
kind: Connect
metadata:
  name: connect
spec:
  replicas: 2
  configOverrides:
    server:
      - group.id=connect
      - producer.linger.ms=15
      - connector.client.config.override.policy=Principal
---
apiVersion: platform.confluent.io/v1beta1
kind: Connector
metadata:
  name: src
spec:
  class: org.example.Source
  taskMax: 2
  connectClusterRef:
    name: connect
  configs:
    producer.override.batch.size: "65536"
""")
    with pytest.raises(InputError) as raised:
        configrepo.load([str(tmp_path)])
    assert "policy=Principal at " in raised.value.problems[0].message
    _replace(tmp_path / "connect.yaml", "=Principal", "=All")
    scenario = configrepo.to_scenario(configrepo.load([str(tmp_path)]))
    producer = scenario.as_applied()["producer"]
    assert (producer["linger.ms"], producer["batch.size"], scenario.producers) == (15, 65536, 2)

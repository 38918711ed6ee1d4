"""Helm values of Bitnami's kafka chart and cp-helm-charts' cp-kafka, read as the charts' templates
render them: each setting on its line of the values file, the chart version deciding which keys count,
what Helm or Kafka would refuse (a number printed in exponent form, a string-only key given a number)
bad input on its line, all of a file's at once, and values that are not literals noted."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from conftest import ROOT, run_kcliff
from kcliff import configrepo
from kcliff.configrepo import helm
from kcliff.configrepo.helm_cp_kafka import broker_key
from kcliff.configrepo.helm_values import go_float
from kcliff.errors import InputError
from repo_files import line_of, write

EXAMPLE = ROOT / "examples" / "helm-repo"

UMBRELLA = """\
apiVersion: v2
name: events
version: 0.3.0
dependencies:
  - name: kafka
    version: {version}
    repository: oci://registry-1.docker.io/bitnamicharts
    alias: broker
    condition: broker.enabled
  - name: redis
    version: 20.6.2
    repository: oci://registry-1.docker.io/bitnamicharts
"""

# Chart 24-31 values as teams keep them: the chart-wide extraConfig, the controller-eligible nodes' own,
# extraConfigYaml over both, a templated line, a Flux-substituted value.
SPLIT = """\
broker:
  enabled: true
  ## @param extraConfig Additional configuration appended to the generated configuration
  extraConfig: |
    # written first
    num.io.threads=8
    log.retention.hours=72
    num.network.threads={{ .Values.networkThreads }}
    log.segment.bytes=${SEGMENT_BYTES}
  extraConfigYaml:
    num.io.threads: 12
    log.cleaner.threads: 2
  controller:
    replicaCount: 3
    extraConfig: |-
      replica.lag.time.max.ms=20000
    extraConfigYaml:
      log.cleaner.threads: 3
redis:
  architecture: standalone
"""


def read(path: Path, role: str = "bitnami-kafka") -> configrepo.ReadResult:
    return helm.HelmValuesReader().read(path, role)


def umbrella(root: Path, values: str, version: str = "31.4.0") -> Path:
    write(root, "Chart.yaml", UMBRELLA.format(version=version))
    return write(root, "values.yaml", values)


def broker(result: configrepo.ReadResult) -> list[tuple[str, str, int | None]]:
    return [(e.name, e.raw, e.line) for e in result.entries if e.scope == "broker"]


def notes(result: configrepo.ReadResult) -> dict[int | None, str]:
    found: dict[int | None, str] = {}
    for n in result.notes:
        found[n.line] = found.get(n.line, "") + n.message + " | "
    return found


def test_extra_config_lines_are_read_on_their_lines_in_the_order_the_chart_appends_them(tmp_path):
    path = umbrella(tmp_path, SPLIT)
    result = read(path)
    assert broker(result) == [
        ("num.io.threads", "8", line_of(path, "num.io.threads=8")),
        ("log.retention.hours", "72", line_of(path, "log.retention.hours=72")),
        ("replica.lag.time.max.ms", "20000", line_of(path, "replica.lag.time.max.ms")),
        ("num.io.threads", "12", line_of(path, "num.io.threads: 12")),  # extraConfigYaml comes last: it wins
        ("log.cleaner.threads", "2", line_of(path, "log.cleaner.threads: 2")),
        ("log.cleaner.threads", "3", line_of(path, "log.cleaner.threads: 3")),  # the group's over the chart-wide
    ]
    assert {e.resource for e in result.entries} == {"broker (Bitnami kafka): controller-eligible nodes"}
    found = notes(result)
    assert "Helm templating" in found[line_of(path, "num.network.threads=")]
    assert "substituted later" in found[line_of(path, "log.segment.bytes=")]
    assert result.kafka_version is not None and result.kafka_version.version == "3.9.0"
    assert (result.kafka_version.path, result.kafka_version.line) == (str(tmp_path / "Chart.yaml"), 6)


def test_the_last_value_of_a_key_wins_as_in_the_rendered_file(tmp_path):
    umbrella(tmp_path, SPLIT)
    repo = configrepo.load([str(tmp_path)])
    values = {e.name: e.value for e in repo.in_scope("broker")}
    assert values["num.io.threads"] == 12 and values["log.cleaner.threads"] == 3
    assert any("'num.io.threads' is set again" in n.message for n in repo.notes)


def test_config_replaces_what_the_chart_generates_and_existing_configmaps_are_noted(tmp_path):
    path = umbrella(tmp_path, """\
broker:
  config: |
    num.io.threads=16
    num.partitions=12
  extraConfig: |
    num.io.threads=4
  broker:
    replicaCount: 3
    existingConfigmap: kafka-broker-properties
""")
    result = read(path)
    assert [(n, r) for n, r, _ in broker(result)] == [("num.io.threads", "16"), ("num.partitions", "12")]
    found = notes(result)
    assert "ignores broker.extraConfig" in found[line_of(path, "config: |")]
    assert "ConfigMap 'kafka-broker-properties'" in found[line_of(path, "existingConfigmap")]


def test_dedicated_controllers_and_absent_broker_nodes_configure_no_broker(tmp_path):
    path = umbrella(tmp_path, """\
broker:
  extraConfig: |
    num.io.threads=8
  controller:
    controllerOnly: true
    extraConfig: |
      controller.quorum.fetch.timeout.ms=3000
  broker:
    replicaCount: 3
    extraConfig: |
      num.network.threads=6
""")
    result = read(path)
    assert [(n, r) for n, r, _ in broker(result)] == [("num.io.threads", "8"), ("num.network.threads", "6")]
    assert {e.resource for e in result.entries} == {"broker (Bitnami kafka): broker-only nodes"}
    assert "dedicated KRaft controllers" in notes(result)[line_of(path, "extraConfig: |", 4)]


def test_chart_32_reads_override_configuration_over_config(tmp_path):
    path = umbrella(tmp_path, """\
broker:
  config:
    num.io.threads: 8
  overrideConfiguration:
    num.io.threads: 10
    message.max.bytes: 2097152
    auto.create.topics.enable: false
  controller:
    overrideConfiguration: |
      num.network.threads: 7
  extraConfig: |
    num.io.threads=1
""", version="^32.0.0")
    result = read(path)
    assert broker(result) == [
        ("num.io.threads", "8", 3), ("num.io.threads", "10", 5), ("message.max.bytes", "2097152", 6),
        ("auto.create.topics.enable", "false", 7), ("num.network.threads", "7", 10)]
    warning = notes(result)[line_of(path, "extraConfig")]
    assert "chart 24-31" in warning and "read as chart 32 (chart version ^32.0.0)" in warning
    assert result.kafka_version is not None and result.kafka_version.version.startswith("4.0.")


CHART_23 = """\
## Chart 23 values, copied from its values.yaml and edited
deleteTopicEnable: true
logFlushIntervalMessages: _20000
logRetentionBytes: "_10737418240"
logRetentionHours: 72
maxMessageBytes: _2097152
numPartitions: 6
defaultReplicationFactor: 3
superUsers: User:admin;User:orders
image:
  tag: 3.5.1-debian-11-r72
extraEnvVars:
  - name: KAFKA_CFG_NUM_REPLICA_FETCHERS
    value: "2"
"""


def test_chart_23_camel_case_keys_are_broker_settings(tmp_path):
    write(tmp_path, "Chart.yaml", "apiVersion: v2\nname: kafka\nversion: 23.0.7\nhome: https://bitnami.com\n")
    path = write(tmp_path, "values-staging.yaml", CHART_23)
    result = read(path)
    assert broker(result) == [
        ("delete.topic.enable", "true", 2), ("log.flush.interval.messages", "20000", 3),
        ("log.retention.bytes", "10737418240", 4), ("log.retention.hours", "72", 5), ("message.max.bytes", "2097152", 6),
        ("default.replication.factor", "3", 8), ("num.partitions", "6", 7), ("super.users", "User:admin;User:orders", 9)]
    found = notes(result)
    assert "transaction.state.log.min.isr=1" in found[2] and "log.flush.interval.ms=1000" in found[2]
    assert "not read them here yet" in found[line_of(path, "extraEnvVars")]
    assert result.kafka_version is not None and result.kafka_version.version == "3.5.1"  # the image tag's


def test_chart_23_refuses_what_helm_would_and_reports_every_one(tmp_path):
    write(tmp_path, "Chart.yaml", "apiVersion: v2\nname: kafka\nversion: 22.1.6\nsources: [https://github.com/bitnami/charts]\n")
    path = write(tmp_path, "values.yaml", """\
logFlushIntervalMessages: 1
logRetentionHours: 1000000
socketSendBufferBytes: 1048576
numIoThreads: 8
provisioning:
  topics:
    - name: orders
      partitions: 3
      config:
        retention.ms: 604800000
""")
    with pytest.raises(InputError) as caught:
        read(path)
    expected = {1: 'which takes a string, so helm refuses 1 ("wrong type for value; expected string"); write it as '
                   'a string: "1"', 2: "1000000 reaches Kafka as 1e+06", 3: "1048576 reaches Kafka as 1.048576e+06",
                10: "604800000 reaches Kafka as 6.048e+08"}
    found = {p.line: p.message for p in caught.value.problems}
    assert set(found) == set(expected) and all(expected[n] in found[n] for n in expected), found


def test_config_replaces_the_camel_case_keys_of_chart_23(tmp_path):
    write(tmp_path, "Chart.yaml", "apiVersion: v2\nname: kafka\nversion: 23.0.7\nhome: https://bitnami.com\n")
    path = write(tmp_path, "values.yaml", "numIoThreads: 4\nconfig: |\n  num.io.threads=16\n")
    result = read(path)
    assert broker(result) == [("num.io.threads", "16", 3)]
    assert "ignores numIoThreads" in notes(result)[1]


def test_without_a_chart_version_the_keys_say_which_chart_reads_them(tmp_path):
    path = write(tmp_path, "values.yaml", "numIoThreads: 4\nextraConfig: |\n  num.io.threads=16\nExtraConfigYaml: {}\n")
    result = read(path)  # no Chart.yaml: read as kcliff.yaml maps it, role bitnami-kafka
    assert broker(result) == [("num.io.threads", "16", 3)]
    found = notes(result)
    assert "numIoThreads is a key of Bitnami's kafka chart 20-23" in found[1]
    assert "extraConfig at line 2 is a chart 24-31 key" in found[1]
    assert "did you mean extraConfigYaml?" in found[4]
    assert result.kafka_version is None


def test_provisioning_topics_fall_back_as_the_job_does(tmp_path):
    path = umbrella(tmp_path, """\
broker:
  provisioning:
    numPartitions: 6
    topics:
      - name: orders
        partitions: 24
        replicationFactor: 3
        config:
          flush.messages: 1
          retention.ms: "604800000"
      - name: audit
        replication_factor: 3
      - name: orders
        partitions: 1
""")
    result = read(path)
    topics = {(e.topic, e.name): (e.raw, e.line) for e in result.entries if e.scope == "topic"}
    assert topics == {("orders", "partitions"): (24, 6), ("orders", "replication.factor"): (3, 7),
                      ("orders", "flush.messages"): ("1", 9), ("orders", "retention.ms"): ("604800000", 10),
                      ("audit", "partitions"): (6, 3)}  # provisioning.numPartitions
    assert [t.name for t in result.topics] == ["orders", "audit"]
    found = notes(result)
    assert "provisioning.enabled is not set here" in found[4]
    assert "replication factor 1 (its default)" in found[11]
    assert "replication_factor: not a key the chart reads" in found[12]
    assert "listed again (first at line 5)" in found[13]


def test_a_topic_without_a_partition_count_is_read_but_not_measured(tmp_path):
    umbrella(tmp_path, "broker:\n  provisioning:\n    enabled: true\n    topics:\n      - name: events\n")
    repo = configrepo.load([str(tmp_path)])
    with pytest.raises(InputError, match="the chart's default \\(1\\) applies"):
        configrepo.to_scenario(repo, "head", topic="events")


def test_provisioning_switched_off_and_a_dependency_switched_off_are_not_read(tmp_path):
    path = umbrella(tmp_path, "broker:\n  provisioning:\n    enabled: false\n    topics:\n      - name: a\n")
    assert read(path).topics == []
    path = umbrella(tmp_path, "broker:\n  enabled: false\n  extraConfig: |\n    num.io.threads=1\n")
    result = read(path)
    assert result.entries == [] and "broker.enabled is false" in notes(result)[2]


@pytest.mark.parametrize("number, printed", [
    (1000000, "1e+06"), (1048576, "1.048576e+06"), (604800000, "6.048e+08"), (999999, "999999"),
    (100000, "100000"), (0.5, "0.5"), (0.00001, "1e-05"), (-2000000, "-2e+06"), (0, "0"), (1.5e21, "1.5e+21"),
])
def test_numbers_print_as_go_prints_a_float64(number, printed):
    assert go_float(number) == printed


# --- cp-helm-charts -----------------------------------------------------------------------------------

@pytest.mark.parametrize("written, received", [
    ("offsets.topic.replication.factor", "offsets.topic.replication.factor"),
    ("listener.name.internal.scram-sha-256.sasl.jaas.config", "listener.name.internal.scram-sha-256.sasl.jaas.config"),
    ("Num.IO.Threads", "num.io.threads"), ("log_retention_hours", "log.retention.hours"), ("a._b", "a_b"),
    ("a..b", "a_b"), ("a...b", "a-b"),
])
def test_a_configuration_overrides_key_reaches_the_broker_as_the_image_reads_its_variable(written, received):
    assert broker_key(written) == received


CP_UMBRELLA = """\
cp-zookeeper:
  imageTag: 7.6.1
cp-kafka:
  enabled: true
  image: confluentinc/cp-server
  imageTag: 7.6.1
  configurationOverrides:
    "offsets.topic.replication.factor": "3"
    "num.partitions": 12
    "Log.Flush.Interval.Messages": 1
    "advertised.listeners": EXTERNAL://${HOST_IP}:31090
    "confluent.balancer.enable": true
cp-schema-registry:
  configurationOverrides:
    "kafkastore.topic.replication.factor": 3
"""


def test_cp_kafka_configuration_overrides_are_read_under_the_umbrella(tmp_path):
    write(tmp_path, "Chart.yaml", "apiVersion: v1\nname: cp-helm-charts\nversion: 0.6.1\n")
    write(tmp_path, "requirements.yaml", "dependencies:\n- name: cp-kafka\n  version: 0.1.0\n"
                                         "  repository: file://./charts/cp-kafka\n  condition: cp-kafka.enabled\n")
    path = write(tmp_path, "values.yaml", CP_UMBRELLA)
    result = read(path, "cp-kafka")
    assert broker(result) == [("offsets.topic.replication.factor", "3", 8), ("num.partitions", "12", 9),
                              ("log.flush.interval.messages", "1", 10), ("confluent.balancer.enable", "true", 12)]
    found = notes(result)
    assert "KAFKA_LOG_FLUSH_INTERVAL_MESSAGES, which the image reads as 'log.flush.interval.messages'" in found[10]
    assert "not a literal" in found[11]
    assert result.kafka_version is not None and result.kafka_version.version == "3.6.2"
    assert "Confluent Platform 7.6, which ships Kafka 3.6" in found[6]


def test_cp_kafka_switched_off_and_an_old_platform_are_noted(tmp_path):
    path = write(tmp_path, "values.yaml", "cp-kafka:\n  enabled: false\n  configurationOverrides:\n    a: 1\n")
    result = read(path, "cp-kafka")  # mapped with no Chart.yaml: found under cp-kafka
    assert result.entries == [] and "installs no brokers" in notes(result)[2]
    path = write(tmp_path, "values.yaml", "imageTag: 6.1.0\nconfigurationOverrides:\n  log.retention.bytes: 1073741824\n")
    with pytest.raises(InputError, match="1073741824 reaches Kafka as 1.073741824e\\+09"):
        read(path, "cp-kafka")


# --- which files are values of a Kafka chart --------------------------------------------------------

def test_values_are_read_only_beside_a_chart_that_names_a_kafka_chart(tmp_path):
    umbrella(tmp_path / "platform", SPLIT)
    write(tmp_path / "platform", "values-prod.yaml", "broker:\n  extraConfigYaml:\n    num.io.threads: 16\n")
    write(tmp_path / "platform", "templates/configmap.yaml", "apiVersion: v1\nkind: ConfigMap\n")
    # an application's chart: its kafka section says where the service connects
    write(tmp_path / "orders", "Chart.yaml", "apiVersion: v2\nname: orders\nversion: 1.0.0\n")
    write(tmp_path / "orders", "values.yaml", "kafka:\n  bootstrapServers: kafka:9092\n  extraConfig: linger.ms=5\n")
    # someone's own chart called kafka, and a kafka dependency from a repository that is not Bitnami's
    write(tmp_path / "own", "Chart.yaml", "apiVersion: v2\nname: kafka\nversion: 0.1.0\n")
    write(tmp_path / "own", "values.yaml", "extraConfig: |\n  foo=bar\n")
    write(tmp_path / "mirror", "Chart.yaml", "apiVersion: v2\nname: x\nversion: 1.0.0\ndependencies:\n  - name: kafka\n"
                                              "    version: 1.0.0\n    repository: https://charts.example.com\n")
    write(tmp_path / "mirror", "values.yaml", "kafka:\n  extraConfig: |\n    foo=bar\n")
    files, found, _ = configrepo.discover([str(tmp_path)])
    assert [(Path(f.path).relative_to(tmp_path).as_posix(), f.role, f.format) for f in files] == [
        ("platform/values-prod.yaml", "bitnami-kafka", "helm-values"),
        ("platform/values.yaml", "bitnami-kafka", "helm-values")]
    hints = sorted(Path(n.path).relative_to(tmp_path).as_posix() for n in found if "looks like Helm values" in n.message)
    assert hints == ["mirror/values.yaml", "orders/values.yaml", "own/values.yaml"]


def test_a_chart_file_that_is_a_link_names_no_chart(tmp_path):
    outside = write(tmp_path, "outside/Chart.yaml", UMBRELLA.format(version="31.4.0"))
    write(tmp_path, "repo/kafka/values.yaml", SPLIT)
    (tmp_path / "repo/kafka/Chart.yaml").symlink_to(outside)
    with pytest.raises(InputError, match="no Kafka config files found"):
        configrepo.discover([str(tmp_path / "repo")])


def test_kcliff_yaml_maps_a_values_file_kept_apart_from_its_chart(tmp_path):
    write(tmp_path, "kcliff.yaml", "version: 1\nfiles:\n  - {path: env/prod/kafka.yaml, role: bitnami-kafka}\n")
    path = write(tmp_path, "env/prod/kafka.yaml", "kafka:\n  extraConfig: |\n    num.io.threads=8\n")
    repo = configrepo.load([str(tmp_path)])
    assert [(e.name, e.value, e.line) for e in repo.in_scope("broker")] == [("num.io.threads", 8, 3)]
    assert any("read under kafka" in n.message for n in repo.notes if n.path == str(path))


# --- the real CLI ------------------------------------------------------------------------------------

def edited_example(tmp_path: Path, old: str, new: str) -> Path:
    """A copy of the example repo (a git checkout, so annotations name files relative to it) whose
    kafka/values.yaml has `old` replaced by `new`; the values file's path."""
    repo = tmp_path / "repo"
    shutil.copytree(EXAMPLE, repo)
    (repo / ".git").mkdir()
    values = repo / "kafka" / "values.yaml"
    values.write_text(values.read_text().replace(old, new))
    return values


def test_the_example_lints_clean_and_names_its_kafka_version():
    done = run_kcliff("lint", "--verbose", str(EXAMPLE))
    assert (done.returncode, "0 error(s), 0 warning(s) in 1 file(s)" in done.stdout) == (0, True), done.stdout
    assert "chart 31.4.0 ships Kafka 3.9" in done.stdout


def test_the_example_is_measured_as_its_values_say():
    scenario = configrepo.to_scenario(configrepo.load([str(EXAMPLE)]), "head")
    assert scenario.topic == {"partitions": 12, "retention.ms": 604800000, "segment.bytes": 268435456}
    assert scenario.broker["num.io.threads"] == 10 and scenario.broker["replica.lag.time.max.ms"] == 30000
    assert scenario.durability == {"topic": {"replication.factor": 3, "min.insync.replicas": 2},
                                   "broker": {"min.insync.replicas": 2}}


def test_lint_annotates_flush_1_in_extra_config_on_its_line(tmp_path):
    values = edited_example(tmp_path, "    # Threads and sockets\n",
                            "    log.flush.interval.messages=1\n    # Threads and sockets\n")
    done = run_kcliff("lint", "--format", "github", "repo", cwd=tmp_path)
    annotations = [line for line in done.stdout.splitlines() if line.startswith("::")]
    assert done.returncode == 1 and len(annotations) == 1, done.stdout + done.stderr
    assert annotations[0].startswith(f"::error file=kafka/values.yaml,line="
                                     f"{line_of(values, 'log.flush.interval.messages=1')},title=kcliff flush-every-message")


def test_lint_of_a_typo_in_extra_config_exits_2_naming_file_and_line(tmp_path):
    values = edited_example(tmp_path, "unclean.leader.election.enable", "unclean.leader.lection.enable")
    done = run_kcliff("lint", str(tmp_path / "repo"))
    assert done.returncode == 2, done.stdout + done.stderr
    assert f"{values}:{line_of(values, 'unclean.leader.lection')}: unknown broker setting" in done.stderr
    assert "did you mean 'unclean.leader.election.enable'" in done.stderr and "Traceback" not in done.stderr

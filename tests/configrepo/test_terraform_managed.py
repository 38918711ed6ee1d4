"""Managed Kafka services' Terraform as a config repo: Aiven's kafka_user_config.kafka block (its
snake_case names as Kafka's keys, kafka_version as the release), Confluent Cloud's
confluent_kafka_cluster_config (only the settings Confluent Cloud lets a cluster change) and
DigitalOcean's digitalocean_database_kafka_config (its cluster's version as the release), each setting
on its own .tf line; variables noted, not guessed; what the provider refuses is bad input on its line,
all of a file's at once; a Postgres cluster is not taken for Kafka; lint on the example's line."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from conftest import ROOT, run_kcliff
from kcliff import configrepo
from kcliff.configrepo import terraform
from kcliff.errors import InputError
from repo_files import line_of, write

EXAMPLE = ROOT / "examples" / "managed-terraform-repo"

AIVEN = '''\
resource "aiven_kafka" "events" {
  project      = var.aiven_project
  cloud_name   = "google-europe-west1"
  plan         = "business-4"
  service_name = "events"

  kafka_user_config {
    kafka_version   = "3.8"
    schema_registry = true

    kafka {
      auto_create_topics_enable   = false
      num_partitions              = 6
      log_retention_hours         = 168
      log_flush_interval_messages = 1
      min_insync_replicas         = 2
      log_cleaner_min_cleanable_ratio = 0.5
      message_max_bytes           = var.max_message_bytes

      audit_log {
        record_type = "user_activity"
      }
    }

    kafka_rest_config {
      producer_acks = "1"
    }
  }
}
'''

CONFLUENT = '''\
resource "confluent_kafka_cluster_config" "orders" {
  kafka_cluster {
    id = confluent_kafka_cluster.dedicated.id
  }
  rest_endpoint = confluent_kafka_cluster.dedicated.rest_endpoint
  config = {
    "auto.create.topics.enable" = "false"
    "num.partitions"            = 12
    "log.retention.ms"          = local.retention_ms
  }
}
'''

DIGITALOCEAN = '''\
resource "digitalocean_database_cluster" "kafka" {
  name       = "events"
  engine     = "kafka"
  version    = "3.7"
  size       = "db-s-2vcpu-4gb"
  region     = "nyc3"
  node_count = 3
}

resource "digitalocean_database_kafka_config" "kafka" {
  cluster_id                = digitalocean_database_cluster.kafka.id
  log_retention_hours       = 72
  auto_create_topics_enable = true
  message_max_bytes         = 2097152
  log_flush_interval_ms     = "-1"
}
'''


def _read(path: Path) -> configrepo.ReadResult:
    return terraform.TerraformReader().read(path, "terraform")


def _broker(result: configrepo.ReadResult) -> dict[str, tuple[str, int | None]]:
    return {e.name: (e.raw, e.line) for e in result.entries if e.scope == "broker"}


def test_aivens_kafka_block_is_read_as_broker_settings_each_on_its_line(tmp_path):
    path = write(tmp_path, "kafka.tf", AIVEN)
    result = _read(path)
    found = _broker(result)
    assert found["log.flush.interval.messages"] == ("1", line_of(path, "log_flush_interval_messages"))
    assert found["auto.create.topics.enable"] == ("false", line_of(path, "auto_create_topics_enable"))
    assert found["log.cleaner.min.cleanable.ratio"][0] == "0.5"
    assert "message.max.bytes" not in found
    assert result.kafka_version is not None and result.kafka_version.version == "3.8.1"
    notes = {n.line: n.message for n in result.notes}
    assert "var.max_message_bytes: not a literal" in notes[line_of(path, "message_max_bytes")]
    assert "audit logging" in notes[line_of(path, "audit_log")]
    assert "REST proxy" in notes[line_of(path, "kafka_rest_config")]


def test_lint_of_aiven_flags_the_cliff_on_its_tf_line(tmp_path):
    write(tmp_path, "kafka.tf", AIVEN)
    repo = configrepo.load([str(tmp_path)])
    assert repo.kafka_version is not None and repo.kafka_version.version == "3.8.1"
    assert [e.value for e in repo.in_scope("broker") if e.name == "log.flush.interval.messages"] == [1]


def test_what_the_providers_refuse_is_bad_input_on_its_line_all_at_once(tmp_path):
    path = write(tmp_path, "kafka.tf", AIVEN.replace("      num_partitions ", "      num_partition ")
                 + CONFLUENT.replace('"log.retention.ms"', '"num.io.threads"')
                 + DIGITALOCEAN.replace("log_retention_hours  ", "log_flush_interval_messages = 1\n  log_retention_hours  ")
                 + 'resource "confluent_kafka_cluster_config" "empty" {\n  config = {}\n}\n')
    with pytest.raises(InputError) as caught:
        _read(path)
    found = {p.line: p.message for p in caught.value.problems}
    assert "did you mean 'num_partitions'" in found[line_of(path, "num_partition ")]
    assert "read-only cluster setting on Confluent Cloud" in found[line_of(path, '"num.io.threads"')]
    assert "'log.flush.interval.messages' is a Kafka setting this service does not let you set" in \
        found[line_of(path, "log_flush_interval_messages = 1", line_of(path, "digitalocean_database_kafka_config"))]
    assert "config is empty" in found[line_of(path, "config = {}")]


def test_confluent_clouds_cluster_config_reads_its_editable_settings(tmp_path):
    path = write(tmp_path, "cluster.tf", CONFLUENT)
    result = _read(path)
    assert _broker(result) == {"auto.create.topics.enable": ("false", line_of(path, "auto.create")),
                               "num.partitions": ("12", line_of(path, "num.partitions"))}
    assert "local.retention_ms: not a literal" in {n.line: n.message for n in result.notes}[line_of(path, "log.retention")]


def test_digitalocean_reads_the_kafka_config_and_the_kafka_clusters_version_only(tmp_path):
    path = write(tmp_path, "do.tf", DIGITALOCEAN)
    result = _read(path)
    found = _broker(result)
    assert found["log.retention.hours"] == ("72", line_of(path, "log_retention_hours"))
    assert "log.flush.interval.ms" not in found  # the provider silently does not send a negative value
    assert "silently does not send" in {n.line: n.message for n in result.notes}[line_of(path, "log_flush_interval_ms")]
    assert result.kafka_version is not None and result.kafka_version.version == "3.7.2"
    postgres = write(tmp_path, "pg/db.tf", DIGITALOCEAN.split("resource \"digitalocean_database_kafka_config\"")[0]
                     .replace('"kafka"', '"pg"').replace('"3.7"', '"16"'))
    assert not terraform.holds_resources(postgres)
    assert terraform.holds_resources(write(tmp_path, "only/cluster.tf", DIGITALOCEAN.split("resource \"digitalocean_database_kafka_config\"")[0]))


def test_lint_annotates_a_cliff_of_the_example_on_its_kafka_block_line(tmp_path):
    repo = tmp_path / "repo"
    shutil.copytree(EXAMPLE, repo)
    kafka = repo / "kafka.tf"
    kafka.write_text(kafka.read_text().replace("      num_partitions             = 6\n",
                                               "      num_partitions             = 6\n"
                                               "      log_flush_interval_messages = 1\n"))
    (repo / ".git").mkdir()
    done = run_kcliff("lint", str(repo), "--format", "github", cwd=repo)
    assert done.returncode == 1, done.stderr
    line = line_of(kafka, "log_flush_interval_messages")
    assert any(a.startswith(f"::error file=kafka.tf,line={line},title=kcliff flush-every-message%3A ")
               for a in done.stdout.splitlines()), done.stdout


def test_the_example_lints_clean():
    done = run_kcliff("lint", str(EXAMPLE))
    assert done.returncode == 0, done.stdout + done.stderr

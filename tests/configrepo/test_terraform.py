"""Terraform files as a config repo: Mongey's kafka_topic, confluent_kafka_topic, aiven_kafka_topic
(snake_case config block) and aws_msk_configuration (server_properties heredoc, kafka_versions), each
setting on its own .tf line; values that are not literals noted, never guessed; what the provider
or Kafka would refuse is bad input on its line, all of a file's at once; discovery by content; lint
annotations on the right line of the example repo."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from conftest import ROOT, run_kcliff
from kcliff import configrepo
from kcliff.configrepo import terraform, terraform_hcl
from kcliff.errors import InputError
from repo_files import line_of, write

EXAMPLE = ROOT / "examples" / "terraform-repo"

# A platform team's kafka module: topics on three providers and an MSK configuration, with the
# variables, locals and comments such files carry.
MODULE = '''\
# Kafka resources of the payments platform.
locals {
  retention_7d = "604800000"
}

resource "kafka_topic" "ledger" {
  name               = "ledger"
  partitions         = 24
  replication_factor = 3

  config = {
    "cleanup.policy"      = "delete"
    "compression.type"    = "producer"
    "min.insync.replicas" = 2
    "retention.ms"        = local.retention_7d
    "segment.bytes"       = "1073741824"
    "flush.ms"            = 1e3
    "max.message.bytes"   = "2097152"
    "segment.ms"          = "${var.segment_ms}"
    "retention.bytes"     = -1
    "unclean.leader.election.enable" = false
    (var.extra_key)       = "1"
  }
}

resource "confluent_kafka_topic" "clicks" {
  kafka_cluster {
    id = confluent_kafka_cluster.standard.id
  }
  topic_name       = "clicks"
  partitions_count = 6
  rest_endpoint    = confluent_kafka_cluster.standard.rest_endpoint

  config = {
    "cleanup.policy"    = "delete"
    "retention.ms"      = "86400000"
    "max.message.bytes" = "8388608"
    "confluent.value.schema.validation" = "true"
  }

  credentials {
    key    = confluent_api_key.admin.id
    secret = confluent_api_key.admin.secret
  }
}

resource "aiven_kafka_topic" "invoices" {
  project                = var.aiven_project
  service_name           = aiven_kafka.payments.service_name
  topic_name             = "invoices"
  partitions             = 6
  replication            = 3
  termination_protection = true

  config {
    cleanup_policy      = "compact,delete"
    flush_messages      = 10000
    min_insync_replicas = 2
    segment_ms          = 604800000
    retention_bytes     = "-1"
    min_cleanable_dirty_ratio = 0.5
    inkless_enable      = false
  }
}

resource "kafka_topic" "per_region" {
  count              = length(var.regions)
  name               = "events-${var.regions[count.index]}"
  partitions         = 6
  replication_factor = 3
}

resource "kafka_topic" "refunds" {
  name               = "refunds"
  partitions         = var.refund_partitions
  replication_factor = var.replication_factor
}

resource "aws_msk_configuration" "payments" {
  name           = "payments"
  kafka_versions = ["4.0.x.kraft", "4.1.x.kraft"]

  server_properties = <<-EOT
    auto.create.topics.enable = false
    default.replication.factor = 3
    min.insync.replicas = 2
    num.io.threads = 16
    num.network.threads = 8
    num.replica.fetchers = 4
    log.retention.hours = 72
    log.segment.bytes = 536870912
    message.max.bytes = 2097152
    log.flush.interval.ms = ${var.flush_ms}
    # MSK keeps comments
    socket.send.buffer.bytes = 102400
  EOT
}
'''


def read(path: Path) -> configrepo.ReadResult:
    return terraform.TerraformReader().read(path, "terraform")


def problems(path: Path) -> list[InputError]:
    with pytest.raises(InputError) as caught:
        read(path)
    return caught.value.problems


# --- reading -----------------------------------------------------------------------------------------

def test_every_literal_setting_is_read_with_its_scope_value_and_line(tmp_path):
    path = write(tmp_path, "kafka.tf", MODULE)
    result = read(path)
    got = {(e.scope, e.topic, e.name): (e.raw, e.line, e.resource) for e in result.entries}
    ledger = line_of(path, '"kafka_topic" "ledger"')
    expected_ledger = {
        "partitions": ("24", "partitions         = 24"), "replication.factor": ("3", "replication_factor = 3"),
        "cleanup.policy": ("delete", '"cleanup.policy"'), "compression.type": ("producer", '"compression.type"'),
        "min.insync.replicas": ("2", '"min.insync.replicas"'), "segment.bytes": ("1073741824", '"segment.bytes"'),
        "flush.ms": ("1000", '"flush.ms"'), "max.message.bytes": ("2097152", '"max.message.bytes"'),
        "retention.bytes": ("-1", '"retention.bytes"'),
        "unclean.leader.election.enable": ("false", '"unclean.leader.election.enable"')}
    for name, (raw, text) in expected_ledger.items():
        assert got[("topic", "ledger", name)] == (raw, line_of(path, text, ledger), "kafka_topic.ledger"), name
    clicks = line_of(path, '"confluent_kafka_topic" "clicks"')
    assert got[("topic", "clicks", "partitions")] == ("6", line_of(path, "partitions_count", clicks),
                                                       "confluent_kafka_topic.clicks")
    assert got[("topic", "clicks", "max.message.bytes")][:2] == ("8388608", line_of(path, '"max.message.bytes"', clicks))
    invoices = line_of(path, '"aiven_kafka_topic" "invoices"')
    for snake, name, raw in [("cleanup_policy", "cleanup.policy", "compact,delete"),
                             ("flush_messages", "flush.messages", "10000"), ("segment_ms", "segment.ms", "604800000"),
                             ("min_insync_replicas", "min.insync.replicas", "2"),
                             ("retention_bytes", "retention.bytes", "-1"),
                             ("min_cleanable_dirty_ratio", "min.cleanable.dirty.ratio", "0.5")]:
        assert got[("topic", "invoices", name)][:2] == (raw, line_of(path, snake, invoices)), snake
    assert got[("topic", "invoices", "replication.factor")][:2] == ("3", line_of(path, "replication  ", invoices))
    heredoc = line_of(path, "<<-EOT")
    for key, raw in [("auto.create.topics.enable", "false"), ("num.io.threads", "16"), ("log.retention.hours", "72"),
                     ("message.max.bytes", "2097152"), ("socket.send.buffer.bytes", "102400")]:
        assert got[("broker", None, key)] == (raw, line_of(path, f"    {key} =", heredoc),
                                              "aws_msk_configuration.payments"), key
    assert [t.name for t in result.topics] == ["ledger", "clicks", "invoices", "refunds"]
    assert {r.name: r.line for r in result.resources}["aws_msk_configuration.payments"] == heredoc
    assert result.kafka_version is not None
    assert (result.kafka_version.version, result.kafka_version.line) == ("4.1.2", line_of(path, "kafka_versions"))


def test_what_is_not_a_literal_is_noted_on_its_line_never_guessed(tmp_path):
    path = write(tmp_path, "kafka.tf", MODULE)
    result = read(path)
    notes = {n.line: n.message for n in result.notes}
    assert "is local.retention_7d: not a literal; kcliff does not guess it" in notes[line_of(path, '"retention.ms"')]
    assert 'is "${var.segment_ms}": not a literal' in notes[line_of(path, '"segment.ms"')]
    assert "a config key is (var.extra_key): not a literal" in notes[line_of(path, "(var.extra_key)")]
    assert "count = length(var.regions) makes one resource per item" in notes[line_of(path, "count              =")]
    assert "partitions is var.refund_partitions: not a literal" in notes[line_of(path, "var.refund_partitions")]
    assert "replication_factor is var.replication_factor" in notes[line_of(path, "= var.replication_factor")]
    assert "'log.flush.interval.ms' holds an interpolation" in notes[line_of(path, "log.flush.interval.ms")]
    assert "inkless_enable (Aiven's diskless topics) is not a Kafka topic config" in notes[line_of(path, "inkless")]
    assert "Confluent Server's own setting" in notes[line_of(path, "confluent.value.schema.validation")]
    versions = line_of(path, "kafka_versions")
    assert sum("leaves the patch release to MSK" in n.message for n in result.notes if n.line == versions) == 2
    assert any("at the newest, 4.1.2" in n.message for n in result.notes if n.line == versions)
    ledger = {e.name for e in result.entries if e.topic == "ledger"}
    assert not ledger & {"retention.ms", "segment.ms"}
    assert not {e.name for e in result.entries} & {"log.flush.interval.ms", "inkless.enable"}
    assert "events" not in str(result.topics)  # the count-expanded topic is not read
    refunds = next(t for t in result.topics if t.name == "refunds")
    assert refunds.problem and "var.refund_partitions" in refunds.problem


def test_a_topic_whose_partitions_are_not_a_literal_is_linted_but_not_measured(tmp_path):
    write(tmp_path, "kafka.tf", MODULE)
    repo = configrepo.load([str(tmp_path)])
    assert configrepo.to_scenario(repo, "head", topic="ledger").topic["partitions"] == 24
    with pytest.raises(InputError, match="partitions is var.refund_partitions"):
        configrepo.to_scenario(repo, "head", topic="refunds")


def test_values_become_the_strings_kafka_receives():
    assert [terraform_hcl.kafka_string(v) for v in (True, False, 1000.0, 0.5, 12, "lz4")] == [
        "true", "false", "1000", "0.5", "12", "lz4"]


HEREDOC_MSK = '''\
resource "aws_msk_configuration" "plain" {
  kafka_versions    = ["4.1.x.kraft"]
  server_properties = <<PROPERTIES
auto.create.topics.enable=false
log.flush.interval.messages=1
escaped.template=$${not.interpolated}
PROPERTIES
}

resource "aws_msk_configuration" "inline" {
  server_properties = "num.io.threads=4\\nnum.network.threads=3"
}

resource "aws_msk_configuration" "from_file" {
  server_properties = file("${path.module}/server.properties")
}
'''


def test_msk_server_properties_in_every_shape(tmp_path):
    path = write(tmp_path, "msk.tf", HEREDOC_MSK)
    result = read(path)
    got = {(e.resource, e.name): (e.raw, e.line) for e in result.entries}
    assert got[("aws_msk_configuration.plain", "log.flush.interval.messages")] == ("1", 5)
    assert got[("aws_msk_configuration.plain", "escaped.template")] == ("${not.interpolated}", 6)
    inline = line_of(path, "num.io.threads=4")
    assert got[("aws_msk_configuration.inline", "num.io.threads")] == ("4", inline)
    assert got[("aws_msk_configuration.inline", "num.network.threads")] == ("3", inline)
    note = next(n for n in result.notes if n.line == line_of(path, "file("))
    assert 'server_properties is file("${path.module}/server.properties"): not a literal' in note.message
    assert "kcliff.yaml with role broker" in note.message


def test_what_the_provider_or_kafka_would_refuse_is_reported_all_at_once(tmp_path):
    path = write(tmp_path, "bad.tf", '''\
resource "kafka_topic" "a" {
  name               = "orders"
  partitions         = 0
  replication_factor = 3
  config = {
    "partitions" = "3"
  }
}

resource "kafka_topic" "b" {
  name       = "bad name!"
  partitions = 3
}

resource "aiven_kafka_topic" "c" {
  topic_name  = "invoices"
  partitions  = 3
  replication = 3
  config {
    flush_messagess = 1
  }
}

resource "kafka_topic" "d" {
  partitions = 3
}

resource "kafka_topic" "e" {
  name       = "orders"
  partitions = 3
}

resource "aws_msk_configuration" "f" {
  kafka_versions = ["4.x"]
}
''')
    found = {(p.line, p.message.split(":")[0]) for p in problems(path)}
    assert (3, "kafka_topic.a") in found  # partitions 0
    assert (6, "kafka_topic.a") in found  # "partitions" is no topic config
    assert (11, "topic name 'bad name!' is not one Kafka accepts") in found
    assert (20, "aiven_kafka_topic.c") in found
    assert (24, "kafka_topic.d") in found  # name is required
    assert (29, "topic orders is defined twice in this file (first at line 2)") in found
    assert {line for line, _ in found} >= {33, 34}  # server_properties required; a version MSK does not have
    by_line = {p.line: p.message for p in problems(path)}
    assert "did you mean 'flush_messages'?" in by_line[20]
    assert "must be a whole number from 1 to" in by_line[3]


def test_invalid_hcl_is_bad_input_on_its_line(tmp_path):
    path = write(tmp_path, "broken.tf", 'resource "kafka_topic" "a" {\n  name = "x"\n  partitions = = 3\n}\n')
    with pytest.raises(InputError, match="invalid HCL") as caught:
        read(path)
    assert caught.value.line == 3


# --- discovery ---------------------------------------------------------------------------------------

def test_tf_files_are_found_by_the_resources_they_declare(tmp_path):
    write(tmp_path, "infra/kafka.tf", MODULE)
    write(tmp_path, "infra/variables.tf", 'variable "refund_partitions" {\n  type = number\n}\n')
    write(tmp_path, "infra/network.tf", 'resource "aws_vpc" "main" {\n  cidr_block = "10.0.0.0/16"\n}\n')
    files, _, _ = configrepo.discover([str(tmp_path)])
    assert [(Path(f.path).name, f.role, f.format) for f in files] == [("kafka.tf", "terraform", "terraform")]


def test_a_tf_file_linked_out_of_the_repo_is_not_read(tmp_path):
    outside = write(tmp_path, "outside/secret.tf", MODULE)
    repo = tmp_path / "repo"
    write(repo, "topics.tf", MODULE)
    (repo / "linked.tf").symlink_to(outside)
    files, notes, _ = configrepo.discover([str(repo)])
    assert [Path(f.path).name for f in files] == ["topics.tf"]
    assert any("linked.tf" in n.path and "leading out" in n.message for n in notes)


# --- the real CLI ------------------------------------------------------------------------------------

@pytest.fixture
def example(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    shutil.copytree(EXAMPLE, repo)
    (repo / ".git").mkdir()  # a checkout: annotations name files relative to it
    return repo


def test_the_example_lints_clean(tmp_path):
    done = run_kcliff("lint", "--verbose", str(EXAMPLE))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "0 error(s), 0 warning(s) in 4 file(s)" in done.stdout
    assert "kafka_topic.audit_log: name is" in done.stdout and "for_each = local.tenant_topics" in done.stdout


def test_lint_annotates_flush_1_in_a_topic_config_and_in_the_msk_heredoc(example, tmp_path):
    topics, msk = example / "topics.tf", example / "msk.tf"
    topics.write_text(topics.read_text().replace('    "segment.bytes"          = "536870912" # 512 MiB\n',
                                                 '    "segment.bytes"          = "536870912" # 512 MiB\n'
                                                 '    "flush.messages"         = "1"\n'))
    msk.write_text(msk.read_text().replace("num.io.threads=8\n", "num.io.threads=8\nlog.flush.interval.messages=1\n"))
    done = run_kcliff("lint", "--format", "github", "repo", cwd=tmp_path)
    assert done.returncode == 1, done.stdout + done.stderr
    found = sorted(line for line in done.stdout.splitlines() if line.startswith("::"))
    assert len(found) == 2, found
    assert found[0].startswith(f"::error file=msk.tf,line={line_of(msk, 'log.flush.interval.messages=1')},"
                               "title=kcliff flush-every-message%3A ")
    flush = line_of(topics, '"flush.messages"')
    assert found[1].startswith(f"::error file=topics.tf,line={flush},title=kcliff topic-flush-every-message%3A ")
    assert "(topic orders)" in found[1]


@pytest.mark.parametrize("old, new, words", [
    ("partitions         = 6\n", "partitions         = 0\n", "kafka_topic.order_events: partitions must be"),
    ('"segment.bytes"          = "536870912"', '"segment.byte"           = "536870912"',
     "unknown topic setting 'segment.byte': did you mean 'segment.bytes'?"),
])
def test_lint_of_a_bad_tf_file_exits_2_naming_file_and_line(example, old, new, words):
    topics = example / "topics.tf"
    topics.write_text(topics.read_text().replace(old, new, 1))
    done = run_kcliff("lint", str(example))
    assert done.returncode == 2, done.stdout + done.stderr
    assert f"{topics}:{line_of(topics, new.strip())}: {words}" in done.stderr, done.stderr
    assert "Traceback" not in done.stderr

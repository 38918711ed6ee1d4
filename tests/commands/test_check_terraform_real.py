"""`kcliff check` end to end on a real cluster, on temporary copies of the Terraform example repo: a
head adding "flush.messages" = "1" to the measured topic's config map (kafka_topic.orders, chosen
by the repo's kcliff.yaml) fails with its annotation on that line of topics.tf, and the head was
measured with that topic config applied, beside the MSK configuration's broker settings."""

from pathlib import Path

import pytest
from conftest import ROOT

from tests.commands.test_check_strimzi_real import check_fails_on_line, copies, edit

EXAMPLE = ROOT / "examples" / "terraform-repo"
TOPICS = "topics.tf"


@pytest.fixture
def repos(tmp_path: Path) -> tuple[Path, Path]:
    return copies(EXAMPLE, tmp_path)


@pytest.mark.kafka
def test_flush_1_in_a_kafka_topic_config_fails_on_its_tf_line(repos, shared_cluster, tmp_path):
    base, head = repos
    edit(head / TOPICS, '    "segment.bytes"          = "536870912" # 512 MiB\n',
         '    "segment.bytes"          = "536870912" # 512 MiB\n    "flush.messages"         = "1"\n')
    measured = check_fails_on_line(base, head, shared_cluster, tmp_path, TOPICS, '"flush.messages"',
                                   "topic-flush-every-message")
    head_applied, base_applied = measured["head"]["applied"], measured["base"]["applied"]
    assert head_applied["topic"]["flush.messages"] == 1 and "flush.messages" not in base_applied["topic"]
    assert head_applied["topic"]["partitions"] == 12 and head_applied["topic"]["segment.bytes"] == 536870912
    assert head_applied["broker"]["num.network.threads"] == 5  # from the MSK configuration's heredoc
    assert measured["head"]["runs"] and measured["base"]["runs"]

"""`kcliff check` end to end on a real cluster, on temporary copies of the docker-compose example repo:
a head adding KAFKA_LOG_FLUSH_INTERVAL_MESSAGES: 1 to the environment anchor its three apache/kafka
brokers merge fails with one annotation on that line of docker-compose.yml, and the head was measured
with log.flush.interval.messages=1 applied beside the anchor's other settings (as the image's entry
script names them) and the orders service's producer file. As cheap as the Terraform example's check
(BRIEF: no canary, one short round; the rule decides the cliff, the round shows the settings apply)."""

from pathlib import Path

import pytest
from conftest import ROOT

from tests.commands.test_check_strimzi_real import check_fails_on_line, copies, edit

EXAMPLE = ROOT / "examples" / "compose-repo"
COMPOSE = "docker-compose.yml"


@pytest.fixture
def repos(tmp_path: Path) -> tuple[Path, Path]:
    return copies(EXAMPLE, tmp_path)


@pytest.mark.kafka
def test_flush_1_in_the_brokers_environment_fails_on_its_compose_line(repos, shared_cluster, tmp_path):
    base, head = repos
    edit(head / COMPOSE, "  KAFKA_NUM_IO_THREADS: 8\n", "  KAFKA_NUM_IO_THREADS: 8\n  KAFKA_LOG_FLUSH_INTERVAL_MESSAGES: 1\n")
    measured = check_fails_on_line(base, head, shared_cluster, tmp_path, COMPOSE, "  KAFKA_LOG_FLUSH_INTERVAL_MESSAGES",
                                   "flush-every-message")
    head_applied, base_applied = measured["head"]["applied"], measured["base"]["applied"]
    assert head_applied["broker"]["log.flush.interval.messages"] == 1
    assert "log.flush.interval.messages" not in base_applied["broker"]
    assert head_applied["broker"]["num.io.threads"] == 8 and head_applied["broker"]["socket.send.buffer.bytes"] == 102400
    assert head_applied["producer"]["linger.ms"] == 5  # clients/orders-producer.properties
    assert measured["head"]["runs"] and measured["base"]["runs"]

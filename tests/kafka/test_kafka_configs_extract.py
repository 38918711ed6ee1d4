"""The catalogue is what Kafka's jars say: the extractor, run on the default release's jars that
`make setup` fetched, gives exactly the committed file's view of that release (docs/kafka-configs.md)."""

from __future__ import annotations

import json
import subprocess

import pytest
from conftest import ROOT
from kcliff.kafka import dist as kafka_dist

from tests.kafka.test_kafka_configs_data import catalogue, view

RELEASE = kafka_dist.DEFAULT_VERSION


@pytest.mark.jars  # no cluster: make test runs it on the shared cores
def test_extractor_on_the_default_release_jars_gives_the_committed_view() -> None:
    libs = kafka_dist.ensure(RELEASE)  # the jars make setup fetched: no download here
    done = subprocess.run([str(ROOT / "scripts" / "build-kafka-configs.sh"), "--release", RELEASE,
                           "--classpath", kafka_dist.classpath(libs)],
                          capture_output=True, text=True, timeout=180)
    assert done.returncode == 0, done.stderr
    dump = json.loads(done.stdout)
    assert dump.pop("entry_points")["broker"] == "kafka.server.KafkaConfig$.MODULE$.configDef()"
    committed = view(catalogue(), RELEASE)
    for scope in committed["scopes"]:
        assert dump["scopes"][scope] == committed["scopes"][scope], scope
    assert dump == committed


@pytest.mark.jars
def test_extractor_refuses_jars_of_another_release() -> None:
    libs = kafka_dist.ensure(RELEASE)
    done = subprocess.run([str(ROOT / "scripts" / "build-kafka-configs.sh"), "--release", "3.9.0",
                           "--classpath", kafka_dist.classpath(libs)],
                          capture_output=True, text=True, timeout=180)
    assert done.returncode == 2
    assert f"expected Kafka 3.9.0 on the classpath, found {RELEASE}" in done.stderr

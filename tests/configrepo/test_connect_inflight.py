"""The in-flight head of a Connect source (#44), read as `kcliff check` reads it: the orders team's Debezium
connector as a Strimzi KafkaConnector on its KafkaConnect and as the REST API's JSON on its worker's
connect-distributed.properties (tests/data/connect-inflight). Its base raises the tasks' requests in flight to 5
with idempotence; the head lowers them to 1. Both shapes are linted on the override's line and measure one
and the same scenario, so the Strimzi one's real-cluster check (tests/commands/test_check_connect_real.py)
stands for the JSON's too."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from conftest import ROOT
from kcliff import configrepo
from kcliff.lint import cliffs
from kcliff.results.metrics import ChangeKind
from repo_files import line_of

FIXTURE = ROOT / "tests" / "data" / "connect-inflight"
STRIMZI = "k8s/orders-connect.yaml"
REST = "connectors/orders-cdc-source.json"
OVERRIDE = {STRIMZI: ("producer.override.max.in.flight.requests.per.connection: 5",
                      "producer.override.max.in.flight.requests.per.connection: 1"),
            REST: ('"producer.override.max.in.flight.requests.per.connection": "5"',
                   '"producer.override.max.in.flight.requests.per.connection": "1"')}
SHAPES = {"strimzi": STRIMZI, "rest": REST}


def in_flight_one(shape: str, tmp_path: Path) -> tuple[Path, Path]:
    """Base and head copies of one shape's repo, the head's connector at one request in flight."""
    base, head = tmp_path / shape / "base", tmp_path / shape / "head"
    shutil.copytree(FIXTURE / shape, base)
    shutil.copytree(FIXTURE / shape, head)
    path = head / SHAPES[shape]
    old, new = OVERRIDE[SHAPES[shape]]
    text = path.read_text(encoding="utf-8")
    assert text.count(old) == 1, old
    path.write_text(text.replace(old, new), encoding="utf-8")
    return base, head


@pytest.mark.parametrize("shape", SHAPES)
def test_the_base_lints_clean_and_the_head_on_the_overrides_line(shape: str, tmp_path: Path):
    base, head = in_flight_one(shape, tmp_path)
    rules = cliffs.load_rules()
    assert not cliffs.evaluate(configrepo.load([str(base)]), rules)
    path = head / SHAPES[shape]
    matches = [(m.rule.id, m.path, m.line) for m in cliffs.evaluate(configrepo.load([str(head)]), rules)]
    assert matches == [("inflight-one", str(path), line_of(path, "max.in.flight.requests.per.connection"))]


def scenarios(shape: str, tmp_path: Path) -> tuple[configrepo.RepoScenario, configrepo.RepoScenario]:
    base, head = in_flight_one(shape, tmp_path)
    repos = [configrepo.load([str(side)]) for side in (base, head)]
    return configrepo.to_scenario(repos[0], "base"), configrepo.to_scenario(repos[1], "head")


def test_the_json_measures_the_same_scenario_as_the_strimzi_connector(tmp_path: Path):
    """Connect's own producer settings, under the worker's producer.*, under the connector's overrides, in
    both shapes: what a check applies to the cluster, how many producers it runs and across which round trip
(kcliff.yaml's round_trip_ms) are the same."""
    strimzi, rest = scenarios("strimzi", tmp_path), scenarios("rest", tmp_path)
    for a, b in zip(strimzi, rest):
        assert a.as_applied() == b.as_applied()
        assert (a.producers, a.payload, a.record_size, a.rate) == (b.producers, b.payload, b.record_size, b.rate)
        assert a.production and b.production and a.production.round_trip_ms == b.production.round_trip_ms == 20
    base, head = strimzi
    assert base.as_applied()["producer"] | {"max.in.flight.requests.per.connection": 1} == head.as_applied()["producer"]
    producer = base.as_applied()["producer"]
    assert (producer["max.in.flight.requests.per.connection"], producer["enable.idempotence"]) == (5, True)
    assert (producer["acks"], producer["linger.ms"], producer["buffer.memory"]) == ("all", 10, 67108864)
    assert base.producers == 1  # the connector's tasksMax / tasks.max


@pytest.mark.parametrize("shape", SHAPES)
def test_the_check_judges_a_producer_change_on_the_overrides_line(shape: str, tmp_path: Path):
    base, head = in_flight_one(shape, tmp_path)
    assert configrepo.changed_kinds(*scenarios(shape, tmp_path / "again")) == {ChangeKind.PRODUCER}
    repos = [configrepo.load([str(side)]) for side in (base, head)]
    changes = configrepo.setting_changes(*(configrepo.measured_entries(r) for r in repos), str(base), str(head),
                                         repos[1].files)
    path = head / SHAPES[shape]
    assert [(c.name, c.base, c.head, c.path, c.line) for c in changes] == [
        ("max.in.flight.requests.per.connection", 5, 1, str(path), line_of(path, "max.in.flight.requests"))]

"""kcliff.yaml's `round_trip_ms` of a producer: where it runs, as far from its brokers as a check measures it
(the client round trip --client-rtt-ms adds). A Connect worker in a data centre producing to a cloud region
waits that long on every request, and an in-flight limit turns the wait into throughput
(docs/gate.md#kafka-connect)."""

import argparse
import shutil
from pathlib import Path

import pytest
from conftest import ROOT
from kcliff import configrepo
from kcliff.commands.options import with_round_trip
from kcliff.errors import InputError

FIXTURE = ROOT / "tests" / "data" / "connect-inflight" / "strimzi"
MANIFEST = "version: 1\nproducers:\n  k8s/orders-connect.yaml:\n    round_trip_ms: {}\n"


def scenario(repo: Path, sid: str = "head") -> configrepo.RepoScenario:
    return configrepo.to_scenario(configrepo.load([str(repo)]), sid)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    shutil.copytree(FIXTURE, tmp_path / "repo")
    return tmp_path / "repo"


@pytest.mark.parametrize("value", ["fast", "-1", "1001", "true", "20 ms"])
def test_a_bad_round_trip_is_refused_on_its_line(repo: Path, value: str):
    (repo / "kcliff.yaml").write_text(MANIFEST.format(value))
    with pytest.raises(InputError) as err:
        configrepo.load([str(repo)])
    (problem,) = err.value.problems
    assert (Path(problem.path).name, problem.line) == ("kcliff.yaml", 4)
    assert "round_trip_ms must be milliseconds from 0 to 1000" in problem.message


def test_the_declared_round_trip_is_the_checks_unless_the_command_line_gives_one(repo: Path):
    head = scenario(repo)
    assert head.production is not None and head.production.round_trip_ms == 20
    notes: list[str] = []
    declared = with_round_trip(argparse.Namespace(client_rtt_ms=0.0), scenario(repo, "base"), head, notes)
    assert declared.client_rtt_ms == 20 and "20 ms round trip" in notes[0] and "round_trip_ms" in notes[0]
    given = argparse.Namespace(client_rtt_ms=5.0)
    assert with_round_trip(given, scenario(repo, "base"), head, []) is given  # the rig's option wins
    (repo / "kcliff.yaml").write_text(MANIFEST.format(0))
    none = argparse.Namespace(client_rtt_ms=0.0)
    assert with_round_trip(none, scenario(repo, "base"), scenario(repo), notes := []) is none and not notes

"""The durability fault (docs/failover.md, "The follower held behind"): a change of who may lead when no
in-sync replica lives is measured through a follower held behind while the in-sync replicas die, which
takes two brokers at once and so a local cluster with its controller quorum apart (backends/local_nodes.py,
backends/open.py `for_faults`); a cluster without one refuses it with why instead of measuring nothing."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from kcliff import configrepo
from kcliff.backends.local import Caps
from kcliff.backends.local_nodes import Node, controller_properties, server_properties, voters
from kcliff.backends.open import ClusterConfig, for_faults
from kcliff.measure import failover_side
from kcliff.results.metrics import ChangeKind, Fault, Workload, fault_for
from kcliff.results.model import StopKind
from kcliff.scenario.rate import Rate, RateUnit
from kcliff.errors import InputError
from kcliff.scenario.suites import Scenario, parse_scenario

from ..measure.test_suite_faults import StandInRestartable
from .test_failover_judged import sides


@pytest.mark.parametrize("changed", [
    [(ChangeKind.BROKER, "unclean.leader.election.enable")],
    [(ChangeKind.TOPIC, "unclean.leader.election.enable")],
    # who may lead decides what survives: it wins over how a broker stops
    [(ChangeKind.BROKER, "controlled.shutdown.enable"), (ChangeKind.BROKER, "unclean.leader.election.enable")],
])
def test_a_change_of_who_may_lead_is_measured_through_a_follower_held_behind(changed):
    assert fault_for(changed) is Fault.FOLLOWER_BEHIND
    assert Fault.FOLLOWER_BEHIND.takes_two_brokers and not Fault.BROKER_KILL.takes_two_brokers


def test_a_config_repo_that_enables_unclean_election_is_measured_through_the_fault_alone(tmp_path):
    base, head = sides(tmp_path, "# a replica out of sync may lead", "unclean.leader.election.enable=true")
    assert head.broker["unclean.leader.election.enable"] is True  # measured: in the catalogue
    assert configrepo.failover_fault(base, head) is Fault.FOLLOWER_BEHIND
    assert configrepo.changed_kinds(base, head) == frozenset()  # no healthy run can show it
    base, head = configrepo.measured_workloads(base, head, at_rate=True)
    assert head.fault is base.fault is Fault.FOLLOWER_BEHIND
    assert Workload.FAILOVER in head.workloads


def _config(backend: str) -> ClusterConfig:
    return ClusterConfig(backend, None, Path("w"), "4.2.0", None, Caps())


def test_only_a_fault_that_takes_two_brokers_starts_the_controller_apart():
    behind = Scenario("u", "u", workloads=(Workload.PRODUCE, Workload.FAILOVER), fault=Fault.FOLLOWER_BEHIND)
    killed = dataclasses.replace(behind, id="k", fault=Fault.BROKER_KILL)
    assert for_faults(_config("local"), [killed, behind]).caps.controller_apart
    assert not for_faults(_config("local"), [killed]).caps.controller_apart
    # a scenario that runs no fault needs none
    healthy = dataclasses.replace(behind, workloads=(Workload.PRODUCE,))
    assert not for_faults(_config("local"), [healthy]).caps.controller_apart
    assert for_faults(_config("compose"), [behind]) == _config("compose")  # its quorum is its brokers'


def test_the_controller_apart_is_the_quorum_and_carries_the_settings_it_fences_and_elects_by(tmp_path):
    brokers = [Node(i, 9000 + i, 9100 + i, tmp_path / f"node-{i}") for i in (1, 2, 3)]
    controller = Node(4, 0, 9200, tmp_path / "controller")
    quorum = voters(brokers, controller)
    assert quorum == "4@127.0.0.1:9200"
    overrides = {"unclean.leader.election.enable": True, "broker.session.timeout.ms": 30000}
    broker = dict(line.split("=", 1) for line in server_properties(brokers[0], quorum, overrides, apart=True).split("\n")
                  if line)
    assert broker["process.roles"] == "broker" and "CONTROLLER://" not in broker["listeners"]
    assert broker["controller.quorum.voters"] == quorum
    own = dict(line.split("=", 1) for line in controller_properties(controller, quorum, overrides).split("\n") if line)
    assert own["process.roles"] == "controller" and own["listeners"] == "CONTROLLER://127.0.0.1:9200"
    assert own["unclean.leader.election.enable"] == "true" and own["broker.session.timeout.ms"] == "30000"
    combined = server_properties(brokers[0], voters(brokers, None), {})
    assert "process.roles=broker,controller" in combined and combined.count("@127.0.0.1:91") == 3


def test_a_cluster_whose_quorum_is_its_brokers_refuses_the_fault_with_why(tmp_path):
    sc = Scenario("u", "u", workloads=(Workload.PRODUCE, Workload.FAILOVER), fault=Fault.FOLLOWER_BEHIND)
    run = failover_side.failover_run(StandInRestartable(), sc, "t", Rate(1, RateUnit.MB_PER_S), tmp_path / "f.log")
    assert run.stop_kind is StopKind.FAILED and not run.complete
    assert run.stop_reason and "controller apart" in run.stop_reason


def test_a_durability_canary_takes_no_ratio_and_names_its_fault():
    raw = {"id": "unclean", "description": "d", "broker": {"unclean.leader.election.enable": True},
           "fault": "follower-behind", "cliff": {"stands_for": "records lost", "metric": "lost"}}
    canary = parse_scenario(raw, "failover.yaml")
    assert canary.fault is Fault.FOLLOWER_BEHIND and Workload.FAILOVER in canary.workloads  # its metric needs it
    with pytest.raises(InputError, match="lost is counted exactly.*takes no max_ratio"):
        parse_scenario({**raw, "cliff": {**raw["cliff"], "max_ratio": 0.5}}, "failover.yaml")

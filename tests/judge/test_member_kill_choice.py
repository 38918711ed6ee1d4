"""Which fault a check measures through (metrics.fault_for, configrepo.failover_fault, docs/failover.md):
a change whose failure-deciding settings are all a consumer group's kills a member of the group, any other
kills a broker; and the consumer group settings a scenario or a config repo may set, refused where Kafka
refuses them (scenario/combinations.py)."""

from __future__ import annotations

import pytest

from kcliff import configrepo
from kcliff.errors import InputError
from kcliff.measure import failover_side
from kcliff.results.metrics import ChangeKind, Fault, Workload, fault_for
from kcliff.scenario import settings
from kcliff.scenario.suites import Scenario, parse_scenario

from .test_failover_judged import sides

CONSUMERS = "consumers/app-consumer.properties"


@pytest.mark.parametrize("changed, fault", [
    ([(ChangeKind.CONSUMER, "session.timeout.ms")], Fault.MEMBER_KILL),
    ([(ChangeKind.CONSUMER, "heartbeat.interval.ms"), (ChangeKind.CONSUMER, "group.protocol")], Fault.MEMBER_KILL),
    ([(ChangeKind.BROKER, "group.consumer.session.timeout.ms")], Fault.MEMBER_KILL),
    # a setting no failure depends on does not decide the fault
    ([(ChangeKind.CONSUMER, "session.timeout.ms"), (ChangeKind.CONSUMER, "max.poll.records")], Fault.MEMBER_KILL),
    ([(ChangeKind.BROKER, "broker.session.timeout.ms")], Fault.BROKER_KILL),
    ([(ChangeKind.CONSUMER, "session.timeout.ms"), (ChangeKind.BROKER, "broker.session.timeout.ms")],
     Fault.BROKER_KILL),
    # the offsets topic's replicas die with a broker, not with a member
    ([(ChangeKind.BROKER, "offsets.topic.replication.factor")], Fault.BROKER_KILL),
    ([], Fault.BROKER_KILL),
])
def test_a_change_of_group_settings_alone_is_measured_by_killing_a_member(changed, fault):
    assert fault_for(changed) is fault


def test_a_config_repos_longer_session_is_measured_through_a_member_killed(tmp_path):
    base, head = sides(tmp_path, "session.timeout.ms=300000", file=CONSUMERS)
    assert head.consumer["session.timeout.ms"] == 300000  # measured: in the catalogue
    assert configrepo.failover_fault(base, head) is Fault.MEMBER_KILL
    _, measured = configrepo.measured_workloads(base, head, at_rate=True)
    assert Workload.FAILOVER in measured.workloads
    base, head = sides(tmp_path / "b", "broker.session.timeout.ms=60000")
    assert configrepo.failover_fault(base, head) is Fault.BROKER_KILL


def test_a_member_kill_waits_twice_the_session_that_decides_it():
    assert failover_side.member_bound_s(Scenario("a", "a")) == 2 * 45 + 10
    short = Scenario("b", "b", consumer={"session.timeout.ms": 6000}, fault=Fault.MEMBER_KILL)
    assert failover_side.member_bound_s(short) == 22 and failover_side.bound_s(short) == 22
    # the consumer protocol: the brokers' group.consumer.session.timeout.ms (45 s) decides
    assert failover_side.member_bound_s(Scenario("c", "c", consumer={"group.protocol": "consumer"})) == 100
    # a broker kill keeps its own bound
    assert failover_side.bound_s(Scenario("d", "d", consumer={"session.timeout.ms": 6000})) == 28


def test_the_catalogue_has_the_group_members_settings_at_kafkas_defaults():
    for name, default in (("session.timeout.ms", 45000), ("heartbeat.interval.ms", 3000),
                          ("max.poll.interval.ms", 300000), ("group.protocol", "classic")):
        assert settings.require("consumer", name).default == default
    assert settings.require("consumer", "max.poll.interval.ms").check(0) is not None


def scenario(**blocks) -> Scenario:
    return parse_scenario({"id": "s", "description": "s", **blocks}, "s.yaml")


def test_a_scenario_says_which_fault_and_refuses_an_unknown_one():
    assert scenario().fault is Fault.BROKER_KILL
    member = scenario(fault="member-kill", workloads=["produce", "failover"])
    assert member.fault is Fault.MEMBER_KILL and member.as_applied()["fault"] == "member-kill"
    assert "fault" not in scenario().as_applied()  # a broker kill's hash is what it was
    with pytest.raises(InputError, match="fault must be one of broker-kill, member-kill"):
        scenario(fault="disk-full")


@pytest.mark.parametrize("consumer, words", [
    ({"session.timeout.ms": 5999}, "outside the brokers' group.min.session.timeout.ms"),
    ({"session.timeout.ms": 1800001}, "INVALID_SESSION_TIMEOUT"),
    ({"session.timeout.ms": 6000, "heartbeat.interval.ms": 6000}, "must be below session.timeout.ms 6000"),
    ({"group.protocol": "consumer", "session.timeout.ms": 10000}, "refused with group.protocol=consumer"),
    ({"group.protocol": "consumer", "heartbeat.interval.ms": 1000}, "refused with group.protocol=consumer"),
])
def test_group_settings_kafka_refuses_are_refused_with_why(consumer, words):
    with pytest.raises(InputError, match=words):
        scenario(consumer=consumer)


def test_the_session_limits_themselves_are_accepted():
    for session in (6000, 1800000):
        assert scenario(consumer={"session.timeout.ms": session}).consumer["session.timeout.ms"] == session
    assert scenario(consumer={"group.protocol": "consumer", "max.poll.interval.ms": 1000}).consumer


def test_a_config_repo_with_a_session_kafka_refuses_is_bad_input(tmp_path):
    with pytest.raises(InputError, match="INVALID_SESSION_TIMEOUT"):
        sides(tmp_path, "session.timeout.ms=3000", file=CONSUMERS)

"""Every setting that decides what a failure costs is measured through one (results/metrics.py
FAILOVER_SETTINGS): the producer's retries and backoffs, the consumer's request timeouts and assignors, the
brokers' recovery threads, leader rebalancing, quorum timeouts and Kafka 4's group.consumer.* timeouts. Each
used to pass unmeasured, a note saying it changed nothing kcliff measures. And what Kafka refuses among them
is refused on its line, as Kafka's client or broker would."""

from __future__ import annotations

import pytest

from kcliff import configrepo
from kcliff.errors import InputError
from kcliff.measure import failover_side
from kcliff.results.metrics import CATCH_UP, FAILED, STALL, UNAVAILABLE, ChangeKind, Fault
from kcliff.scenario import combinations, settings

from .test_failover_judged import sides

PRODUCER = "producers/app-producer.properties"
CONSUMER = "consumers/app-consumer.properties"


@pytest.mark.parametrize("line, file, fault", [
    ("retries=3", PRODUCER, Fault.BROKER_KILL),
    ("max.block.ms=5000", PRODUCER, Fault.BROKER_KILL),
    ("retry.backoff.max.ms=30000", PRODUCER, Fault.BROKER_KILL),
    ("request.timeout.ms=5000", CONSUMER, Fault.MEMBER_KILL),
    ("controller.quorum.election.timeout.ms=5000", "brokers/server.properties", Fault.BROKER_KILL),
    ("num.recovery.threads.per.data.dir=1", "brokers/server.properties", Fault.BROKER_KILL),
])
def test_a_failure_only_setting_is_measured_through_its_fault_alone(tmp_path, line, file, fault):
    base, head = sides(tmp_path, line, file=file)
    assert configrepo.failover_moved(base, head), f"{line} would pass unmeasured"
    assert configrepo.changed_kinds(base, head) == frozenset()  # no healthy run can show it
    assert configrepo.failover_fault(base, head) is fault


def test_an_assignor_is_measured_healthy_and_through_a_member_kill(tmp_path):
    """Who gets a dead member's partitions: the assignors act on a healthy group too, so both."""
    strategy = "org.apache.kafka.clients.consumer.RoundRobinAssignor"
    base, head = sides(tmp_path, f"partition.assignment.strategy={strategy}", file=CONSUMER)
    assert head.consumer["partition.assignment.strategy"] == [strategy]
    assert configrepo.failover_moved(base, head) == {STALL, CATCH_UP}
    assert configrepo.failover_fault(base, head) is Fault.MEMBER_KILL
    assert configrepo.changed_kinds(base, head)  # a healthy group's assignment too


def test_a_list_setting_reaches_the_client_as_kafka_writes_it():
    two = ["org.apache.kafka.clients.consumer.RangeAssignor", "org.apache.kafka.clients.consumer.StickyAssignor"]
    assert settings.as_kafka_value(two) == ",".join(two)
    strategy = settings.require("consumer", "partition.assignment.strategy")
    assert strategy.check(",".join(two)) is None and strategy.check(two) is None
    assert strategy.check("") is not None


@pytest.mark.parametrize("consumer, blamed", [
    ({"group.protocol": "consumer", "partition.assignment.strategy": "range"}, "partition.assignment.strategy"),
    ({"group.remote.assignor": "uniform"}, "group.remote.assignor"),
])
def test_an_assignor_of_the_other_protocol_is_refused_as_the_client_refuses_it(consumer, blamed):
    assert [name for name, _ in combinations.group_problems(consumer)] == [blamed]


def test_the_consumer_protocol_takes_the_brokers_assignor():
    assert combinations.group_problems({"group.protocol": "consumer", "group.remote.assignor": "range"}) == []


@pytest.mark.parametrize("broker, blamed", [
    ({"group.consumer.session.timeout.ms": 30000}, "group.consumer.session.timeout.ms"),
    ({"group.consumer.heartbeat.interval.ms": 20000}, "group.consumer.heartbeat.interval.ms"),
    ({"group.consumer.max.session.timeout.ms": 40000}, "group.consumer.max.session.timeout.ms"),
])
def test_a_group_consumer_timeout_outside_its_bounds_is_refused_as_the_broker_refuses_to_start(broker, blamed):
    found = combinations.broker_group_problems(broker)
    assert [name for name, _ in found] == [blamed]
    assert "refuses to start" in found[0][1]


def test_a_group_consumer_timeout_within_bounds_the_repo_moves_is_accepted():
    assert combinations.broker_group_problems({"group.consumer.session.timeout.ms": 30000,
                                               "group.consumer.min.session.timeout.ms": 20000}) == []


def test_a_config_repo_is_refused_on_the_brokers_line_for_a_session_below_its_bound(tmp_path):
    with pytest.raises(InputError) as raised:
        sides(tmp_path, "group.consumer.session.timeout.ms=30000")
    problem = raised.value
    assert problem.path is not None and problem.path.endswith("brokers/server.properties")
    assert problem.line == 13 and "group.consumer.min.session.timeout.ms" in problem.message


def test_a_member_kill_under_the_consumer_protocol_waits_for_the_brokers_session(tmp_path):
    base, head = sides(tmp_path, "group.consumer.session.timeout.ms=50000")
    assert configrepo.failover_moved(base, head) == {STALL, CATCH_UP}
    protocol = {"group.protocol": "consumer"}
    base, head = (sc.__class__(**{**sc.__dict__, "consumer": protocol}) for sc in (base, head))
    assert failover_side.member_bound_s(head) - failover_side.member_bound_s(base) == pytest.approx(10.0)
    assert UNAVAILABLE not in configrepo.failover_moved(base, head)


def test_a_delivery_timeout_below_linger_and_request_timeout_is_refused_as_the_producer_refuses_it(tmp_path):
    with pytest.raises(InputError) as raised:
        sides(tmp_path, "delivery.timeout.ms=8000", file=PRODUCER)
    assert raised.value.line == 9 and "at least 30005" in raised.value.message
    base, head = sides(tmp_path / "ok", "request.timeout.ms=5000", "delivery.timeout.ms=8000", file=PRODUCER)
    assert configrepo.failover_moved(base, head) >= {FAILED}
    assert configrepo.changed_kinds(base, head) == {ChangeKind.PRODUCER}  # request.timeout.ms: measured healthy too



@pytest.mark.parametrize("producer, blamed", [
    ({"delivery.timeout.ms": 8000}, ["delivery.timeout.ms"]),
    ({"request.timeout.ms": 200000}, ["request.timeout.ms"]),  # the default delivery timeout is then too short
    ({"enable.idempotence": True, "max.in.flight.requests.per.connection": 6, "retries": 0},
     ["max.in.flight.requests.per.connection", "retries"]),
    # left to its default, idempotence is turned off by a conflict, as the producer does since Kafka 3.2
    ({"max.in.flight.requests.per.connection": 10, "retries": 0}, []),
])
def test_the_producer_refuses_one_set_of_combinations_for_scenarios_and_repos_alike(producer, blamed):
    assert [name for name, _ in combinations.producer_problems(producer)] == blamed

import pytest
from conftest import wait_for
from kcliff.backends.admin import Admin
from kcliff.backends.local import LocalCluster, shared_dir
from kcliff.measure.apply import BrokerState, steps


def test_thread_pools_move_by_half_or_double_per_step():
    assert steps(8, 1) == [4, 2, 1]
    assert steps(1, 8) == [2, 4, 8]
    assert steps(3, 8) == [6, 8]
    assert steps(8, 3) == [4, 3]
    assert steps(5, 5) == []


def test_every_step_is_within_kafkas_bounds():
    for start in range(1, 40):
        for target in range(1, 40):
            previous = start
            for value in steps(start, target):
                assert previous / 2 <= value <= previous * 2, (start, target, previous, value)
                previous = value
            assert previous == target



@pytest.mark.kafka
def test_a_cluster_left_with_overrides_is_measured_and_restored(shared_cluster):
    """A crashed run or an operator left log.flush.interval.messages=1 on every broker: scenarios still
    apply and read back, and restore puts the leftover back as it was."""
    cluster = LocalCluster.from_state(shared_dir(shared_cluster))
    admin = Admin(cluster.admin_bootstrap)
    nodes = admin.broker_ids()
    admin.alter_broker_configs(nodes, {"log.flush.interval.messages": "1"})
    try:
        # a leftover an operator made long ago has been applied by every broker; one made just now not yet
        wait_for(lambda: {admin.broker_dynamic(n).get("log.flush.interval.messages") for n in nodes} == {"1"},
                 30, "every broker to apply the test's own setup")
        state = BrokerState(admin, nodes)
        state.apply({"log.flush.interval.messages": 1000, "num.io.threads": 2})
        assert {admin.broker_dynamic(n)["log.flush.interval.messages"] for n in nodes} == {"1000"}
        state.apply({})  # the reference: no overrides of kcliff's own
        assert all("num.io.threads" not in admin.broker_dynamic(n) for n in nodes)
        state.restore()
        assert {admin.broker_dynamic(n).get("log.flush.interval.messages") for n in nodes} == {"1"}
    finally:
        admin.alter_broker_configs(nodes, {"log.flush.interval.messages": None})


class _Describing:
    """Answers describe calls from a script: broker 1 is caught mid-change once (the new override's
    source with the old value), as Kafka's describe does while a broker applies a change."""

    def __init__(self, readings: list[dict[str, str]]) -> None:
        self.readings = readings

    def broker_dynamic(self, node_id: int) -> dict[str, str]:
        return self.readings.pop(0) if len(self.readings) > 1 else self.readings[0]

    def broker_config(self, node_id: int) -> dict[str, str | None]:
        return {"log.flush.interval.messages": "9223372036854775807"}


def test_originals_are_read_until_two_readings_agree():
    mid_change = {"log.flush.interval.messages": "9223372036854775807"}
    settled = {"log.flush.interval.messages": "1"}
    state = BrokerState(_Describing([mid_change, settled, settled]), [1])
    assert state.original == {1: settled}

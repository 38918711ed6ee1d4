"""What a suite plan leaves out: a canary whose cliff this cluster cannot show is skipped with the
reason, and when it was the only one measuring latency at rate, the reference measures no rate
either (a rate no canary is judged against would only cost time); where it shows, both are planned."""

from kcliff.measure.plan import plan
from kcliff.results.metrics import Workload
from kcliff.scenario.suites import Cliff, Scenario, load_suites

from tests.measure.test_suite_faults import StandInCluster, StandInRestartable

# a latency canary at rate whose cliff needs a round trip, as inflight-1's throughput cliff does
WAIT = Scenario("linger-500", "a latency canary", producer={"linger.ms": 500},
                workloads=(Workload.PRODUCE, Workload.RATE),
                cliff=Cliff("waits", "p99_at_rate", 0.3, min_client_rtt_ms=10))
FLAT = Scenario("batching-off", "a canary", producer={"batch.size": 0}, cliff=Cliff("a cliff"))


class BareLoopback(StandInCluster):
    def client_rtt_ms(self) -> float | None:
        return 0.0


def test_a_canary_at_rate_that_cannot_show_is_skipped_and_the_reference_measures_no_rate():
    reference = load_suites([])[0]
    planned = plan([reference, FLAT, WAIT], BareLoopback())
    assert "round trip of at least 10 ms" in planned.unshowable["linger-500"]
    measured = planned.interleaved + planned.alone
    assert [sc.id for sc in measured] == ["reference", "batching-off"]
    assert all(not sc.at_rate() for sc in measured)


def test_where_it_shows_the_reference_measures_at_rate_beside_the_canary():
    reference = load_suites([])[0]
    planned = plan([reference, FLAT, WAIT], StandInCluster())
    assert planned.unshowable == {}
    assert next(sc for sc in planned.interleaved if sc.id == "reference").at_rate()


def test_the_durability_canary_is_skipped_with_why_where_the_quorum_is_the_brokers():
    """Two brokers killed at once take a quorum in the brokers with them: such a cluster (compose's, or one of
    kcliff's own without its controller apart) skips the fault's scenarios, and says why."""
    reference = load_suites([])[0]
    unclean = next(sc for sc in load_suites(["failover"]) if sc.id == "unclean-election")
    planned = plan([reference, unclean], StandInRestartable())
    assert "controller apart" in planned.unshowable["unclean-election"]

    class Apart(StandInRestartable):
        def controller_apart(self) -> bool:
            return True
    assert plan([reference, unclean], Apart()).unshowable == {}

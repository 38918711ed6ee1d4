"""What a suite plan leaves out: a canary whose cliff this cluster cannot show is skipped with the
reason, and when it was the only one measuring latency at rate, the reference measures no rate
either (a rate no canary is judged against would only cost time); where it shows, both are planned."""

import dataclasses

from kcliff.measure.plan import plan
from kcliff.results.metrics import Fault, Workload
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


def test_a_cluster_kcliff_did_not_start_measures_a_member_kill_and_never_a_brokers_fault():
    """The member is kcliff's own JVM: an external cluster measures its kill, touching no broker. A broker's
    fault there is skipped with why: kcliff never touches a broker it did not start."""
    reference = load_suites([])[0]
    broker_kill = next(sc for sc in load_suites(["failover"]) if sc.id == "broker-session-30s")
    member_kill = dataclasses.replace(broker_kill, id="short-session", broker={}, fault=Fault.MEMBER_KILL,
                                      consumer={"session.timeout.ms": 10000})

    class External(StandInCluster):
        backend = "external"
    planned = plan([reference, broker_kill, member_kill], External())
    assert set(planned.unshowable) == {"broker-session-30s"}
    assert "never touches a broker it did not start" in planned.unshowable["broker-session-30s"]
    assert "short-session" in {sc.id for sc in planned.interleaved + planned.alone}

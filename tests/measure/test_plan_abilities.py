"""What a suite plan leaves out for want of an ability: latency at rate where the backend cannot run
the load generator (compose's tool container, today) is skipped with the reason, and the reference
then measures no rate either; on a backend that can, both are planned."""

from kcliff.backends.base import Abilities
from kcliff.backends.compose import ComposeCluster
from kcliff.measure.plan import plan
from kcliff.results.metrics import Workload
from kcliff.scenario.suites import Cliff, Scenario, load_suites

from tests.measure.test_suite_faults import StandInCluster

WAIT = Scenario("linger-500", "a latency canary", producer={"linger.ms": 500},
                workloads=(Workload.PRODUCE, Workload.RATE), cliff=Cliff("waits", "p99_at_rate", 0.3))
FLAT = Scenario("batching-off", "a canary", producer={"batch.size": 0}, cliff=Cliff("a cliff"))


class NoLoadGenerator(StandInCluster):
    abilities = Abilities(load_generator=False)


def test_latency_at_rate_is_skipped_with_the_reason_where_the_load_generator_cannot_run():
    reference = load_suites([])[0]
    planned = plan([reference, FLAT, WAIT], NoLoadGenerator())
    assert "load generator does not run on the stand-in backend" in planned.unshowable["linger-500"]
    measured = planned.interleaved + planned.alone
    assert [sc.id for sc in measured] == ["reference", "batching-off"]
    assert all(not sc.at_rate() for sc in measured)


def test_where_it_runs_the_reference_measures_at_rate_beside_the_canary():
    reference = load_suites([])[0]
    planned = plan([reference, FLAT, WAIT], StandInCluster())
    assert planned.unshowable == {}
    assert next(sc for sc in planned.interleaved if sc.id == "reference").at_rate()


def test_the_compose_backend_says_it_cannot_run_it_yet():
    assert not ComposeCluster.abilities.load_generator and StandInCluster.abilities.load_generator

"""What a check through a fault alone no longer spends (docs/failover.md, "Check time"): a restart between
its sides on every round where they restart differently (the head gets a local cluster of its own), and
flat-out producer runs in a self-test whose canaries are all judged through a fault."""

from __future__ import annotations

from kcliff.judge.self_test import self_test_options
from kcliff.judge.stopping import runs_left
from kcliff.measure import failover_side
from kcliff.measure.options import Options
from kcliff.measure.progress import first_figure
from kcliff.results.metrics import UNAVAILABLE, Workload
from kcliff.results.model import Entry, ReadRun
from kcliff.scenario.suites import load_suites

from .test_failover_judged import sides

SUITES = {s.id: s for s in load_suites(["canaries", "failover"])}


def test_the_head_gets_a_cluster_of_its_own_only_where_the_sides_would_restart_between_them(tmp_path):
    base, head = sides(tmp_path, "broker.heartbeat.interval.ms=1900")
    assert failover_side.head_apart([base, head], True, "local")
    assert not failover_side.head_apart([base, head], False, "local")  # healthy runs too: one cluster, as ever
    assert not failover_side.head_apart([base, head], True, "compose")  # a second compose cluster costs more
    producer_side = sides(tmp_path / "p", "max.block.ms=90000", file="producers/app-producer.properties")
    assert not failover_side.head_apart(producer_side, True, "local")  # a client setting: no restart at all


def test_a_self_test_judged_through_faults_alone_runs_no_flat_out_producer():
    opts = Options(30000, None, 3, None, True)
    through_faults = [SUITES["reference"], SUITES["broker-session-30s"]]
    assert not self_test_options(opts, through_faults).flat_out_judged
    assert self_test_options(opts, [*through_faults, SUITES["batching-off"]]).flat_out_judged
    # the reference alone (--canaries none): its flat-out figure is the early stop's yardstick
    assert self_test_options(opts, [SUITES["reference"]]).flat_out_judged


def test_runs_left_count_the_runs_that_carry_the_metric():
    measured = Entry(id="reference", workloads=["produce", "failover"],
                     read_runs=[ReadRun(workload=Workload.FAILOVER, records=1000, fo_unavailable_s=10.5)])
    assert runs_left(measured, UNAVAILABLE.name, 3) == 2  # no flat-out run, one through the fault
    measured.resummarise()
    assert first_figure(measured) == "unavailable 10.50 s"
    assert first_figure(Entry(id="reference")) == "no figures"

"""Deliveries the producer gave up on through a fault (metrics.FAILED): a head whose retries or delivery
timeout an outage outlasts fails records the service must resend or drop. Where the base failed none, any
the head failed is a regression by itself, judged only where a changed setting can move it, annotated on
that setting's line, and it stops the check measuring at once."""

from __future__ import annotations

from kcliff import configrepo
from kcliff.configrepo.diff import SettingChange
from kcliff.judge import stopping, verdict
from kcliff.judge.family import Family
from kcliff.report import check_findings
from kcliff.results.metrics import FAILED, LOST, UNAVAILABLE, ChangeKind, Workload, moves_failover
from kcliff.results.model import Entry, ReadRun

from .test_failover_judged import sides

SAME = {UNAVAILABLE.name: [10.1, 10.4, 9.9]}


def failed_check(base: int | None, head: int | None) -> verdict.ScenarioVerdict:
    return verdict.compare_scenario("head", SAME, SAME, failed=(base, head), paired=True)


def test_a_head_that_gives_up_deliveries_the_base_kept_is_a_regression():
    given_up = failed_check(0, 212)
    assert given_up.verdict is verdict.Outcome.REGRESSION and given_up.failed == 212
    assert any("gave up on 212 deliveries" in n and "base none" in n for n in given_up.notes)
    # the count decides: the statistics one round could not settle are not the reason given
    undecided = verdict.compare_scenario("head", {UNAVAILABLE.name: [10.1]}, {UNAVAILABLE.name: [10.3]}, failed=(0, 858),
                                         paired=True)
    (reason,) = verdict.judge([undecided]).reasons
    assert reason.startswith("head: regression; head's producer gave up on 858 deliveries"), reason
    assert failed_check(0, 0).verdict is verdict.Outcome.PASS
    assert failed_check(None, None).verdict is verdict.Outcome.PASS  # not judged: no setting moves it
    # a base that fails deliveries already: the service copes with them, and the count alone decides nothing
    assert failed_check(40, 90).verdict is verdict.Outcome.PASS


def test_retries_and_the_delivery_timeout_move_it_and_a_check_of_them_counts_it(tmp_path):
    assert FAILED in moves_failover(ChangeKind.PRODUCER, "retries")
    assert moves_failover(ChangeKind.PRODUCER, "delivery.timeout.ms") == {FAILED}
    assert FAILED not in moves_failover(ChangeKind.BROKER, "broker.session.timeout.ms")
    base, head = sides(tmp_path, "retries=2", file="producers/app-producer.properties")
    family = Family.of(configrepo.changed_kinds(base, head), (Workload.FAILOVER,), configrepo.failover_moved(base, head))
    assert family.counted == {FAILED} and FAILED not in family.judged and LOST not in family.judged


def test_failed_deliveries_are_annotated_on_the_setting_that_lets_an_outage_outlast_them():
    outcome = verdict.judge([failed_check(0, 212)], (), [], [])
    retries = SettingChange("producer", "retries", None, 2, "producers/app.properties", 9)
    fencing = SettingChange("broker", "broker.session.timeout.ms", None, 12000, "brokers/server.properties", 4)
    found = check_findings.measured_findings(outcome, [fencing, retries], "text")
    assert found == [f"producers/app.properties:9: regression: {retries.describe()}: the producer gave up on 212 "
                     "deliveries through a failure (base none)"]


def side(name: str, failed: int) -> Entry:
    return Entry(id=name, workloads=["failover"],
                 read_runs=[ReadRun(workload=Workload.FAILOVER, records=30000, fo_unavailable_s=10.0, fo_failed=failed)])


def test_failed_deliveries_stop_the_check_measuring_at_once_where_they_are_counted():
    counted = Family.of(set(), (Workload.FAILOVER,), frozenset({UNAVAILABLE, FAILED}))
    assert stopping.certain(6, counted)([side("base", 0), side("head", 212)])
    assert not stopping.certain(6, counted)([side("base", 0), side("head", 0)])
    # where no changed setting moves it, a head failing deliveries decides nothing
    assert not stopping.certain(6, Family.of(set(), (Workload.FAILOVER,), frozenset({UNAVAILABLE})))(
        [side("base", 0), side("head", 212)])
    assert side("head", 212).total(FAILED) == 212 and side("head", 212).total(LOST) is None

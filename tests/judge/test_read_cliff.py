"""A head whose consumer was cut at its cap twice running, where base's read on, is on a cliff of the read
side (a service committing each record reads a few hundred records a second): the check fails it as a cliff
with its consumption ratio, blamed on the consumer's changed lines, and only where it judges consumption."""

from __future__ import annotations

from kcliff import configrepo
from kcliff.judge import verdict
from kcliff.judge.family import Family
from kcliff.report import check_findings
from kcliff.results.metrics import CONSUMED, ChangeKind, Workload

BASE = {"throughput": [20.0, 21.0], "consumed": [7.1, 5.9]}
HEAD = {"throughput": [20.5, 20.0], "consumed": [0.24, 0.27]}  # measured so: max.poll.records 500 -> 1, poll-sync


def test_a_head_cut_twice_where_base_read_on_is_a_read_side_cliff_blamed_on_the_consumer_line():
    family = Family.of({ChangeKind.CONSUMER}, {Workload.PRODUCE, Workload.CONSUME})
    sv = verdict.compare_scenario("head", BASE, HEAD, family=family, reads_cut=(False, True), paired=True)
    assert sv.verdict is verdict.Outcome.CLIFF and sv.read_cliff is not None and 0.03 < sv.read_cliff < 0.05
    assert (CONSUMED, sv.read_cliff) in check_findings.failing(sv)
    change = configrepo.SettingChange("consumer", "max.poll.records", 500, 1, "c.properties", 20)
    found = check_findings.measured_findings(verdict.judge([sv]), [change], "github")
    assert len(found) == 1 and "file=c.properties,line=20" in found[0] and "consumed 0.04x" in found[0]


def test_both_cut_or_consumption_not_judged_is_no_read_side_cliff():
    family = Family.of({ChangeKind.CONSUMER}, {Workload.PRODUCE, Workload.CONSUME})
    both = verdict.compare_scenario("head", BASE, HEAD, family=family, reads_cut=(True, True), paired=True)
    assert both.read_cliff is None and both.verdict is not verdict.Outcome.CLIFF
    producer = Family.of({ChangeKind.PRODUCER}, {Workload.PRODUCE})
    unjudged = verdict.compare_scenario("head", BASE, HEAD, family=producer, reads_cut=(False, True), paired=True)
    assert unjudged.read_cliff is None

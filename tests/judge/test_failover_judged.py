"""How a check measures and judges failover (docs/failover.md): which changes bring in the run through
a fault (configrepo.failover_moved, measured_workloads), which failover metrics a change is judged on
(metrics.judged), the durability rule (verdict.compare_scenario: one lost record fails the check) and
the lines a failover regression or a lost record is annotated on (report/check_findings.py)."""

from __future__ import annotations

from pathlib import Path

from kcliff import configrepo
from kcliff.configrepo.diff import SettingChange
from kcliff.judge import sequential, stopping, verdict
from kcliff.judge.family import Family
from kcliff.measure import failover_side
from kcliff.measure.plan import FAULT_ROUNDS, GATE_ROUNDS
from kcliff.report import check_findings
from kcliff.results.model import Entry, ReadRun, Run
from kcliff.results.metrics import (CATCH_UP, FAILOVER_METRICS, FAILOVER_P999, RECOVERY, STALL, THROUGHPUT, UNAVAILABLE,
                                    ChangeKind, Workload, judged, moved_by_setting)

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "config-repo"
SERVER = "brokers/server.properties"


def sides(tmp_path: Path, *head_lines: str, file: str = SERVER):
    """The example config repo as base, and as head with `head_lines` added to `file`, as check reads them."""
    repos = []
    for name, extra in (("base", ()), ("head", head_lines)):
        root = tmp_path / name
        for path in EXAMPLE.rglob("*"):
            if path.is_file():
                target = root / path.relative_to(EXAMPLE)
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_text(path.read_text() + "".join(f"{line}\n" for line in extra if path.relative_to(EXAMPLE).as_posix() == file))
        repos.append(configrepo.to_scenario(configrepo.load([str(root)]), name))
    return repos


def test_a_broker_fencing_change_is_measured_through_a_fault_alone_and_judged_on_its_outage(tmp_path):
    base, head = sides(tmp_path, "broker.session.timeout.ms=60000")
    moved = configrepo.failover_moved(base, head)
    assert moved == {UNAVAILABLE, STALL, CATCH_UP, RECOVERY, FAILOVER_P999}
    # a timeout only a failure runs out: no healthy run can show it, so none is measured or judged
    assert configrepo.changed_kinds(base, head) == frozenset()
    base, head = configrepo.measured_workloads(base, head, at_rate=True)
    assert set(head.workloads) == set(base.workloads) == {Workload.PRODUCE, Workload.FAILOVER}
    family = Family.of(configrepo.changed_kinds(base, head), head.workloads, moved)
    assert set(family.judged) == set(FAILOVER_METRICS)
    assert family.through_faults and family.rounds(None) == FAULT_ROUNDS and family.rounds(9) == 9
    assert "a change of failure-only settings" in family.describe(0.025)
    assert sequential.Plan.for_rounds(FAULT_ROUNDS, family.size, through_faults=True).looks() == (3, 4, 5, 6)


def test_a_failover_setting_a_healthy_cluster_also_runs_on_is_measured_both_ways(tmp_path):
    base, head = sides(tmp_path, "num.replica.fetchers=2", "broker.session.timeout.ms=60000")
    assert configrepo.changed_kinds(base, head) == {ChangeKind.BROKER}
    base, head = configrepo.measured_workloads(base, head, at_rate=True)
    assert {Workload.RATE, Workload.FAILOVER} <= set(head.workloads)
    family = Family.of(configrepo.changed_kinds(base, head), head.workloads, configrepo.failover_moved(base, head))
    assert THROUGHPUT in family.judged and set(FAILOVER_METRICS) <= set(family.judged)
    assert not family.through_faults and family.rounds(None) == GATE_ROUNDS
    # a throughput regression is blamed on the setting a healthy cluster runs on, not on the timeout
    assert moved_by_setting(THROUGHPUT, ChangeKind.BROKER, "num.replica.fetchers")
    assert not moved_by_setting(THROUGHPUT, ChangeKind.BROKER, "broker.session.timeout.ms")


def test_both_sides_of_a_check_wait_for_the_shorter_sides_bound(tmp_path):
    base, head = sides(tmp_path, "broker.session.timeout.ms=60000")
    assert failover_side.bound_s(base) == 28.0 and failover_side.bound_s(head) == 130.0
    assert failover_side.shared_bound_s([base, head]) == 28.0
    assert failover_side.bound_s(head, 28.0) == 28.0 and failover_side.bound_s(base, 130.0) == 28.0


def test_a_change_no_failure_depends_on_measures_no_fault(tmp_path):
    base, head = sides(tmp_path, "num.io.threads=16")
    assert configrepo.failover_moved(base, head) == frozenset()
    _, head = configrepo.measured_workloads(base, head, at_rate=True)
    assert Workload.FAILOVER not in head.workloads


def test_measured_through_a_fault_a_change_is_judged_only_on_the_failover_metrics_its_setting_moves():
    workloads = (Workload.PRODUCE, Workload.FAILOVER)
    consumer_only = judged({ChangeKind.CONSUMER}, workloads, frozenset({STALL, CATCH_UP}))
    assert consumer_only == (STALL, CATCH_UP)
    # an A/A check (nothing changed) judges every failover metric it measured
    assert set(FAILOVER_METRICS) <= set(judged(set(), workloads))


def lost_check(base_lost: int | None, head_lost: int | None) -> verdict.ScenarioVerdict:
    same = {UNAVAILABLE.name: [10.1, 10.4, 9.9], THROUGHPUT.name: [12.0, 12.2, 11.9]}
    return verdict.compare_scenario("head", same, same, lost=(base_lost, head_lost), paired=True)


def test_one_acknowledged_record_lost_fails_the_check_as_a_durability_cliff_whatever_the_statistics():
    lost = lost_check(0, 1)
    assert lost.verdict is verdict.Outcome.CLIFF and lost.lost == 1
    assert any("lost 1 acknowledged record" in n and "base lost none" in n for n in lost.notes)
    assert lost_check(0, 0).verdict is verdict.Outcome.PASS
    assert lost_check(None, None).verdict is verdict.Outcome.PASS  # not measured through a fault
    assert lost_check(3, 2).verdict is verdict.Outcome.CLIFF  # the base losing too excuses nothing


def change(scope: str, name: str, line: int) -> SettingChange:
    return SettingChange(scope, name, None, "x", f"kafka/{scope}.properties", line)


def test_lost_records_are_annotated_on_each_changed_setting_that_decides_what_a_failure_costs():
    outcome = verdict.judge([lost_check(0, 4)], (), [], [])
    changes = [change("broker", "unclean.leader.election.enable", 7), change("producer", "batch.size", 3)]
    found = check_findings.measured_findings(outcome, changes, "text")
    assert found == [f"kafka/broker.properties:7: cliff: {changes[0].describe()}: lost 4 acknowledged record(s) under "
                     "acks=all through a failure (a durability cliff)"]
    # no such line: one finding for the run
    alone = check_findings.measured_findings(outcome, changes[1:], "github")
    assert len(alone) == 1 and "lost 4 acknowledged" in alone[0] and "file=" not in alone[0]


def test_a_lost_record_stops_the_check_measuring_at_once():
    family = Family.of({ChangeKind.BROKER}, (Workload.PRODUCE, Workload.FAILOVER), frozenset({UNAVAILABLE}))

    def side(name: str, lost: int) -> Entry:
        return Entry(id=name, runs=[Run(records=1000, mb_per_sec=10.0)], workloads=["produce", "failover"],
                     read_runs=[ReadRun(workload=Workload.FAILOVER, records=1000, fo_unavailable_s=10.0, fo_lost=lost)])
    decided = stopping.certain(18, family)
    assert decided([side("base", 0), side("head", 2)])
    assert not decided([side("base", 0), side("head", 0)])  # one round decides nothing else

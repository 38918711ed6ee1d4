"""A run through a fault read into the figures a results document keeps (measure/failover_side.py), on
output the load generator really printed.

failover-broker-kill.log was recorded on 2026-11-30 on this 2-core machine: `kcliff run --suite failover
--records 20000 --repeats 1` (local backend, Kafka 4.2.0), the reference's run through a fault: 1,024
records/s of 1 KB records on its 6-partition topic (RF 3, min ISR 2, acks=all), a consumer group member
reading, broker 1 (the group's coordinator) SIGKILLed 5.97 s into the run and started again once its
partitions had other leaders; the cluster was whole 20.14 s after the kill.
"""

import dataclasses
import json
from pathlib import Path

from kcliff.configrepo import validate
from kcliff.kafka import configs
from kcliff.measure import rate_output
from kcliff.measure.at_rate import RateRun
from kcliff.measure.failover import FailoverRun, Timeline
from kcliff.results.metrics import Fault
from kcliff.measure.failover_side import to_read_run
from kcliff.results.metrics import (CATCH_UP, FAILOVER_SETTINGS, FAILURE_ONLY, RECOVERY, STALL, UNAVAILABLE, ChangeKind,
                                    moves_failover)
from kcliff.judge.canary import canary_verdict
from kcliff.report import table
from kcliff.results import model
from kcliff.scenario import settings
from kcliff.results.model import ReadRun

DATA = Path(__file__).resolve().parents[1] / "data" / "loadgen"
FAULT_AT_S, WHOLE_AT_S, HEALED_AT_S, BOUND_S = 5.97, 26.112, 26.1, 28.0


def recorded(**failover_changes) -> rate_output.RateOutput:
    lines = (DATA / "failover-broker-kill.log").read_text().splitlines()
    summary = json.loads(lines[-1])
    summary["failover"] = {**summary["failover"], **failover_changes}
    return rate_output.parse([*lines[:-1], json.dumps(summary)])


def run_of(out: rate_output.RateOutput, whole: bool = True) -> FailoverRun:
    assert out.summary is not None and out.summary.failover is not None
    t0 = out.summary.failover.t0_wall_ms

    def at(s: float) -> int:
        return t0 + round(s * 1000)
    timeline = Timeline(victim=1, fault_ms=at(FAULT_AT_S), moved_ms=at(16.6), healed_ms=at(HEALED_AT_S),
                        whole_ms=at(WHOLE_AT_S) if whole else None)
    return FailoverRun(Fault.BROKER_KILL, BOUND_S, RateRun(out.summary, out.progress, 31.5, 0), timeline)


def test_the_recorded_run_reads_whole_with_what_the_clients_saw_of_the_fault():
    out = recorded()
    assert out.summary is not None and out.summary.failover is not None
    got = out.summary.failover
    assert (got.partitions, got.verified, got.lost, got.log_duplicates, got.read_twice) == (6, True, 0, 0, 0)
    assert got.produce_gap == rate_output.Gap(ms=10676.677, partition=0, from_s=5.959, open=False)
    assert got.consume_gap is not None and got.consume_gap.ms == 10681.692
    assert got.acked >= out.summary.acked  # warm-up records too


def test_a_run_becomes_a_failover_read_run_on_the_faults_time_line():
    run = to_read_run(run_of(recorded()), 1024.0)
    assert run.workload == "failover" and run.complete
    assert (run.fo_unavailable_s, run.fo_stall_s) == (10.677, 10.682)
    assert run.fo_catch_up_s == round(17.407 - FAULT_AT_S, 3)  # the last late read, from the kill
    assert run.fo_recovery_s == round(WHOLE_AT_S - FAULT_AT_S, 3)
    assert (run.fo_lost, run.fo_failed, run.fo_censored, run.fo_victim) == (0, 0, [], 1)
    assert run.value(UNAVAILABLE) == 10.677
    assert ReadRun.model_validate(run.model_dump()) == run  # as a results file keeps it


def test_what_had_not_ended_by_the_runs_end_is_reported_longer_not_dropped():
    open_gap = {"ms": 61000.0, "partition": 2, "from_s": 6.0, "open": True}
    run = to_read_run(run_of(recorded(produce_gap=open_gap, consume_gap=open_gap), whole=False), 1024.0)
    assert run.fo_censored == [UNAVAILABLE.key, STALL.key, CATCH_UP.key, RECOVERY.key]
    assert run.fo_unavailable_s == 61.0
    # never whole: at least from the kill to the end of the wait after the heal
    assert run.fo_recovery_s == round(HEALED_AT_S + BOUND_S - FAULT_AT_S, 3)


def test_lost_records_are_counted_only_from_a_log_read_to_its_end():
    lost = to_read_run(run_of(recorded(lost=3, lost_seqs=[7, 8, 9])), 1024.0)
    assert (lost.fo_lost, lost.fo_lost_seqs) == (3, [7, 8, 9])
    unread = to_read_run(run_of(recorded(verified=False, verify_note="x", lost=None)), 1024.0)
    assert (unread.fo_verified, unread.fo_lost) == (False, None)


def test_a_run_that_ended_before_its_fault_is_not_complete_and_says_why():
    out = recorded()
    ended = FailoverRun(Fault.BROKER_KILL, BOUND_S, RateRun(None, out.progress, 3.0, 1, "load generator could "
                                                            "not reach the cluster or the topic (exit 1)"), None)
    run = to_read_run(ended, 1024.0)
    assert not run.complete and "could not reach" in (run.stop_reason or "")
    assert dataclasses.replace(run_of(out), timeline=None).timeline is None


def test_which_settings_move_which_failover_metric_is_one_table_of_known_settings():
    assert UNAVAILABLE in moves_failover(ChangeKind.BROKER, "broker.session.timeout.ms")
    assert moves_failover(ChangeKind.CONSUMER, "session.timeout.ms") == {STALL, CATCH_UP}
    assert moves_failover(ChangeKind.PRODUCER, "batch.size") == frozenset()
    # every name in the table is a key Kafka defines for that scope: a typo would never match a change
    kafka = configs.catalogue()
    unknown = [(kind.value, name) for kind, names in FAILOVER_SETTINGS.items() for name in names
               if not kafka.releases_of(kind.value, name)]
    assert unknown == []
    # and one kcliff applies, or measures as written (a durability setting): a change of a name it only
    # noted would pass unmeasured, however much it moves an outage
    unapplied = [(kind.value, name) for table in (FAILOVER_SETTINGS, FAILURE_ONLY) for kind, names in table.items()
                 for name in names if settings.lookup(kind.value, name) is None
                 and name not in validate.DURABILITY.get(kind.value, {})]
    assert unapplied == []


RUN = Path(__file__).resolve().parents[1] / "data" / "results" / "run-failover.json"


def test_a_failover_suite_run_shows_its_outage_per_scenario_and_its_canary_seen():
    """tests/data/results/run-failover.json: `kcliff run --suite failover --records 20000 --repeats 1`, the
    same day and machine as the recorded log: the reference 10.68 s unavailable, broker-session-30s 30.54 s."""
    doc = model.load(RUN)
    reference, canary = doc.entry("reference"), doc.entry("broker-session-30s")
    assert reference is not None and canary is not None
    assert reference.median(UNAVAILABLE) == 10.677 and canary.median(UNAVAILABLE) == 30.54
    verdict = canary_verdict(canary, reference)
    assert verdict.seen and verdict.ratio is not None and 0.3 < verdict.ratio < 0.4
    header, rule, *rows = table.render(doc).splitlines()
    assert "unavailable s" in header and "lost" in header
    assert rows[0].split()[6:10] == ["10.7", "10.7", "20.1", "0"] and rows[1].endswith("cliff seen")

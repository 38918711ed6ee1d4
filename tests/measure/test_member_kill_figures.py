"""A member kill read into the figures a results document keeps (measure/member_kill.py,
failover_side._member_read_run), on output the load generator really printed.

failover-member-kill.log and failover-member-kill.member.log were recorded on 2026-11-30 on this 2-core
machine by tests/measure/test_failover_real.py's member kill (local backend, Kafka 4.2.0): 1,024 records/s of
1 KB records on a 6-partition topic (RF 3, min ISR 2, acks=all), the run's consumer and a second member in a
JVM of its own in one group, session.timeout.ms=6000 and heartbeat.interval.ms=1000. The second member was
given partitions 0-2 14.64 s after the run's first due record, read 1,160 records of them and committed
none (auto-commit every 5 s), and was SIGKILLed at 16.939 s; the survivor read partitions 0, 2 and 1 again
at 22.677, 22.687 and 22.688 s, from their start: the 1,160 records read twice.
"""

import dataclasses
from pathlib import Path

from kcliff.measure import member_kill, rate_output
from kcliff.measure.at_rate import RateRun
from kcliff.measure.failover import FailoverRun, Timeline
from kcliff.measure.failover_side import to_read_run
from kcliff.measure.member_kill import MemberSide, PartitionRead
from kcliff.results.metrics import CATCH_UP, STALL, Fault
from kcliff.results.model import ReadRun

DATA = Path(__file__).resolve().parents[1] / "data" / "loadgen"
KILLED_AT_S, BOUND_S = 16.939, 22.0


def recorded() -> tuple[rate_output.RateOutput, list[str]]:
    out = rate_output.parse((DATA / "failover-member-kill.log").read_text().splitlines())
    return out, (DATA / "failover-member-kill.member.log").read_text().splitlines()


def run_of(out: rate_output.RateOutput, member_lines: list[str], resumed=None) -> FailoverRun:
    assert out.summary is not None and out.summary.failover is not None
    t0 = out.summary.failover.t0_wall_ms
    killed = t0 + round(KILLED_AT_S * 1000)
    first, held = member_kill.parse(member_lines)
    side = MemberSide(killed, first, held, out.resumed if resumed is None else resumed)
    timeline = Timeline(None, killed, t0 + 22_700, None, None)
    return FailoverRun(Fault.MEMBER_KILL, BOUND_S, RateRun(out.summary, out.progress, 31.1, 0), timeline, side)


def test_a_last_line_the_kill_cut_short_is_skipped():
    _, member_lines = recorded()
    reads = [line for line in member_lines if '"member-read"' in line]
    assert member_kill.parse([*member_lines, reads[-1][:40]]) == member_kill.parse(member_lines)


def test_the_members_output_gives_what_it_had_read_when_it_died():
    out, member_lines = recorded()
    first, held = member_kill.parse(member_lines)
    assert set(held) == {0, 1, 2}
    assert sum(r.records for r in held.values()) == 1160
    assert all(r.seq % 6 == p for p, r in held.items())  # record seq goes to partition seq mod 6
    assert first is not None and all(r.wall_ms - first >= 1900 for r in held.values())  # read 2 s before the kill


def test_the_survivor_printed_each_partition_it_took_over():
    out, _ = recorded()
    again = [r for r in out.resumed if r.at_s > KILLED_AT_S]
    assert sorted(r.partition for r in again) == [0, 1, 2]
    assert all(22.6 < r.at_s < 22.7 for r in again)


def test_a_member_kill_becomes_a_failover_read_run_with_its_stall_and_reads_twice():
    out, member_lines = recorded()
    run = to_read_run(run_of(out, member_lines), 1024.0)
    assert run.complete and run.fo_fault == "member-kill" and run.fo_victim is None
    # partition 1: the member's last read of it at 16.813 s, the survivor's at 22.688 s
    assert run.fo_stall_s == 5.875
    assert run.fo_catch_up_s == round(22.704 - KILLED_AT_S, 3)
    assert run.fo_read_twice == 1160  # all the dead member read: it had committed none
    assert (run.fo_lost, run.fo_verified, run.fo_censored, run.fo_recovery_s) == (0, True, [], None)
    assert run.value(STALL) == 5.875
    assert ReadRun.model_validate(run.model_dump()) == run


def test_a_partition_the_survivor_never_took_over_is_censored_at_the_bound():
    out, member_lines = recorded()
    resumed = [r for r in out.resumed if r.partition != 1]
    run = to_read_run(run_of(out, member_lines, resumed=resumed), 1024.0)
    assert run.fo_censored == [STALL.key, CATCH_UP.key]
    last_read_s = 16.813  # of partition 1, by the member
    assert run.fo_stall_s == round(KILLED_AT_S + BOUND_S - last_read_s, 3)


def test_records_the_member_had_committed_are_not_read_twice():
    side = MemberSide(killed_ms=10_000, first_read_ms=5_000, held={1: PartitionRead(9_990, 601, 100)},
                      resumed=[rate_output.Resumed(rate_output.LineKind.RESUMED, 1, 4.0, 16.0, 541)])
    found = member_kill.figures(side, t0_wall_ms=0, partitions=6, bound_s=20.0)
    assert found is not None
    assert found.read_twice == 11  # seqs 541, 547, ..., 601: read from the last commit on
    assert (found.stall_s, found.partition, found.censored) == (6.01, 1, False)
    never_killed = dataclasses.replace(side, killed_ms=None)
    assert member_kill.figures(never_killed, 0, 6, 20.0) is None


def test_a_member_that_ended_before_it_was_killed_leaves_no_figures():
    out, member_lines = recorded()
    ran = dataclasses.replace(run_of(out, member_lines), timeline=None)
    run = to_read_run(ran, 1024.0)
    assert not run.complete and run.fo_stall_s is None


"""One run through a fault (issue #43, docs/failover.md): the load generator at a fixed rate, open loop,
with a member of a consumer group reading, and while it runs one scripted fault, bounded in time and
undone on every path. The load generator measures what the clients saw (Failover.java); this module
does the fault, watches the cluster's metadata for when it is whole again, and ends the run once it is
and the consumer has caught up, so a run lasts what the settings make the outage last, up to a bound."""

from __future__ import annotations

import dataclasses
import functools
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from kcliff.backends.admin import Admin, PartitionState
from kcliff.backends.base import Cluster, Faultable, faultable
from kcliff.host import procs
from kcliff.measure import at_rate, member_kill, rate_output
from kcliff.measure.at_rate import FailoverArgs, RateRun
from kcliff.measure.member_kill import MemberSide
from kcliff.measure.rate_output import RateProgress, Resumed
from kcliff.results.metrics import Fault
from kcliff.results.model import StopKind
from kcliff.scenario import settings

SETTLE_S = 3.0  # measured seconds of steady running before the fault
TAIL_S = 2.0  # once the cluster is whole and the consumer current, the run goes on this long
LATE_MS = 1000.0  # a read this long after its record was due is the consumer still catching up
POLL_S = 0.2
DRAIN_S = 15.0
READ_BACK_S = 30.0  # Failover.VERIFY_S: the log read back after the drain, at most
BEHIND_S = 2.0  # once fenced, the broker held behind misses this long of writes the others acknowledge
ELECTION_S = 3.0  # once the dead brokers are fenced, an unclean election has this long to happen


@dataclass(frozen=True)
class Timeline:
    """When each step of the fault happened, in wall-clock ms (the load generator's t0 is on the same
    clock); None where the step had not happened by its bound. A rolling restart's are its last broker's,
    and None where any broker's step was not done by its bound."""
    victim: int | None  # the broker killed (a rolling restart's last); None: a consumer group's member was
    fault_ms: int
    moved_ms: int | None  # every partition the victim led has another leader
    healed_ms: int | None  # the victim runs again
    whole_ms: int | None  # every partition has a leader and its full ISR


@dataclass(frozen=True)
class FailoverRun:
    """A run through a fault: what the load generator measured, and the fault's time line."""
    fault: Fault
    bound_s: float
    run: RateRun
    timeline: Timeline | None  # None: the fault was never made (the run ended before it)
    member: MemberSide | None = None  # a member kill's: what the killed member had read

    def at_s(self, wall_ms: int | None) -> float | None:
        """A wall-clock time on the run's own time line: seconds after its first due record."""
        figures = self.run.summary.failover if self.run.summary else None
        if wall_ms is None or figures is None:
            return None
        return round((wall_ms - figures.t0_wall_ms) / 1000, 3)


class _Followed:
    """The load generator's output read while the fault script runs in this thread (children a thread
    other than the main one starts would not die with kcliff: procs._die_with)."""

    def __init__(self, tool: procs.FollowedTool) -> None:
        self.tool = tool
        self.ended = False

    def pump(self, seconds: float) -> None:
        deadline = time.monotonic() + seconds
        while not self.ended and (left := deadline - time.monotonic()) > 0:
            if self.tool.next_line(timeout=min(left, 0.5)) is None:
                self.ended = True
        if self.ended and seconds > 0:
            time.sleep(max(0.0, deadline - time.monotonic()))

    def wait_for(self, done: Callable[[], bool], bound_s: float) -> bool:
        """Whether `done` came true within `bound_s`, the output read meanwhile."""
        deadline = time.monotonic() + bound_s
        while time.monotonic() < deadline:
            if done():
                return True
            self.pump(POLL_S)
        return done()

    def progress(self) -> list[RateProgress]:
        return rate_output.parse(self.tool.seen).progress

    def resumed(self) -> list[Resumed]:
        return rate_output.parse(self.tool.seen).resumed


def wall_ms() -> int:
    return time.time_ns() // 1_000_000


def failover_run(cluster: Cluster, admin: Admin, topic: str, rate: float, producer: dict[str, Any],
                 consumer: dict[str, Any] | None, log_path: Path, bound_s: float, warmup_s: float,
                 fault: Fault = Fault.BROKER_KILL, record_size: int = settings.RECORD_SIZE) -> FailoverRun:
    """One run at `rate` records/s through `fault` on `topic`; each step of the fault waits at most
    `bound_s`. The fault is undone (a dead broker started again) whatever ends the run. A broker's fault needs
    a cluster kcliff can restart (failover_side.unmakeable says which); a member kill touches none."""
    stop_file = log_path.with_suffix(".stop")
    stop_file.write_text("")
    # a group of its own per run: a member killed in the last run stays in its group for its whole session
    # (300 s for a long one), and the next run's member would wait that long to be given every partition
    group = f"kcliff-failover-{topic}-{uuid.uuid4().hex[:6]}" if consumer is not None else None
    args = FailoverArgs(LATE_MS, stop_file, group)
    steps = {Fault.ROLLING_RESTART: 3 * len(admin.broker_ids()), Fault.FOLLOWER_BEHIND: 4}.get(fault, 3)
    duration_s = SETTLE_S + steps * bound_s + TAIL_S
    producer_file, consumer_file = at_rate.client_files(log_path, producer, consumer)
    argv = at_rate.rate_argv(cluster, topic, rate, duration_s, warmup_s, producer_file, consumer_file, record_size,
                             drain_s=DRAIN_S, failover=args)
    cap_s = at_rate.START_S + warmup_s + duration_s + DRAIN_S + READ_BACK_S
    began, since_ms = time.monotonic(), wall_ms()  # the member reads this run's records, none before
    timeline: Timeline | None = None
    member: MemberSide | None = None
    member_argv: list[str] | None = None
    crash_member: Callable[[int], None] = procs.crash
    if fault is Fault.MEMBER_KILL:
        if consumer_file is None or group is None:
            raise ValueError("a member kill needs the consumer group's settings")
        # its command first: building a class archive for it (host/class_archive.py) took seconds mid-run
        member_argv = member_kill.member_argv(cluster, topic, consumer_file, group, since_ms)
        crash_member = functools.partial(cluster.crash_tool, name=member_kill.member_name(group))
    with procs.FollowedTool(argv, log_path) as tool:
        followed = _Followed(tool)
        try:
            if member_argv is not None:  # its JVM starts as the run does, and is killed SETTLE_S in at the soonest
                if followed.wait_for(lambda: _measuring_for(followed, 0.0), at_rate.START_S + warmup_s):
                    timeline, member = _member_kill(member_argv, log_path.with_suffix(".member.log"), followed,
                                                    bound_s, crash_member)
            elif followed.wait_for(lambda: _measuring_for(followed, SETTLE_S), at_rate.START_S + warmup_s + SETTLE_S):
                made = {Fault.ROLLING_RESTART: _rolling_restart, Fault.FOLLOWER_BEHIND: _follower_behind
                        }.get(fault, _broker_kill)
                timeline = made(_own(cluster), admin, topic, group, followed, rate, bound_s)
        finally:
            own = faultable(cluster)
            if own is not None and own.dead_nodes():
                own.heal()  # the fault is undone on every path, an interrupt's too
            stop_file.write_text("stop\n")
        followed.wait_for(lambda: followed.ended, max(0.0, began + cap_s - time.monotonic()))
    out = rate_output.parse(tool.seen)
    elapsed = round(time.monotonic() - began, 3)
    code = tool.proc.returncode
    if out.summary is None:
        failure = at_rate.failure(code, procs.last_error(tool.errors)) if followed.ended \
            else f"load generator still running after {cap_s:.0f}s"
        kind = StopKind.FAILED if followed.ended else StopKind.BUDGET
        return FailoverRun(fault, bound_s, RateRun(None, out.progress, elapsed, code, failure, kind), timeline, member)
    if member is not None:  # the survivor's last lines too: its summary came after the kill's steps
        member = dataclasses.replace(member, resumed=out.resumed)
    return FailoverRun(fault, bound_s, RateRun(out.summary, out.progress, elapsed, code), timeline, member)


def _own(cluster: Cluster) -> Faultable:
    own = faultable(cluster)
    if own is None:  # failover_side.unmakeable refuses a broker's fault first
        raise ValueError(f"the {cluster.backend} backend cannot kill and start a broker")
    return own


def _measuring_for(followed: _Followed, seconds: float) -> bool:
    progress = followed.progress()
    return bool(progress) and progress[-1].elapsed_s >= seconds


def _broker_kill(cluster: Faultable, admin: Admin, topic: str, group: str | None, followed: _Followed,
                 rate: float, bound_s: float) -> Timeline:
    """Kill the broker that coordinates the consumer's group (else the first partition's leader), wait
    until its partitions have other leaders, start it again, wait until every partition is whole."""
    victim = _victim(admin, topic, group)
    led = {p.partition for p in admin.partitions(topic) if p.leader == victim}
    fault_ms = wall_ms()
    cluster.kill_broker(victim)
    moved = followed.wait_for(lambda: _led_elsewhere(admin, topic, led, victim), bound_s)
    moved_ms = wall_ms() if moved else None
    cluster.heal()
    healed_ms = wall_ms()
    whole = followed.wait_for(lambda: _whole(admin, topic), bound_s)
    whole_ms = wall_ms() if whole else None
    followed.wait_for(lambda: _caught_up(followed, rate), bound_s)
    followed.pump(TAIL_S)
    return Timeline(victim, fault_ms, moved_ms, healed_ms, whole_ms)


def _rolling_restart(cluster: Faultable, admin: Admin, topic: str, group: str | None, followed: _Followed,
                     rate: float, bound_s: float) -> Timeline:
    """Stop each broker in turn (the group's coordinator last), wait until its partitions have other
    leaders, start it again and wait until every partition is whole, then for the consumer to catch up."""
    coordinator = _victim(admin, topic, group)
    order = sorted(admin.broker_ids(), key=lambda b: (b == coordinator, b))
    fault_ms = wall_ms()
    moved_ms = healed_ms = whole_ms = fault_ms
    moved = whole = True
    for broker in order:
        led = {p.partition for p in admin.partitions(topic) if p.leader == broker}
        cluster.stop_broker(broker, grace_s=bound_s)
        moved &= followed.wait_for(lambda: _led_elsewhere(admin, topic, led, broker), bound_s)
        moved_ms = wall_ms()
        cluster.heal()
        healed_ms = wall_ms()
        whole &= followed.wait_for(lambda: _whole(admin, topic), bound_s)
        whole_ms = wall_ms()
    followed.wait_for(lambda: _caught_up(followed, rate), bound_s)
    followed.pump(TAIL_S)
    return Timeline(order[-1], fault_ms, moved_ms if moved else None, healed_ms, whole_ms if whole else None)


def _follower_behind(cluster: Faultable, admin: Admin, topic: str, group: str | None, followed: _Followed,
                     rate: float, bound_s: float) -> Timeline:
    """Pause a broker other than the group's coordinator until the controller has fenced it (out of every
    ISR) and it has missed BEHIND_S of acknowledged writes; kill the other two at once and resume it. Once
    the controller has fenced the dead ones, only an unclean election gives a partition a leader, the one
    behind, without what it missed; then start the two again and wait until every partition is whole."""
    coordinator = _victim(admin, topic, group)
    brokers = admin.broker_ids()
    behind = next(b for b in sorted(brokers, reverse=True) if b != coordinator)
    others = [b for b in brokers if b != behind]
    fault_ms = wall_ms()
    cluster.pause_broker(behind)
    try:  # resumed on every path: a paused JVM holds its clients' connections open
        followed.wait_for(lambda: _out_of_sync(admin, topic, behind), bound_s)
        followed.pump(BEHIND_S)
        for broker in others:
            cluster.kill_broker(broker)
    finally:
        cluster.resume_broker(behind)
    if followed.wait_for(lambda: _none_led_by(admin, topic, set(others)), bound_s):
        followed.wait_for(lambda: _all_led(admin, topic), ELECTION_S)
    led = _all_led(admin, topic)
    moved_ms = wall_ms() if led else None
    cluster.heal()
    healed_ms = wall_ms()
    whole = followed.wait_for(lambda: _whole(admin, topic), bound_s)
    whole_ms = wall_ms() if whole else None
    if moved_ms is None and whole:  # no unclean election: the partitions led again once the in-sync came back
        moved_ms = whole_ms
    followed.wait_for(lambda: _caught_up(followed, rate), bound_s)
    followed.pump(TAIL_S)
    return Timeline(behind, fault_ms, moved_ms, healed_ms, whole_ms)


def _member_kill(argv: list[str], log_path: Path, followed: _Followed, bound_s: float,
                 crash: Callable[[int], None]) -> tuple[Timeline | None, MemberSide]:
    """Start a second member of the group, kill it (`crash`) once it has read a while and the run has settled,
    wait until the survivor reads every partition it held and is current again. Its JVM ends with the block."""
    with member_kill.Member(argv, log_path, crash) as member:
        def ready() -> bool:
            return member.has_read_for(member_kill.MEMBER_READ_S) and _measuring_for(followed, SETTLE_S)
        if not member_kill.wait(member, followed.pump, ready, bound_s):
            return None, member.side(followed.resumed())
        before = len(followed.resumed())
        fault_ms = member.kill()
        moved = member_kill.wait(member, followed.pump,
                                 lambda: member_kill.taken_over(member, followed.resumed()[before:]), bound_s)
        moved_ms = wall_ms() if moved else None
        seen = len(followed.progress())
        member_kill.wait(member, followed.pump, lambda: _current(followed.progress()[seen:]), bound_s)
        followed.pump(TAIL_S)
        return Timeline(None, fault_ms, moved_ms, None, None), member.side(followed.resumed())


def _current(progress: list[RateProgress]) -> bool:
    """The consumer read nothing late in an interval: what the dead member read and committed is never read
    here, so its counts cannot tell (as _caught_up does for a broker kill)."""
    return any(p.end_to_end is not None and p.end_to_end.max_ms is not None and p.end_to_end.max_ms <= LATE_MS
               for p in progress)


def _victim(admin: Admin, topic: str, group: str | None) -> int:
    coordinator = admin.group_coordinator(group) if group else None
    if coordinator is not None:
        return coordinator
    return next(p.leader for p in admin.partitions(topic) if p.leader >= 0)


def _every_partition(admin: Admin, topic: str, holds: Callable[[PartitionState], bool]) -> bool:
    """Whether the metadata answered and every partition of `topic` is as `holds` asks (polled while the cluster
    is damaged: a short timeout, and no answer is no)."""
    states = admin.partitions(topic, timeout=2.0)
    return bool(states) and all(holds(p) for p in states)


def _none_led_by(admin: Admin, topic: str, dead: set[int]) -> bool:
    """The controller has fenced the `dead` brokers: no partition names one of them its leader."""
    return _every_partition(admin, topic, lambda p: p.leader not in dead)


def _out_of_sync(admin: Admin, topic: str, broker: int) -> bool:
    """The controller has taken `broker` out of every partition's ISR (it fences a broker that stops heartbeating)."""
    return _every_partition(admin, topic, lambda p: broker not in p.isr)


def _all_led(admin: Admin, topic: str) -> bool:
    return _every_partition(admin, topic, lambda p: p.leader >= 0)


def _led_elsewhere(admin: Admin, topic: str, led: set[int], victim: int) -> bool:
    return _every_partition(admin, topic, lambda p: p.partition not in led or 0 <= p.leader != victim)


def _whole(admin: Admin, topic: str) -> bool:
    return _every_partition(admin, topic, lambda p: p.whole)


def _caught_up(followed: _Followed, rate: float) -> bool:
    """The consumer has read all but about a second of what was acknowledged (no consumer: at once)."""
    progress = followed.progress()
    consumed = progress[-1].consumed if progress else None
    return consumed is None or progress[-1].acked - consumed <= rate

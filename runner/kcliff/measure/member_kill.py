"""The member kill (issue #43, docs/failover.md): while the load generator's member of the consumer group
reads, a second member joins the group in a JVM of its own (the load generator's `--member`, Member.java);
once the group has given it partitions and it has read them a while, kcliff SIGKILLs it, a crash: no
close, no leave group. The group learns of it only when its session times out (the consumer's
session.timeout.ms, classic protocol; the brokers' group.consumer.session.timeout.ms, consumer
protocol), and only then does the surviving member read its partitions again.

The dead member cannot print a summary, so it prints what it has read as it goes (`member-read` lines);
the survivor prints each partition it reads again after a gap (`resumed` lines, Failover.java). Both
together give each partition's longest time unread across the kill (`figures`)."""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable

from kcliff.backends.base import Cluster
from kcliff.host import procs
from kcliff.kafka import loadgen
from kcliff.measure.rate_output import Resumed

MEMBER_READ_S = 2.0  # the member reads this long before it is killed: it holds partitions and is current
POLL_S = 0.2


@dataclass(frozen=True)
class PartitionRead:
    """The member's latest read of one partition: when (wall clock, ms), which record, how many so far."""
    wall_ms: int
    seq: int
    records: int


@dataclass(frozen=True)
class MemberSide:
    """What the killed member had read, and when it was killed (wall clock, ms); `resumed` is what the
    surviving member printed of the partitions it read again after a gap."""
    killed_ms: int | None  # None: it was never killed (it ended, or never read, within the bound)
    first_read_ms: int | None
    held: dict[int, PartitionRead]
    resumed: list[Resumed] = field(default_factory=list)
    exit_code: int | None = None  # the member's own exit, when it ended before it was killed


def parse(lines: Iterable[str]) -> tuple[int | None, dict[int, PartitionRead]]:
    """The member's output: the wall clock of its first read, and each partition's latest read (its last
    `member-read` line; lines that are no JSON object, a JVM's warnings or a line the kill cut, are skipped)."""
    first: int | None = None
    held: dict[int, PartitionRead] = {}
    for line in lines:
        text = line.strip()
        if not text.startswith("{"):
            continue
        try:
            fields = json.loads(text)
        except json.JSONDecodeError:  # its last line, cut short where the SIGKILL found it
            continue
        if fields.get("type") != "member-read":
            continue
        first = fields["wall_ms"] if first is None else first
        held = {int(p): PartitionRead(*values) for p, values in fields["partitions"].items()}
    return first, held


@dataclass(frozen=True)
class MemberFigures:
    stall_s: float  # the longest time any partition went unread across the kill, both members' reads counted
    partition: int | None
    censored: bool  # a partition of the dead member's was not read again by the run's end: longer than said
    read_twice: int  # records the dead member read and the survivor read again (its uncommitted reads)


def figures(member: MemberSide, t0_wall_ms: int, partitions: int, bound_s: float) -> MemberFigures | None:
    """Each gap of the survivor's that ended after the kill, from the latest read of that partition by
    either member; a partition of the dead member's not read again is censored at the kill plus `bound_s`
    (how long it was waited for). None: the member was never killed."""
    if member.killed_ms is None:
        return None
    kill_s = (member.killed_ms - t0_wall_ms) / 1000

    def last_read_s(p: int) -> float | None:
        read = member.held.get(p)
        return None if read is None else (read.wall_ms - t0_wall_ms) / 1000
    worst, worst_p, twice = 0.0, None, 0
    taken: set[int] = set()
    for r in member.resumed:
        if r.at_s <= kill_s:
            continue
        mine = last_read_s(r.partition)
        gap = r.at_s - max(r.from_s, mine if mine is not None else r.from_s)
        if gap > worst:
            worst, worst_p = gap, r.partition
        if r.partition in member.held and r.partition not in taken:
            taken.add(r.partition)  # the survivor's first read after the kill: from the group's committed offset
            twice += max(0, (member.held[r.partition].seq - r.seq) // partitions + 1)
    open_parts = [p for p in member.held if p not in taken]
    for p in open_parts:
        start = last_read_s(p)
        gap = kill_s + bound_s - (start if start is not None else kill_s)
        if gap > worst:
            worst, worst_p = gap, p
    return MemberFigures(round(worst, 3), worst_p, bool(open_parts), twice)


def member_argv(cluster: Cluster, topic: str, consumer_file: Path, group: str, since_ms: int) -> list[str]:
    """The second member's JVM: the scenario's consumer settings, the run's group, this run's records; named
    after its group (member_name), which no other run shares, so that Cluster.crash_tool finds it."""
    args = ["--bootstrap-servers", cluster.tool_bootstrap, "--topic", topic, "--consumer-config", str(consumer_file),
            "--member", group, "--since-ms", str(since_ms)]
    return cluster.tool_command(loadgen.MAIN_CLASS, args, (consumer_file,), jars=loadgen.ensure(),
                                name=member_name(group))


def member_name(group: str) -> str:
    return f"{group}-member"


Pump = Callable[[float], None]  # reads the load generator's output for this many seconds


class Member:
    """The second member, started in this (the main) thread so it dies with kcliff (procs._die_with), and
    stopped when the `with` block ends whatever ended it; its output is kept in `log_path`."""

    def __init__(self, argv: list[str], log_path: Path, crash: Callable[[int], None] = procs.crash) -> None:
        self.tool = procs.FollowedTool(argv, log_path)
        self.killed_ms: int | None = None
        self.crash = crash  # SIGKILLs the member given its pid (Cluster.crash_tool: a container's too)

    def __enter__(self) -> Member:
        return self

    def __exit__(self, *exc: object) -> None:
        self.tool.__exit__(*exc)

    def drain(self) -> None:
        while self.tool.next_line(timeout=0.0):
            pass

    def read(self) -> tuple[int | None, dict[int, PartitionRead]]:
        self.drain()
        return parse(self.tool.seen)

    def ended(self) -> bool:
        return self.tool.proc.poll() is not None

    def has_read_for(self, seconds: float) -> bool:
        first, held = self.read()
        return first is not None and any(r.wall_ms - first >= seconds * 1000 for r in held.values())

    def kill(self) -> int:
        """SIGKILL, a crash: no consumer close, no leave group. Returns the wall clock (ms) of the kill."""
        self.drain()
        self.killed_ms = time.time_ns() // 1_000_000
        self.crash(self.tool.proc.pid)
        return self.killed_ms

    def side(self, resumed: list[Resumed]) -> MemberSide:
        first, held = self.read()
        code = None if self.killed_ms is not None else self.tool.proc.poll()
        return MemberSide(self.killed_ms, first, held, resumed, code)


def wait(member: Member, pump: Pump, done: Callable[[], bool], bound_s: float) -> bool:
    """Whether `done` came true within `bound_s`, both members' output read meanwhile; False at once when
    the member ended on its own."""
    deadline = time.monotonic() + bound_s
    while time.monotonic() < deadline:
        if done():
            return True
        if member.killed_ms is None and member.ended():
            return False
        pump(POLL_S)
        member.drain()
    return done()


def taken_over(member: Member, resumed_since_kill: list[Resumed]) -> bool:
    """Every partition the dead member read has been read again by the survivor since the kill (the
    survivor's `resumed` lines that came after it)."""
    return set(member.read()[1]) <= {r.partition for r in resumed_since_kill}

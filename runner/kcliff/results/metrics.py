"""The figures kcliff judges and the workloads that measure them: each metric carries its own rules
(direction, resolution, the floor on a minimum effect, the kinds of change that can move it), so
every judge reads them from one place."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Iterable


class Workload(StrEnum):
    """What a scenario measures: the producer flat out always (it fills the topic the others read),
    and when asked a consumer reading the topic, end-to-end latency, or latency at a fixed production
    rate (the load generator, produce and end-to-end, from each record's due time: docs/loadgen.md), or
    a run at a fixed rate through a fault: a broker killed while a consumer group reads (docs/failover.md)."""

    PRODUCE = "produce"
    CONSUME = "consume"
    END_TO_END = "end-to-end"
    RATE = "rate"
    FAILOVER = "failover"


# The runs after a side's producer run, on its topic (measure/read_round.py read_order).
READ_WORKLOADS = (Workload.CONSUME, Workload.END_TO_END, Workload.RATE, Workload.FAILOVER)
READ_SIDE = (Workload.CONSUME, Workload.END_TO_END)  # the consumer's: what a consumer change brings in


class ChangeKind(StrEnum):
    """The kind of setting a pull request changes, named after the scope it is written for. A Kafka
    version change is a broker change: the brokers run the new code (the clients too, but every
    metric a client change can move, a broker change can move as well)."""

    BROKER = "broker"
    TOPIC = "topic"
    PRODUCER = "producer"
    CONSUMER = "consumer"

    @classmethod
    def of_scope(cls, scope: str) -> ChangeKind:
        """The kind of a setting's scope (configrepo's "broker", "topic", "producer", "consumer",
        "kafka" for the version, "consuming" for how the consumer's service consumes)."""
        return cls.BROKER if scope == "kafka" else cls.CONSUMER if scope == "consuming" else cls(scope)


EVERY_KIND = frozenset(ChangeKind)
# What the producer's runs measure depends on the brokers, the topic and the producer alone: the
# consumer of a round runs after them, on the records they wrote.
PRODUCE_SIDE = frozenset({ChangeKind.BROKER, ChangeKind.TOPIC, ChangeKind.PRODUCER})


@dataclass(frozen=True)
class Noise:
    """A prior on the spread of a metric's per-round log ratios in a paired check: their sd, as worth `df`
    degrees of freedom. A check's own few pairs are pooled with it (judge/stats.pair_spread: a moderated t,
    Smyth 2004), so three pairs can rule out what a t-test on their 2 degrees of freedom alone cannot."""

    sd: float
    df: int


@dataclass(frozen=True)
class Metric:
    """A figure kcliff judges: its name in verdicts and charts, its key in a run and a summary."""

    name: str
    key: str
    unit: str
    higher_is_better: bool
    workload: Workload = Workload.PRODUCE  # whose runs carry it: the producer's, the consumer's or end-to-end's
    # How large a worsening a comparison's interval must rule out before "pass" is said (a fraction;
    # None: no such check, an unresolved metric does not by itself make a verdict inconclusive).
    resolution: float | None = None
    # The least the metric must move to count, whatever minimum effect a comparison asks for.
    min_effect_floor: float = 0.0
    # The kinds of change that can move it: a check judges it only when one of them differs between
    # base and head (judged()). A metric that does not say is moved by every kind, so it is never left
    # unjudged by omission.
    moved_by: frozenset[ChangeKind] = EVERY_KIND
    percentile: int | None = None  # the latency percentile it reads at a service's rate (verdict.within_budget)
    # Counted exactly, never judged by statistics: one is a cliff by itself (LOST)
    exact: bool = False
    # What A/A checks put the spread of its per-round log ratios at, where they could (judge/stats.pair_spread)
    noise: Noise | None = None

    @property
    def direction(self) -> int:
        return 1 if self.higher_is_better else -1

    def moved(self, changed: Iterable[ChangeKind]) -> bool:
        """Whether a change of these kinds can move this metric."""
        return not self.moved_by.isdisjoint(changed)


# A throughput must rule out a 20% drop (twice the gate's default minimum effect, judge/verdict.py), so a
# pass means "no 20% drop", not "too noisy to tell"; the consumer's MB/s is judged like the producer's.
# p99's run-to-run spread is often larger than any effect worth gating on: it fails the gate on a certain
# regression, never blocks a pass alone; end-to-end p99 (of 200 records) likewise.
THROUGHPUT_RESOLUTION = 0.2
THROUGHPUT = Metric("throughput", "mb_per_sec", "MB/s", True, resolution=THROUGHPUT_RESOLUTION, moved_by=PRODUCE_SIDE)
P99 = Metric("p99", "p99_ms", "ms", False, moved_by=PRODUCE_SIDE)
# The consumer reads the batches the producer wrote: batch.size and linger.ms decide how many records a
# fetch brings back per batch, compression.type what it must decompress. So a producer change moves it too.
CONSUMED = Metric("consumed", "consumed_mb_per_sec", "MB/s", True, Workload.CONSUME, resolution=THROUGHPUT_RESOLUTION,
                  moved_by=EVERY_KIND)
# End-to-end p99 is the second-slowest of 200 round trips: five checks of one benign change put it at
# 0.73-1.24x, and the settings that hurt it cost several times that (docs/gate.md, "End-to-end p99 counts
# only beyond 50%").
E2E_P99 = Metric("e2e_p99", "e2e_p99_ms", "ms", False, Workload.END_TO_END, min_effect_floor=0.5)
# Latency at a fixed rate. Produce latency is the producer's and the brokers'; end-to-end latency at rate is
# every side's (fetch.min.bytes and fetch.max.wait.ms wait in it). The median is judged beside p99: a stall of
# the shared machine sets a short run's p99 now and then (a base round at 70 ms among 9.5-11 ms ones) and
# leaves its median alone (4.2-5.1 ms), and a setting that makes every record wait (linger.ms,
# fetch.max.wait.ms) moves the median as much (docs/gate.md). A pass must rule out a 30% worsening of the
# medians: in 25 of 27 A/A checks of the campaign both were certain at 30% by the round the check stopped
# anyway (at 20%, in 13), so it seldom costs a round (benchmarks/replay_resolution.py). The p99s could not
# rule out even a doubling by then in most: like p99 flat out, they fail a check on a certain regression
# and never block a pass alone.
RATE_P50_RESOLUTION = 0.3
RATE_P50 = Metric("p50_at_rate", "rate_p50_ms", "ms", False, Workload.RATE, resolution=RATE_P50_RESOLUTION,
                  moved_by=PRODUCE_SIDE, percentile=50)
RATE_P99 = Metric("p99_at_rate", "rate_p99_ms", "ms", False, Workload.RATE, moved_by=PRODUCE_SIDE, percentile=99)
RATE_E2E_P50 = Metric("e2e_p50_at_rate", "rate_e2e_p50_ms", "ms", False, Workload.RATE, resolution=RATE_P50_RESOLUTION,
                      percentile=50)
RATE_E2E_P99 = Metric("e2e_p99_at_rate", "rate_e2e_p99_ms", "ms", False, Workload.RATE, percentile=99)
# Through a fault (a broker killed while a consumer group reads, docs/failover.md), in seconds: the longest
# time a partition acknowledged no write, the longest a partition's records went unread, from the fault
# until the consumer read nothing late again, until every partition had its leader and full ISR; and
# produce p99.9 over the run. Each only where a changed setting can move it (FAILOVER_SETTINGS).
# A pass must rule out that an outage grew by half: the reference's runs scatter 10-20% (docs/failover.md),
# and the timeouts that decide an outage move it by whole multiples.
FAILOVER_RESOLUTION = 0.5
# An outage's length is set by timeouts and by where in its heartbeat period the fault falls, not by what binds
# the rig, so its per-round spread is known before a check starts: the A/A failover checks
# (benchmarks/noise_prior.py over benchmarks/data/aa-failover-local-2c.json) put it at 0.17-0.22, with no sign
# that it differs between checks (Smyth's prior df 60 to unbounded). Taken as worth FAILOVER_PRIOR_DF pairs' df,
# well below that: a rig whose spread were half as large again is still seen by a check's own pairs.
FAILOVER_PRIOR_DF = 10
UNAVAILABLE = Metric("unavailable", "fo_unavailable_s", "s", False, Workload.FAILOVER, FAILOVER_RESOLUTION,
                     min_effect_floor=0.25, moved_by=PRODUCE_SIDE, noise=Noise(0.22, FAILOVER_PRIOR_DF))
STALL = Metric("stall", "fo_stall_s", "s", False, Workload.FAILOVER, FAILOVER_RESOLUTION, min_effect_floor=0.25,
               noise=Noise(0.22, FAILOVER_PRIOR_DF))
CATCH_UP = Metric("catch_up", "fo_catch_up_s", "s", False, Workload.FAILOVER, min_effect_floor=0.25,
                  noise=Noise(0.22, FAILOVER_PRIOR_DF))
RECOVERY = Metric("recovery", "fo_recovery_s", "s", False, Workload.FAILOVER, FAILOVER_RESOLUTION,
                  min_effect_floor=0.25, moved_by=frozenset({ChangeKind.BROKER, ChangeKind.TOPIC}),
                  noise=Noise(0.18, FAILOVER_PRIOR_DF))
FAILOVER_P999 = Metric("p999_failover", "fo_p999_ms", "ms", False, Workload.FAILOVER, min_effect_floor=0.25,
                       moved_by=PRODUCE_SIDE, noise=Noise(0.22, FAILOVER_PRIOR_DF))
FAILOVER_METRICS = (UNAVAILABLE, STALL, CATCH_UP, RECOVERY, FAILOVER_P999)
# Acknowledged under acks=all and not in the log read back: one fails a check by itself (verdict.compare_scenario),
# and a durability canary shows its cliff by losing any (judge/canary.py); a series of its own in the export.
LOST = Metric("lost", "fo_lost", "records", False, Workload.FAILOVER, exact=True)
# Deliveries the producer gave up on through the fault (its retries or delivery timeout ran out): the service
# got an exception for each, and must resend or drop it. Where the base failed none, one the head failed
# fails a check (verdict.compare_scenario), judged only where a changed setting can move it.
FAILED = Metric("failed", "fo_failed", "records", False, Workload.FAILOVER, exact=True)
METRICS: dict[str, Metric] = {m.name: m for m in (THROUGHPUT, P99, CONSUMED, E2E_P99, RATE_P50, RATE_P99, RATE_E2E_P50,
                                                  RATE_E2E_P99, *FAILOVER_METRICS, LOST, FAILED)}


def judged(changed: Iterable[ChangeKind], workloads: Iterable[Workload],
           failover: frozenset[Metric] = frozenset()) -> tuple[Metric, ...]:
    """The one rule of which metrics a check judges: those its `workloads` measure that a change of the
    `changed` kinds can move (the failure-only settings left out: configrepo.changed_kinds); of the failover
    metrics, those the changed settings move (`failover`, from FAILOVER_SETTINGS). Nothing changed (an A/A
    check asked for with --measure-unchanged): every measured metric, so that an A/A check exercises the
    whole family it would judge."""
    kinds, measured = frozenset(changed), frozenset(workloads)

    def moved(m: Metric) -> bool:
        return m in failover if m.workload is Workload.FAILOVER else m.moved(kinds)
    return tuple(m for m in METRICS.values() if m.workload in measured and not m.exact
                 and (not (kinds or failover) or moved(m)))
SUMMARY_KEYS = ("mb_per_sec", "records_per_sec", "avg_ms", "max_ms", "p50_ms", "p95_ms", "p99_ms", "p999_ms")
READ_SUMMARY_KEYS = ("consumed_mb_per_sec", "consumed_records_per_sec", "e2e_avg_ms", "e2e_p50_ms", "e2e_p99_ms",
                     "e2e_p999_ms", "rate_achieved_per_s", "rate_p50_ms", "rate_p99_ms", "rate_p999_ms",
                     "rate_e2e_p50_ms", "rate_e2e_p99_ms", "rate_e2e_p999_ms", *(m.key for m in FAILOVER_METRICS),
                     LOST.key, FAILED.key)


# Settings whose effect is a trade between CPU and bytes: fewer bytes for more CPU (compression), fuller
# batches for waiting (batch.size, linger.ms), buffers and fetch sizes, thread pools. A rig that binds on CPU
# reads each of them the other way round from a cluster that binds on its network or disks, so a check of
# one is measured where the repo's cluster binds (its rig profile), or on both kinds of rig (judge/tradeoff.py).
TRADES_CPU_FOR_BYTES: dict[ChangeKind, frozenset[str]] = {
    ChangeKind.PRODUCER: frozenset({"compression.type", "compression.gzip.level", "compression.lz4.level",
                                    "compression.zstd.level", "batch.size", "linger.ms", "send.buffer.bytes",
                                    "buffer.memory"}),
    ChangeKind.TOPIC: frozenset({"compression.type", "compression.gzip.level", "compression.lz4.level",
                                 "compression.zstd.level"}),
    ChangeKind.BROKER: frozenset({"compression.type", "num.network.threads", "num.io.threads", "num.replica.fetchers",
                                  "replica.fetch.max.bytes", "replica.fetch.min.bytes", "replica.fetch.wait.max.ms",
                                  "socket.send.buffer.bytes", "socket.receive.buffer.bytes",
                                  "replica.socket.receive.buffer.bytes"}),
    # fetch.min.bytes and fetch.max.wait.ms trade latency for fuller fetches, which any rig shows alike
    ChangeKind.CONSUMER: frozenset({"fetch.max.bytes", "max.partition.fetch.bytes", "receive.buffer.bytes"}),
}


# The same trades under librdkafka's own names: a librdkafka producer file's entries are producer entries
# under the names it writes (configrepo/rdkafka_producer.py), and librdkafka batches by count as well as bytes.
LIBRDKAFKA_TRADES_CPU_FOR_BYTES = frozenset({"compression.codec", "compression.level", "queue.buffering.max.ms",
                                             "batch.num.messages", "queue.buffering.max.messages",
                                             "queue.buffering.max.kbytes", "socket.send.buffer.bytes"})


def trades_cpu_for_bytes(kind: ChangeKind, name: str) -> bool:
    """Whether a setting of this kind and name trades CPU against bytes."""
    return name in TRADES_CPU_FOR_BYTES[kind] or (kind is ChangeKind.PRODUCER and name in LIBRDKAFKA_TRADES_CPU_FOR_BYTES)


# The settings that decide what a failure costs, and the failover metrics each can move: a check whose
# change sets one of them measures both sides through the fault (issue #43, docs/failover.md). Which
# records survive (fo_lost) is judged for every one of them: one acknowledged record lost fails a check.
_OUTAGE = frozenset({UNAVAILABLE, STALL, CATCH_UP, RECOVERY, FAILOVER_P999})
_CLIENT_WAIT = frozenset({UNAVAILABLE, CATCH_UP, FAILOVER_P999})
_GROUP = frozenset({STALL, CATCH_UP})
FAILOVER_SETTINGS: dict[ChangeKind, dict[str, frozenset[Metric]]] = {
    ChangeKind.BROKER: {
        **dict.fromkeys(("broker.session.timeout.ms", "broker.heartbeat.interval.ms", "controlled.shutdown.enable",
                         "replica.lag.time.max.ms", "unclean.leader.election.enable", "min.insync.replicas",
                         "controller.quorum.election.timeout.ms", "controller.quorum.fetch.timeout.ms"), _OUTAGE),
        **dict.fromkeys(("num.recovery.threads.per.data.dir", "num.replica.fetchers", "replica.fetch.wait.max.ms",
                         "leader.imbalance.check.interval.seconds", "auto.leader.rebalance.enable"),
                        frozenset({RECOVERY, UNAVAILABLE})),
        # group.min/max.session.timeout.ms only bound what a member may ask (a join refused), and
        # offsets.topic.replication.factor acts only where the offsets topic is created: neither is measured
        **dict.fromkeys(("group.consumer.session.timeout.ms", "group.consumer.heartbeat.interval.ms"), _GROUP),
    },
    ChangeKind.TOPIC: dict.fromkeys(("min.insync.replicas", "unclean.leader.election.enable"), _OUTAGE),
    # retries and delivery.timeout.ms decide what an outage outlasts: those deliveries fail (FAILED).
    # request.timeout.ms waits on a broker that hangs: a killed one resets its connections at once, so it
    # joins once a hung broker is a fault
    ChangeKind.PRODUCER: {
        **dict.fromkeys(("retries", "retry.backoff.ms", "retry.backoff.max.ms"), _CLIENT_WAIT | {FAILED}),
        **dict.fromkeys(("enable.idempotence", "max.block.ms", "metadata.max.age.ms", "reconnect.backoff.max.ms"),
                        _CLIENT_WAIT),
        "delivery.timeout.ms": frozenset({FAILED}),
    },
    ChangeKind.CONSUMER: dict.fromkeys(("session.timeout.ms", "heartbeat.interval.ms", "max.poll.interval.ms",
                                        "group.protocol", "group.remote.assignor", "partition.assignment.strategy",
                                        "request.timeout.ms", "default.api.timeout.ms", "enable.auto.commit",
                                        "auto.commit.interval.ms"), _GROUP),
}


# Of those, the ones a healthy cluster never acts on: a timeout that only a failure runs out, a retry only
# an error starts, a choice made only at an election or a shutdown; and the bounds a group's timeouts must
# keep within, which move nothing and are applied only so that a cluster with the bounded value starts. A
# change of these alone moves no figure a healthy run can show, so its check measures only through a fault
# (configrepo.measured_workloads), or nothing at all where no changed setting moves a failover metric.
FAILURE_ONLY: dict[ChangeKind, frozenset[str]] = {
    ChangeKind.BROKER: frozenset({
        "broker.session.timeout.ms", "broker.heartbeat.interval.ms", "controlled.shutdown.enable",
        "unclean.leader.election.enable", "min.insync.replicas", "controller.quorum.election.timeout.ms",
        "controller.quorum.fetch.timeout.ms", "num.recovery.threads.per.data.dir",
        "leader.imbalance.check.interval.seconds", "auto.leader.rebalance.enable",
        "group.consumer.session.timeout.ms", "group.consumer.heartbeat.interval.ms",
        "group.consumer.min.session.timeout.ms", "group.consumer.max.session.timeout.ms",
        "group.consumer.min.heartbeat.interval.ms", "group.consumer.max.heartbeat.interval.ms"}),
    # with every replica in sync, acks=all waits for all of them whatever the minimum
    ChangeKind.TOPIC: frozenset({"min.insync.replicas", "unclean.leader.election.enable"}),
    # a healthy producer's records wait about a second at most (buffer.memory at its rate): its delivery
    # timeout runs out only when an outage outlasts it
    ChangeKind.PRODUCER: frozenset({"retries", "retry.backoff.ms", "retry.backoff.max.ms", "max.block.ms",
                                    "metadata.max.age.ms", "reconnect.backoff.max.ms", "delivery.timeout.ms"}),
    ChangeKind.CONSUMER: frozenset({"session.timeout.ms", "heartbeat.interval.ms", "max.poll.interval.ms",
                                    "request.timeout.ms", "default.api.timeout.ms"}),
}


def failure_only(kind: ChangeKind, name: str) -> bool:
    """Whether a setting of this kind and name acts only when something fails (FAILURE_ONLY)."""
    return name in FAILURE_ONLY[kind]


def moves_failover(kind: ChangeKind, name: str) -> frozenset[Metric]:
    """The failover metrics a setting of this kind and name can move (empty: none, no fault is measured for it)."""
    return FAILOVER_SETTINGS[kind].get(name, frozenset())


def moved_by_setting(metric: Metric, kind: ChangeKind, name: str) -> bool:
    """Whether changing this one setting can move `metric`: a failover metric by FAILOVER_SETTINGS, any
    other by its kinds of change. A regression is blamed on the lines whose setting can move it."""
    if metric.workload is Workload.FAILOVER:
        return metric in moves_failover(kind, name)
    return not failure_only(kind, name) and metric.moved({kind})


class Fault(StrEnum):
    """What a run through a fault does while the group reads (measure/failover.py, docs/failover.md)."""
    BROKER_KILL = "broker-kill"  # a broker SIGKILLed, started again once its partitions have new leaders
    MEMBER_KILL = "member-kill"  # a second member of the consumer group SIGKILLed once it holds partitions
    # every broker stopped (SIGTERM) and started again in turn, each once the cluster is whole: how a broker
    # config change reaches production, and where controlled shutdown decides what each stop costs
    ROLLING_RESTART = "rolling-restart"
    # a broker paused until the controller fenced it, then the other two killed at once and it resumed: every
    # partition's in-sync replicas dead, so only an unclean election lets the one behind lead, without the
    # records it missed
    FOLLOWER_BEHIND = "follower-behind"

    @property
    def takes_two_brokers(self) -> bool:
        """Whether it takes two brokers at once: a quorum in the brokers' own JVMs would go with them."""
        return self is Fault.FOLLOWER_BEHIND


# The settings only a consumer group's member dying shows: the member's own timeouts, protocol, assignors and
# commits, and the brokers' group.* timeouts. A broker kill shows them only through the group's coordinator,
# if it happens to be the broker killed.
MEMBER_KILL_SETTINGS: dict[ChangeKind, frozenset[str]] = {
    ChangeKind.CONSUMER: frozenset(FAILOVER_SETTINGS[ChangeKind.CONSUMER]),
    ChangeKind.BROKER: frozenset(n for n in FAILOVER_SETTINGS[ChangeKind.BROKER] if n.startswith("group.")),
}


# The settings only a stop of a running broker shows: a crash (SIGKILL) never shuts down
ROLLING_RESTART_SETTINGS: dict[ChangeKind, frozenset[str]] = {ChangeKind.BROKER: frozenset({"controlled.shutdown.enable"})}


# The settings that decide whether an out-of-sync replica may lead, which only every in-sync one dead shows
DURABILITY_SETTINGS: dict[ChangeKind, frozenset[str]] = {
    ChangeKind.BROKER: frozenset({"unclean.leader.election.enable"}),
    ChangeKind.TOPIC: frozenset({"unclean.leader.election.enable"}),
}


def fault_for(changed: Iterable[tuple[ChangeKind, str]]) -> Fault:
    """The fault a change is measured through: a follower held behind while the in-sync replicas die when it
    changes who may lead then (DURABILITY_SETTINGS); a rolling restart when it changes how a broker stops
    (ROLLING_RESTART_SETTINGS); a member killed when every changed setting that moves a failover metric is a
    consumer group's (MEMBER_KILL_SETTINGS); else a broker killed."""
    moving = [(kind, name) for kind, name in changed if moves_failover(kind, name)]
    if any(name in DURABILITY_SETTINGS.get(kind, frozenset()) for kind, name in moving):
        return Fault.FOLLOWER_BEHIND
    if any(name in ROLLING_RESTART_SETTINGS.get(kind, frozenset()) for kind, name in moving):
        return Fault.ROLLING_RESTART
    if moving and all(name in MEMBER_KILL_SETTINGS.get(kind, frozenset()) for kind, name in moving):
        return Fault.MEMBER_KILL
    return Fault.BROKER_KILL

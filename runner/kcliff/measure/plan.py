"""What a suite measures and in which order: the reference and the canaries interleaved, then every
other scenario on its own, grouped so the brokers restart once per set of read-only overrides; which
scenarios this cluster cannot show; the order of the sides in each interleaved round; their topics;
how many rounds a paired comparison takes."""

from __future__ import annotations

import json
import random
import uuid
from dataclasses import dataclass
from typing import Callable

from kcliff.backends.base import Cluster
from kcliff.measure.failover_side import unmakeable
from kcliff.results.metrics import Workload
from kcliff.results.model import REFERENCE_ID, Entry
from kcliff.scenario.suites import Scenario, reading_reference

# How a paired comparison is measured (kcliff check, run --confirm), the one home of both figures:
# interleaved rounds, each run stretched to about this many seconds. 18 rounds detected a 20% drop
# every time on the gate benchmark (docs/gate.md).
GATE_ROUNDS = 18
GATE_RUN_S = 4.0
# A check measured through a fault alone (a failure-only change): each side's run lasts its outage and a
# broker's restart (half a minute to minutes), and the outages a timeout sets are several times the 10-20%
# their runs scatter (docs/failover.md), so fewer rounds decide it.
FAULT_ROUNDS = 6

# Whether a group's outcome is already certain, so the rounds left can be skipped: the caller's stop
# rule (kcliff check's come from judge/stopping.py), looked at after every round.
Decided = Callable[[list[Entry]], bool]


@dataclass(frozen=True)
class Group:
    """Scenarios measured interleaved after the suite, in the same run (`run --confirm`)."""

    scenarios: list[Scenario]
    rounds: int
    run_s: float | None = None  # stretch its runs as `kcliff check` does (Options.run_s)


FollowUp = Callable[[], Group | None]


@dataclass(frozen=True)
class SuitePlan:
    """A suite's scenarios in measuring order: `interleaved` first (one group), then `alone` one by
    one; `unshowable` (id -> why) are recorded as skipped."""

    interleaved: list[Scenario]
    alone: list[Scenario]
    unshowable: dict[str, str]

    @property
    def measured(self) -> int:
        return len(self.interleaved) + len(self.alone)


def plan(scenarios: list[Scenario], cluster: Cluster, read_baseline: bool = True,
         apart: frozenset[str] = frozenset()) -> SuitePlan:
    """`read_baseline`: the reference measures the whole read side (suites.reading_reference). `apart`: the ids
    measured on a cluster of their own (SuiteRunner.measure_elsewhere), which restart no broker here."""
    unshowable = {sc.id: why for sc in scenarios if (why := _unshowable(sc, cluster))}
    planned = reading_reference([sc for sc in order(scenarios) if sc.id not in unshowable], read_baseline)
    group = interleaved_group(planned, apart)
    return SuitePlan(group, [sc for sc in planned if sc not in group], unshowable)


def _unshowable(sc: Scenario, cluster: Cluster) -> str | None:
    """Why this cluster cannot show the canary's cliff (its round trip is known to be too short), or cannot
    make the fault its runs through a fault need (failover_side.unmakeable)."""
    if Workload.FAILOVER in sc.workloads and (why := unmakeable(sc.fault, cluster)):
        return why
    rtt, needed = cluster.client_rtt_ms(), sc.cliff.min_client_rtt_ms if sc.cliff else 0.0
    if rtt is None or rtt >= needed:
        return None
    return (f"its cliff needs a producer-broker round trip of at least {needed:g} ms to show; "
            f"this cluster's is {rtt:g} ms (give --client-rtt-ms {needed:g} or more)")


def order(scenarios: list[Scenario]) -> list[Scenario]:
    """Reference first, then scenarios grouped by the read-only broker overrides they need, so the
    brokers restart once per distinct set (default set first), file order kept inside a group."""
    def key(item: tuple[int, Scenario]) -> tuple[bool, bool, tuple[tuple[str, object], ...], int]:
        index, sc = item
        overrides = tuple(sorted(sc.restart_overrides().items()))
        return (sc.id != REFERENCE_ID, overrides != (), overrides, index)
    return [sc for _, sc in sorted(enumerate(scenarios), key=key)]


def round_orders(sides: int, rounds: int, rng: random.Random) -> list[list[int]]:
    """The order of the sides in each interleaved round: the rotations of one random order, so every
    side runs in every position equally often (drift within a round cancels), in shuffled rounds, so
    a slowdown that comes and goes every few runs falls on either side by chance and the rounds'
    spread counts it (a fixed A B, B A alternation let it side with one: docs/measurements.md)."""
    first = list(range(sides))
    rng.shuffle(first)
    rotations = [first[i:] + first[:i] for i in range(sides)]
    orders = [rotations[i % sides] for i in range(rounds)]
    rng.shuffle(orders)
    return orders


def interleaved_group(planned: list[Scenario], apart: frozenset[str] = frozenset()) -> list[Scenario]:
    """The reference and the canaries that need no broker restart of the home cluster (none, or they are
    measured `apart`), when there is any such canary."""
    canaries = [sc for sc in planned if sc.cliff is not None and (not sc.restart_overrides() or sc.id in apart)]
    reference = [sc for sc in planned if sc.id == REFERENCE_ID]
    return reference + canaries if reference and canaries else []


def _topic_name(sc: Scenario) -> str:
    return f"kcliff-{sc.id}-{uuid.uuid4().hex[:6]}"


# What sides must have in common to share a topic. Kafka alters every other topic config at runtime, so
# sides that differ only there share one topic and switch its configs before each run
# (sites.Site.switch_topic); retention stays here, since it would delete what the other sides wrote.
TOPIC_SHAPE = frozenset({"partitions", "replication.factor", "retention.ms", "retention.bytes"})


def shared_topics(scenarios: list[Scenario]) -> list[str]:
    """A topic name per scenario, one topic for all whose topics have the same shape (TOPIC_SHAPE):
    interleaved sides then differ only in what their settings change, not in which topic's leaders,
    segments and page cache they happened to get. Two topics made the same way read 1.20x and 0.93x
    of each other, steadily over a check's rounds (docs/gate.md, "One topic for both sides")."""
    by_shape: dict[str, str] = {}
    return [by_shape.setdefault(json.dumps(_topic_shape(sc), sort_keys=True, default=str), _topic_name(sc))
            for sc in scenarios]


def _topic_shape(sc: Scenario) -> dict[str, object]:
    return {k: v for k, v in sc.as_applied()["topic"].items() if k in TOPIC_SHAPE}

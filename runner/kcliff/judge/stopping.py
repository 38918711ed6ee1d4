"""When `kcliff check` stops measuring: the one home of its stop rule, handed to the measuring
(measure/plan.Decided) as a plain callable looked at after every round.

    settled(rounds)  the self-test (reference and canaries): every canary's verdict is already the
                     one it will have after all `rounds` (canary.canary_settled), or it shows its
                     cliff by a wide margin (canary.canary_decisive)
    certain(rounds, family)  base and head: one judged metric is a certain regression, or the verdicts
                     of the judged metrics that have a pass to prove (a resolution: the producer's
                     and the consumer's throughput, the medians at rate) are certain at the gate's error rates, the
                     regression's split across the family
                     (sequential.py, family.py; docs/gate.md, "Stopping early")

A side decided on its cliff runs no more (measure/on_cliff.py; a consumer capped twice reads no more),
so no round left could change or pair it: both rules count it as decided.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from kcliff.judge import sequential, verdict
from kcliff.judge.canary import canary_decisive, canary_settled, decisive_factor
from kcliff.judge.family import Family
from kcliff.judge.verdict import ScenarioVerdict
from kcliff.measure.on_cliff import on_its_cliff, reads_on_cliff
from kcliff.measure.plan import Decided
from kcliff.results.metrics import FAILED, METRICS, Workload
from kcliff.results.model import REFERENCE_ID, Entry
from kcliff.scenario.latency_budget import LatencyBudget


def settled(rounds: int, bytes_capped: bool = False) -> Decided:
    """The self-test's stop: every canary in the group has the verdict beside the reference that it
    will have after all `rounds` (canary_settled), whatever the rounds left measure, or is far enough
    below its bound on this rig (canary_decisive, decisive_factor: `bytes_capped`, the rig's links or
    disks are capped; a canary through a fault: its own factor)."""

    def done(entries: list[Entry]) -> bool:
        reference = next((e for e in entries if e.id == REFERENCE_ID), None)
        canaries = [e for e in entries if e.is_canary]
        return reference is not None and bool(canaries) and all(
            canary_decisive(c, reference, runs_left(c, c.cliff.metric, rounds),
                            decisive_factor(bytes_capped, METRICS[c.cliff.metric]))
            or canary_settled(c, reference, runs_left(c, c.cliff.metric, rounds),
                              runs_left(reference, c.cliff.metric, rounds))
            for c in canaries if c.cliff is not None)
    return done


def certain(rounds: int, family: Family, budget: LatencyBudget | None = None, bytes_capped: bool = False) -> Decided:
    """Base and head's stop: whether the verdicts of the judged metrics with a resolution are already
    certain, so the rounds left can be skipped (entries: base, head). A metric the change cannot move
    keeps nothing measuring; one within the service's latency `budget` is decided (verdict.within_budget).
    `bytes_capped`: the rig's links or disks are capped, so the first look comes sooner (Plan.for_rounds)."""
    plan = sequential.Plan.for_rounds(rounds, family.size, bytes_capped, family.through_faults)

    def decided(entries: list[Entry]) -> bool:
        base, head = entries
        if on_its_cliff(base) or on_its_cliff(head) or head.lost_records():  # a lost record: a durability cliff
            return True
        if FAILED in family.counted and verdict.failed_deliveries((base.total(FAILED), head.total(FAILED))):
            return True  # the head failed deliveries where the base failed none: a regression whatever follows
        capped = reads_on_cliff(base) or reads_on_cliff(head)  # a read side capped twice reads no more
        return judged_decided({m.name: (base.values(m), head.values(m)) for m in family.judged
                               if m in base.metrics() and m in head.metrics()
                               and not (capped and m.workload is not Workload.PRODUCE)}, family, plan, budget)
    return decided


Rounds = Mapping[str, tuple[Sequence[float | None], Sequence[float | None]]]


def judged_decided(measuring: Rounds, family: Family, plan: sequential.Plan,
                   budget: LatencyBudget | None = None) -> bool:
    """Whether the judged metrics still measuring (`measuring`: metric name -> base's and head's values,
    round by round) are decided (sequential.decide_so_far): any of them a certain regression (it fails
    the check whatever the others say), or all that have a pass to prove (a resolution) decided. A family
    none of whose metrics has one measures every round unless one of them regresses for certain."""
    decisions = {name: verdict.within_budget(d, budget) if d is not None else None
                 for name, (base, head) in measuring.items() if family.judges(METRICS[name])
                 for d in [sequential.decide_so_far(base, head, plan, name)]}
    if any(d is not None and d.outcome is verdict.Outcome.REGRESSION for d in decisions.values()):
        return True
    if all(m.resolution is None for m in family.judged):
        return False
    return all(d is not None for name, d in decisions.items() if METRICS[name].resolution is not None)


def replay(rounds: Rounds, family: Family, plan: sequential.Plan, budget: LatencyBudget | None = None,
           **decide_args: Any) -> tuple[ScenarioVerdict, int]:
    """What `kcliff check` says of these rounds had they been measured one by one: it stops at the first
    round after which judged_decided holds (else at the last), and judges every metric on the rounds
    measured by then (verdict.compare_scenario with the family, paired). For benchmarks and tests."""
    total = min(len(b) for b, _ in rounds.values())
    stop = next((r for r in range(1, total + 1)
                 if judged_decided({n: (b[:r], h[:r]) for n, (b, h) in rounds.items()}, family, plan, budget)), total)
    sv = verdict.compare_scenario("head", {n: b[:stop] for n, (b, _) in rounds.items()},
                                  {n: h[:stop] for n, (_, h) in rounds.items()}, None, family, paired=True,
                                  alpha=plan.alpha, budget=budget, **decide_args)
    return sv, stop


def cut_on_cliff(base: Entry | None, head: Entry | None) -> tuple[bool, bool]:
    """Whether base and head were stopped on their cliff twice running (verdict.compare_scenario's `stopped`)."""
    return (base is not None and on_its_cliff(base), head is not None and on_its_cliff(head))


def reads_cut(base: Entry | None, head: Entry | None) -> tuple[bool, bool]:
    """Whether base's and head's consumers were stopped at their cap twice running (compare_scenario's `reads_cut`)."""
    return (base is not None and reads_on_cliff(base), head is not None and reads_on_cliff(head))


def runs_left(entry: Entry, metric: str, rounds: int) -> int:
    """Runs of `metric` this entry will still measure in `rounds` rounds: none once decided on a cliff."""
    if on_its_cliff(entry) or (METRICS[metric].workload == Workload.CONSUME and reads_on_cliff(entry)):
        return 0
    return max(rounds - len(entry.runs_of(METRICS[metric])), 0)  # a run through a fault has no flat-out run

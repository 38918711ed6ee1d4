"""When `kcliff check` stops measuring: the one home of its stop rule, handed to the measuring
(measure/plan.Decided) as a plain callable looked at after every round.

    settled(rounds)  the self-test (reference and canaries): every canary's verdict is already the
                     one it will have after all `rounds` (canary.canary_settled)
    certain(rounds)  base and head: their throughput verdicts, the producer's and (when they read) the
                     consumer's, are certain at the gate's error rates (sequential.py; docs/gate.md,
                     "Stopping early")

A side decided on its cliff runs no more (measure/on_cliff.py; a consumer capped twice reads no more),
so no round left could change or pair it: both rules count it as decided.
"""

from __future__ import annotations

from kcliff.judge import sequential
from kcliff.judge.canary import canary_settled
from kcliff.measure.on_cliff import on_its_cliff, reads_on_cliff
from kcliff.measure.plan import Decided
from kcliff.results.metrics import CONSUMED, METRICS, THROUGHPUT, Workload
from kcliff.results.model import REFERENCE_ID, Entry


def settled(rounds: int) -> Decided:
    """The self-test's stop: every canary in the group has the verdict beside the reference that it
    will have after all `rounds` (canary_settled), whatever the rounds left measure."""
    def done(entries: list[Entry]) -> bool:
        reference = next((e for e in entries if e.id == REFERENCE_ID), None)
        canaries = [e for e in entries if e.is_canary]
        return reference is not None and bool(canaries) and all(
            canary_settled(c, reference, runs_left(c, c.cliff.metric, rounds),
                           runs_left(reference, c.cliff.metric, rounds))
            for c in canaries if c.cliff is not None)
    return done


def certain(rounds: int) -> Decided:
    """Base and head's stop: whether their throughput verdicts are already certain, so the rounds
    left can be skipped (entries: base, head)."""
    plan = sequential.Plan.for_rounds(rounds)

    def decided(entries: list[Entry]) -> bool:
        base, head = entries
        if on_its_cliff(base) or on_its_cliff(head):
            return True
        stopping = [m for m in (THROUGHPUT, CONSUMED) if m in base.metrics() and m in head.metrics()
                    and not (m is CONSUMED and (reads_on_cliff(base) or reads_on_cliff(head)))]
        return all(sequential.decide_so_far(base.values(m), head.values(m), plan, m.name) is not None
                   for m in stopping)
    return decided


def runs_left(entry: Entry, metric: str, rounds: int) -> int:
    """Runs of `metric` this entry will still measure in `rounds` rounds: none once decided on a cliff."""
    if on_its_cliff(entry) or (METRICS[metric].workload == Workload.CONSUME and reads_on_cliff(entry)):
        return 0
    return max(rounds - len(entry.runs), 0)

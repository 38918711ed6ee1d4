"""Which of a check's measured metrics it judges, and the false-alarm rate they share.

A check judges only the metrics its change can move (results/metrics.judged: the kinds of setting
base and head differ in, against each metric's `moved_by`); the others are measured and reported as
"not judged" and can neither fail a check, make it inconclusive nor keep it measuring. Across the
judged metrics the chance that ANY of them says regression when none regressed stays at the gate's
alpha (family-wise): each one's regression question is tested at alpha / k, k the number judged
(Bonferroni), at the last look and in the spending of every sequential look (judge/sequential.py).
The pass needs every judged metric to pass, an intersection-union test: each at the full level
already holds the chance of a wrong pass to alpha, so it is not split. docs/gate.md, "Judged metrics".
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

from kcliff.results import metrics
from kcliff.measure.plan import FAULT_ROUNDS, GATE_ROUNDS
from kcliff.results.metrics import ChangeKind, Metric, Workload


@dataclass(frozen=True)
class Family:
    """The kinds of change a check makes and the metrics it judges (fixed before anything is measured,
    so the split cannot depend on the data)."""

    changed: frozenset[ChangeKind]
    judged: tuple[Metric, ...]
    counted: frozenset[Metric] = frozenset()  # the exact counts a changed setting moves (metrics.FAILED)

    @classmethod
    def of(cls, changed: Iterable[ChangeKind], workloads: Iterable[Workload],
           failover: frozenset[Metric] = frozenset()) -> Family:
        """`failover`: the failover metrics the changed settings move (configrepo.failover_moved)."""
        kinds = frozenset(changed)
        return cls(kinds, metrics.judged(kinds, workloads, failover), frozenset(m for m in failover if m.exact))

    @property
    def size(self) -> int:
        return max(len(self.judged), 1)

    def judges(self, metric: Metric) -> bool:
        return metric in self.judged

    @property
    def through_faults(self) -> bool:
        """Whether every judged metric is measured through a fault (a failure-only change)."""
        return bool(self.judged) and all(m.workload is Workload.FAILOVER for m in self.judged)

    def rounds(self, asked: int | None) -> int:
        """A check's most rounds: as asked (--rounds), else the gate's, or fewer through a fault alone."""
        return asked or (FAULT_ROUNDS if self.through_faults else GATE_ROUNDS)

    def judges_workload(self, workload: Workload) -> bool:
        """Whether any judged metric comes from `workload`'s runs."""
        return any(m.workload is workload for m in self.judged)

    def needs_canary(self, cliff_metric: Metric) -> bool:
        """Whether the self-test must prove the rig sees a cliff on `cliff_metric`'s workload: only where
        the check judges a metric of that workload. A consumer-only change judges nothing the producer
        measures flat out, so the producer's throughput canaries vouch for nothing it can fail on."""
        return self.judges_workload(cliff_metric.workload)

    def regression_alpha(self, alpha: float) -> float:
        """The one-sided level each judged metric's regression question is held to (Bonferroni)."""
        return alpha / self.size

    def why_not(self, metric: Metric) -> str:
        """Why `metric` is not judged."""
        kinds = " and ".join(sorted(k.value for k in self.changed))
        return f"not judged: a {kinds} change cannot move {metric.name}"

    def describe(self, alpha: float) -> str:
        """e.g. 'judged: throughput, p99 (a producer change can move them), each regression test at
        alpha 0.0125 so that all together hold 0.025'."""
        kinds = " and ".join(sorted(k.value for k in self.changed)) or "no"
        change = "a change of failure-only settings" if self.through_faults and not self.changed else f"a {kinds} change"
        names = ", ".join(m.name for m in self.judged) or "nothing"
        split = (f", each regression test at alpha {self.regression_alpha(alpha):.3g} so that all together hold "
                 f"{alpha:.3g}" if len(self.judged) > 1 else "")
        return f"judged: {names} (what {change} can move){split}"

"""The family-wise false-alarm rate of `kcliff check` across the metrics it judges, before and after
the split (judge/family.py: each judged metric's regression question at alpha / k), and what the
split costs in power. No cluster.

1. The stored A/A gate streams (benchmarks/data/gate-stream*.json; producer figures only, so a
   producer change's family: throughput and p99): every check judged with each metric at the full
   alpha (before) and with the split (after), by the fixed rule and the sequential one, and every
   check whose verdict differs listed.
2. Seeded simulated checks with the per-round spreads and the throughput-p99 correlation those
   streams show, for 1, 2 and 4 judged metrics (throughput; + p99; + consumed and e2e_p99, whose
   spreads no stream holds yet: taken as throughput's and p99's, independent of the producer's),
   judged by the sequential rule as kcliff check runs it (judge/stopping.replay): the chance that
   ANY judged metric says regression on an A/A check (true ratio 1), and at the least favourable
   null (every metric worse by exactly its tolerance, where each test is at its level), and the
   detection rate of a real 20% throughput drop.

    .venv/bin/python benchmarks/bench_family.py [--draws 1000] [--seed 28] [--streams-only | --simulation-only]
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable

import numpy as np
from bench_gate import check_pairs
from kcliff.judge import sequential, stopping, verdict
from kcliff.judge.family import Family
from kcliff.results.metrics import CONSUMED, E2E_P99, P99, THROUGHPUT, ChangeKind, Metric

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "benchmarks" / "data"
STREAMS = (("v4", "gate-stream-18r-v4-local-2c.json", None), ("v3", "gate-stream-18r-v3-local-2c.json", None),
           ("v2", "gate-stream-18r-v2-local-2c.json", None), ("first 18-round", "gate-stream-18r-local-2c.json", None),
           ("6-round, joined", "gate-stream-local-2c.json", 18))
ALPHA = verdict.DEFAULT_ALPHA
ROUNDS = 18
PRODUCER = frozenset({ChangeKind.PRODUCER})


@dataclass(frozen=True)
class Unsplit(Family):
    """Before the split: every judged metric's regression question at the full alpha."""

    @property
    def size(self) -> int:
        return 1

    def regression_alpha(self, alpha: float) -> float:
        return alpha


def families(metrics: tuple[Metric, ...]) -> tuple[Family, Family]:
    return Unsplit(PRODUCER, metrics), Family(PRODUCER, metrics)


def judge(base: list[dict], head: list[dict], family: Family, rule: str) -> tuple[str, int]:
    """A check of these rounds: its verdict and the rounds it measured."""
    rounds = {m.name: ([r[m.key] for r in base], [r[m.key] for r in head]) for m in family.judged}
    if rule == "fixed":
        sv = verdict.compare_scenario("head", {n: b for n, (b, _) in rounds.items()},
                                      {n: h for n, (_, h) in rounds.items()}, None, family, paired=True, n_boot=1000)
        return str(sv.verdict), len(base)
    sv, stop = stopping.replay(rounds, family, sequential.Plan.for_rounds(len(base), family.size))
    return str(sv.verdict), stop


KINDS = (("A/A (false alarms)", "aa"), ("A/A, head x 0.8 (detected)", "drop20"),
         ("A/A, head x 0.95 (a real 5% change failed)", "drop5"), ("A/B, throttled to 80% (detected)", "ab"))


def report_streams() -> None:
    print("1. stored gate streams: a producer change's family (throughput, p99); before: each at alpha "
          f"{ALPHA}, after: each at {ALPHA / 2}")
    before, after = families((THROUGHPUT, P99))
    for name, file, joined in STREAMS:
        stream = json.loads((DATA / file).read_text())
        p1, p2 = {"a": [], "a2": [], "b": [], **stream["phase1"]}, {"a": [], "a2": [], **stream["phase2"]}
        pairs = check_pairs(p1, p2, joined or stream["rounds"])
        pairs["aa"] = pairs["aa1"] + pairs["aa2"]
        print(f"  {name} ({file}{', blocks joined to 18 rounds' if joined else ''}):")
        for rule in ("fixed", "sequential"):
            cells, changed = [], []
            for label, key in KINDS:
                if not pairs[key]:
                    continue
                was = [judge(a, b, before, rule) for a, b in pairs[key]]
                now = [judge(a, b, after, rule) for a, b in pairs[key]]
                cells.append(f"{label.split(' (')[0]}: {sum(v == 'regression' for v, _ in was)} -> "
                             f"{sum(v == 'regression' for v, _ in now)} / {len(was)}")
                changed += [f"{key} #{i + 1}: {w[0]} ({w[1]} rounds) -> {n[0]} ({n[1]} rounds)"
                            for i, (w, n) in enumerate(zip(was, now)) if w[0] != n[0]]
            print(f"    {rule:>10}: regression verdicts, before -> after: " + "; ".join(cells))
            print(f"    {'':>10}  verdicts changed: " + ("; ".join(changed) if changed else "none"))


def spreads() -> tuple[float, float, float]:
    """The per-round sd of throughput's and p99's A/A log ratios and their correlation, over the
    A/A rounds of the v4, v3 and v2 streams (18 rounds a check, random or alternating order)."""
    thr: list[float] = []
    p99: list[float] = []
    for _, file, joined in STREAMS[:3]:
        stream = json.loads((DATA / file).read_text())
        for phase in (stream["phase1"], stream["phase2"]):
            for a, b in zip(phase.get("a", []), phase.get("a2", [])):
                if a["mb_per_sec"] and b["mb_per_sec"] and a["p99_ms"] and b["p99_ms"]:
                    thr.append(math.log(b["mb_per_sec"] / a["mb_per_sec"]))
                    p99.append(math.log(b["p99_ms"] / a["p99_ms"]))
    return statistics.stdev(thr), statistics.stdev(p99), float(np.corrcoef(thr, p99)[0, 1])


def tolerance_log(metric: Metric) -> float:
    """ln of the ratio worse by exactly the metric's tolerance: its regression question's null."""
    tolerance = verdict.default_tolerance(verdict.metric_min_effect(metric.name, verdict.DEFAULT_MIN_EFFECT))
    return math.log(1 - tolerance) if metric.higher_is_better else math.log(1 + tolerance)


def simulate(family: Family, means: dict[Metric, float], cov: np.ndarray, order: tuple[Metric, ...], draws: int,
             seed: int) -> tuple[float, float]:
    """The share of seeded checks judged regression, and the mean rounds measured."""
    rng = np.random.default_rng(seed)
    plan = sequential.Plan.for_rounds(ROUNDS, family.size)
    index = [order.index(m) for m in family.judged]
    mean = np.array([means[m] for m in order])
    hits, rounds = 0, 0
    for _ in range(draws):
        logs = rng.multivariate_normal(mean, cov, ROUNDS)
        sv, stop = stopping.replay({m.name: ([1.0] * ROUNDS, list(np.exp(logs[:, i])))
                                    for m, i in zip(family.judged, index)}, family, plan)
        hits += sv.verdict is verdict.Outcome.REGRESSION
        rounds += stop
    return hits / draws, rounds / draws


def report_simulation(draws: int, seed: int) -> None:
    sd_thr, sd_p99, rho = spreads()
    order = (THROUGHPUT, P99, CONSUMED, E2E_P99)
    sds = np.array([sd_thr, sd_p99, sd_thr, sd_p99])
    corr = np.eye(4)
    corr[0, 1] = corr[1, 0] = corr[2, 3] = corr[3, 2] = rho  # the read side's pair as the producer's
    print(f"\n2. seeded simulated checks, {draws} a cell, sequential rule: per-round sd throughput {sd_thr:.3f}, "
          f"p99 {sd_p99:.3f}, their correlation {rho:.2f} (v4, v3, v2 A/A rounds); consumed and e2e_p99 drawn "
          f"like them, independent of the producer")
    error = math.sqrt(ALPHA * (1 - ALPHA) / draws)
    print(f"   Monte Carlo error of a rate near alpha: {error:.4f} (1 sd); rates given with their own error")
    for label, correlated in (("as measured (correlated)", True), ("independent (where the union bound is tight)", False)):
        cov = np.outer(sds, sds) * (corr if correlated else np.eye(4))
        print(f"   metrics {label}:")
        print(f"   {'k':>3} {'judged':<36} {'A/A: before':>12} {'after':>8} | {'at the tolerance: before':>25} "
              f"{'after':>8} | {'20% drop: before':>17} {'after':>8} {'rounds':>7}")
        for k in (1, 2, 4):
            before, after = families(order[:k])
            cells = []
            for means in ({m: 0.0 for m in order}, {m: tolerance_log(m) for m in order},
                          {**{m: 0.0 for m in order}, THROUGHPUT: math.log(0.8)}):
                (b, _), (a, r) = (simulate(f, means, cov, order, draws, seed) for f in (before, after))
                cells.append((b, a, r))
            names = ", ".join(m.name for m in order[:k])
            print(f"   {k:>3} {names:<36} " + " | ".join(
                f"{_pct(b, draws):>{w}} {_pct(a, draws):>8}" for (b, a, _), w in zip(cells, (12, 25, 17)))
                  + f" {cells[2][2]:>7.1f}")


def _pct(rate: float, draws: int) -> str:
    return f"{100 * rate:.2f}%" + (f"±{100 * math.sqrt(rate * (1 - rate) / draws):.2f}" if rate else "")


def main(argv: Iterable[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--draws", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=28)
    only = parser.add_mutually_exclusive_group()
    only.add_argument("--streams-only", action="store_true")
    only.add_argument("--simulation-only", action="store_true")
    args = parser.parse_args(list(argv) if argv is not None else None)
    if not args.simulation_only:
        report_streams()
    if not args.streams_only:
        report_simulation(args.draws, args.seed)
    return 0


if __name__ == "__main__":
    sys.exit(main())

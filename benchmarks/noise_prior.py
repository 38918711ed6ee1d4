"""The failover metrics' noise prior (results/metrics.Noise): what the A/A failover checks put it at, and what
it does to a check through a fault, on SYNTHETIC seeded checks (no cluster).

1. From the campaign (`bench_check_time.py --save`, checks with their rounds): per metric, the pooled sd of
   the per-round log ratios, and Smyth's (2004) estimate of the prior's sd and degrees of freedom from the
   checks' own variances (df unbounded: the checks' variances differ no more than sampling alone makes them).
2. Simulated checks of one metric (unavailable) judged as kcliff check judges it through a fault alone
   (FAULT_ROUNDS rounds, a family of five, looks from the third round), with and without the prior, at the
   prior's own spread and at half as much again: how often each says regression and pass, per true ratio, and
   the round it stopped at.

    .venv/bin/python benchmarks/noise_prior.py [benchmarks/data/aa-failover-local-2c.json] [--draws 2000]
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import statistics
import sys
from collections import Counter
from pathlib import Path

import numpy as np
from kcliff.judge import sequential
from kcliff.measure.plan import FAULT_ROUNDS
from kcliff.results import metrics
from kcliff.results.metrics import FAILOVER_METRICS, METRICS, UNAVAILABLE

ROOT = Path(__file__).resolve().parents[1]
CAMPAIGN = ROOT / "benchmarks" / "data" / "aa-failover-local-2c.json"
RATIOS = (1.0, 1.25, 1.5, 2.0, 5.0)


def check_variances(checks: list[dict], metric: str) -> list[tuple[float, int]]:
    """(sample variance, df) of each check's per-round log ratios of `metric`."""
    out = []
    for check in checks:
        base, head = check["rounds"].get(metric, ([], []))
        logs = [math.log(h / b) for b, h in zip(base, head) if b and h]
        if len(logs) > 1:
            out.append((statistics.variance(logs), len(logs) - 1))
    return out


def smyth(variances: list[tuple[float, int]]) -> tuple[float, float]:
    """The prior's sd and df fitted to the checks' variances (Smyth 2004, section 6.2); df may be infinite."""
    from scipy.optimize import brentq
    from scipy.special import digamma, polygamma

    s2 = np.array([v for v, _ in variances])
    d = np.array([float(df) for _, df in variances])
    e = np.log(s2) - digamma(d / 2) + np.log(d / 2)
    spread = float(np.var(e, ddof=1) - np.mean(polygamma(1, d / 2)))
    if spread <= 0:
        return math.sqrt(math.exp(float(np.mean(e)))), math.inf
    d0 = 2 * brentq(lambda x: float(polygamma(1, x)) - spread, 1e-4, 1e7)
    return math.sqrt(math.exp(float(np.mean(e)) + digamma(d0 / 2) - math.log(d0 / 2))), d0


def simulate(sd: float, ratio: float, draws: int, rng: np.random.Generator, prior: bool) -> tuple[Counter[str], list[int]]:
    """`draws` checks of UNAVAILABLE at true `ratio` (head / base) and per-round spread `sd`."""
    saved = METRICS[UNAVAILABLE.name]
    METRICS[UNAVAILABLE.name] = saved if prior else dataclasses.replace(saved, noise=None)
    try:
        plan = sequential.Plan.for_rounds(FAULT_ROUNDS, len(FAILOVER_METRICS), through_faults=True)
        said: Counter[str] = Counter()
        rounds = []
        for _ in range(draws):
            logs = list(math.log(ratio) + rng.normal(0, sd, FAULT_ROUNDS))
            step = sequential.first_stop(logs, plan, UNAVAILABLE.name)
            said[str(step.outcome)] += 1
            rounds.append(step.rounds)
        return said, rounds
    finally:
        METRICS[UNAVAILABLE.name] = saved


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("campaign", nargs="?", type=Path, default=CAMPAIGN)
    parser.add_argument("--draws", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    checks = [c for c in json.loads(args.campaign.read_text()) if c.get("rounds")]
    print(f"{len(checks)} A/A checks with rounds in {args.campaign.name}")
    for metric in FAILOVER_METRICS:
        variances = check_variances(checks, metric.name)
        if len(variances) < 2:
            continue
        pooled = math.sqrt(sum(v * d for v, d in variances) / sum(d for _, d in variances))
        s0, d0 = smyth(variances)
        noise = metric.noise
        print(f"  {metric.name:14} pooled sd {pooled:.3f} over {sum(d for _, d in variances)} df; Smyth sd {s0:.3f} "
              f"df {d0:.0f}; the prior: sd {noise.sd if noise else '-'} df {noise.df if noise else '-'}")
    assert UNAVAILABLE.noise is not None
    rng = np.random.default_rng(args.seed)
    print(f"\n{args.draws} synthetic checks of {UNAVAILABLE.name} per row ({FAULT_ROUNDS} rounds, a family of "
          f"{len(FAILOVER_METRICS)}, prior df {metrics.FAILOVER_PRIOR_DF})")
    print(f"{'spread':>7} {'ratio':>6} | {'regression: t  prior':>21} | {'pass: t  prior':>15} | "
          f"median rounds: t  prior")
    for sd in (UNAVAILABLE.noise.sd, 1.5 * UNAVAILABLE.noise.sd):
        for ratio in RATIOS:
            plain, plain_rounds = simulate(sd, ratio, args.draws, rng, prior=False)
            moderated, moderated_rounds = simulate(sd, ratio, args.draws, rng, prior=True)
            share = lambda said, what: f"{said[what] / args.draws:6.1%}"  # noqa: E731
            print(f"{sd:7.3f} {ratio:6.2f} | {share(plain, 'regression'):>12} {share(moderated, 'regression')} | "
                  f"{share(plain, 'pass'):>7} {share(moderated, 'pass')} | "
                  f"{statistics.median(plain_rounds):>15} {statistics.median(moderated_rounds):>6}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

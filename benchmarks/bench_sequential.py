"""The sequential rule's operating characteristics on SYNTHETIC, seeded checks (no cluster): normal
per-round log ratios at the committed v3 gate stream's spread, judged three ways on the same rounds:
the fixed rule (verdict.decide after all rounds), the sequential rule (kcliff.sequential), and the
sequential rule with the fixed rule's margins at its interim looks (what the moved margins buy).
Per true ratio: how often each says regression and pass, and the rounds the sequential rule needed.
The real-cluster figures come from bench_gate.py --rule sequential (docs/gate.md, "Stopping early").

    .venv/bin/python benchmarks/bench_sequential.py [--draws 2000] [--seed 1] [--sd 0.171] [--first-look 6]
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
from collections import Counter
from dataclasses import replace
from pathlib import Path

import numpy as np
from kcliff.judge import sequential, stats

ROOT = Path(__file__).resolve().parents[1]
STREAM = ROOT / "benchmarks" / "data" / "gate-stream-18r-v3-local-2c.json"
EFFECTS = (1.0, 0.95, 0.90, 0.85, 0.80)


def stream_sd() -> float:
    phase = json.loads(STREAM.read_text())["phase2"]
    return statistics.stdev(stats.log_ratios([r["mb_per_sec"] for r in phase["a"]],
                                             [r["mb_per_sec"] for r in phase["a2"]]))


def _kind(outcome: object) -> str:
    return "pass" if outcome == "improvement" else str(outcome)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--draws", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--sd", type=float, help="per-round sd of the log ratios (default: the v3 stream's)")
    parser.add_argument("--first-look", type=int, default=sequential.FIRST_LOOK,
                        help="the round of the first look (default %(default)s, where CPU binds)")
    args = parser.parse_args()
    sd = args.sd or stream_sd()
    plan = sequential.Plan(first_look=args.first_look)
    unmoved = replace(plan, moved_margins=False)
    print(f"{args.draws} synthetic checks per ratio, per-round sd {sd:.3f}, looks {plan.looks()[0]}-{plan.max_rounds}; "
          f"z-scale error with the fixed last look and unmoved margins {sequential.fixed_final_error(plan):.4f}")
    print(f"{'ratio':>6} | {'regression: fixed  seq  unmoved':>32} | {'pass: fixed  seq  unmoved':>26} | "
          f"rounds: median mean (unmoved)")
    rng = np.random.default_rng(args.seed)
    for effect in EFFECTS:
        fixed: Counter[str] = Counter()
        seq: Counter[str] = Counter()
        loose: Counter[str] = Counter()
        rounds, loose_rounds = [], []
        for _ in range(args.draws):
            logs = list(rng.normal(math.log(effect), sd, plan.max_rounds))
            step, other = sequential.first_stop(logs, plan), sequential.first_stop(logs, unmoved)
            fixed[_kind(sequential.judge_rounds(logs, plan).outcome)] += 1
            seq[_kind(step.outcome)] += 1
            loose[_kind(other.outcome)] += 1
            rounds.append(step.rounds)
            loose_rounds.append(other.rounds)

        def pct(c: Counter[str], key: str) -> str:
            return f"{100 * c[key] / args.draws:5.2f}%"

        print(f"{effect:>6.2f} | {pct(fixed, 'regression'):>10} {pct(seq, 'regression')} {pct(loose, 'regression')} | "
              f"{pct(fixed, 'pass'):>7} {pct(seq, 'pass')} {pct(loose, 'pass')} | "
              f"{statistics.median(rounds):g} {statistics.mean(rounds):.1f} ({statistics.mean(loose_rounds):.1f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""What a resolution (the worsening a pass must rule out) would cost the A/A checks of a campaign
(`bench_check_time.py --save`, checks recorded with their rounds): for each metric a check judged and
each candidate resolution, whether the metric's pass would already have been certain at the round the
check stopped, by the rule kcliff check follows after every round
(judge/sequential.judge_rounds, the check's own plan and family). Where it would, that resolution
costs the check no round; where not, the check would have measured on, and these rounds cannot say
for how long.

    .venv/bin/python benchmarks/replay_resolution.py benchmarks/data/aa-campaign-local-2c.json
        [--resolutions 0.1,0.2,0.3,0.5,1.0]

Prints, per metric and resolution, in how many checks its pass was certain by the check's stop and
the median round it became so; a regression at any resolution would be a false alarm, and is counted.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kcliff.judge import sequential
from kcliff.judge.verdict import Outcome
from kcliff.measure.plan import GATE_ROUNDS
from kcliff.results.metrics import METRICS

@dataclass(frozen=True)
class Replayed:
    """One metric of one check at one resolution: the first look at which its verdict was certain
    (None: not by the check's last round) and what it was."""
    kind: str
    metric: str
    resolution: float
    stopped: int  # the round the check itself stopped at
    certain_at: int | None
    outcome: Outcome | None


def replay_check(check: dict[str, Any], resolutions: list[float]) -> list[Replayed]:
    """Every judged metric of one A/A check, at each candidate resolution (whatever its own is now)."""
    judged = [m for m, d in check["decisions"].items() if d.get("outcome") != Outcome.NOT_JUDGED]
    plan = sequential.Plan.for_rounds(GATE_ROUNDS, max(len(judged), 1))
    out = []
    for metric in judged:
        if metric not in check.get("rounds", {}):
            continue
        base, head = check["rounds"][metric]
        logs = sequential.round_logs(base, head)
        for resolution in resolutions:
            if METRICS[metric].higher_is_better and resolution >= 1:
                continue  # a throughput cannot fall by 100% or more: no such margin
            step = next((s for n in range(1, len(logs) + 1)
                         if (s := sequential.judge_rounds(logs[:n], plan, metric, resolution=resolution)).stopped),
                        None)
            out.append(Replayed(check["kind"], metric, resolution, len(logs),
                                step.rounds if step else None, step.outcome if step else None))
    return out


def report(replayed: list[Replayed]) -> None:
    for kind in sorted({r.kind for r in replayed}):
        for metric in sorted({r.metric for r in replayed if r.kind == kind}):
            print(f"{kind}, {metric}:")
            for resolution in sorted({r.resolution for r in replayed}):
                mine = [r for r in replayed if (r.kind, r.metric, r.resolution) == (kind, metric, resolution)]
                certain = [r for r in mine if r.certain_at is not None and r.outcome is not Outcome.REGRESSION]
                alarms = sum(r.outcome is Outcome.REGRESSION for r in mine)
                when = f", median round {statistics.median(r.certain_at for r in certain):.0f}" if certain else ""
                print(f"  resolution {resolution:.0%}: pass certain by the check's stop in {len(certain)} of "
                      f"{len(mine)}{when}; regression in {alarms}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("campaign", type=Path, help="a bench_check_time.py --save file")
    parser.add_argument("--resolutions", default="0.1,0.2,0.3,0.5,1.0",
                        help="candidate resolutions, as fractions of a worsening (0.2: 20%%)")
    args = parser.parse_args()
    resolutions = [float(r) for r in args.resolutions.split(",")]
    checks = [c for c in json.loads(args.campaign.read_text()) if c["kind"].startswith("A/A") and c.get("rounds")]
    if not checks:
        print(f"{args.campaign}: no A/A check recorded with its rounds", file=sys.stderr)
        return 2
    report([r for c in checks for r in replay_check(c, resolutions)])
    return 0


if __name__ == "__main__":
    sys.exit(main())

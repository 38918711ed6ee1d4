"""Stopping a paired check early: a group-sequential version of the gate's paired t-test.

    decide_so_far(base_runs, head_runs, plan)  -> verdict.Decision, or None: measure another round
    judge_rounds(logs, plan)                   -> Step   the same over per-round log ratios
    first_stop(logs, plan)                     -> Step   where a check of these rounds would stop
    boundaries(times, alpha)                   -> the looks' z boundaries (Lan-DeMets spending)

The fixed rule (verdict.decide, paired, after all 18 rounds) asks two one-sided questions of the
per-round log ratios, each a t-test at alpha 0.025: is head more than the tolerance (5%) worse,
with the ratio beyond the minimum effect (10%)? Then regression. Does the interval rule out the
resolution (a 20% worsening), with the ratio within the minimum effect? Then pass. Otherwise
inconclusive. This module asks the same two questions after each look (by default after every
round from the 6th), each with its own one-sided t-test, at the smaller level that look may spend:

- Spending: Lan-DeMets, t = pairs measured / max rounds, for each question separately (stopping for
  one only ends the other's chances, so neither error grows by it), each with its own function. The
  regression question's is O'Brien-Fleming-type, alpha(t) = 2 - 2 Phi(z_{alpha/2} / sqrt(t)): it
  spends almost nothing in the first looks, so six noisy rounds fail a check only when they are
  unmistakable. The pass question's is Pocock-type, alpha ln(1 + (e - 1) t): it spends early, so a
  change that costs nothing is done at the first look it could be (round 6 instead of 9 at the
  median on this rig); a wrong pass of a 20% drop stays far below its alpha (docs/gate.md).
- Boundaries: the z boundaries c_1..c_k with P(Z_1 < c_1, .., Z_{j-1} < c_{j-1}, Z_j >= c_j) =
  alpha(t_j) - alpha(t_{j-1}) under the null, by the recursive numerical integration of the
  score's Brownian motion (Armitage, McPherson and Rowe 1969; Jennison and Turnbull 2000, ch. 19)
  on a grid: deterministic, a fraction of a second a plan, cached. For five equal looks they are
  gsDesign's 4.877, 3.357, 2.680, 2.290, 2.031 (tests/judge/test_sequential.py).
- Unknown variance: the significance level approach (Jennison and Turnbull 2000, ch. 3): look j's
  t-test, with n - 1 degrees of freedom, is held to the nominal one-sided level 1 - Phi(c_j).
- Margins: an interim look moves each question's margin by the tolerance, away from the other
  verdict. Regression: the look's interval must lie beyond the minimum effect itself (0.90x),
  not only beyond the tolerance (0.95x) with the ratio beyond the minimum effect. Pass: the
  interval must rule out the resolution (0.80x) with the ratio within the tolerance (0.95x), not
  only within the minimum effect. The last look is the fixed rule's at alpha 0.025, not the
  design's smaller level (z 1.96, not 2.12), and the spent looks would add their crossings to the
  fixed rule's error at the null (0.030 instead of 0.025 on the z scale: `fixed_final_error`);
  without the moved margins a check of a real 5% change would fail 1.2x as often and a 20% drop
  pass 10x as often as with the fixed rule (seeded simulation at this rig's 17% per-round spread,
  benchmarks/bench_sequential.py). With them, both stay within 0.1 point of the fixed rule's
  (2.20% and 0.15% against 2.20% and 0.07%; tests/judge/test_sequential.py; docs/gate.md, "Stopping early").
- At max rounds the verdict is verdict.decide's, exactly, so nothing gets worse than the fixed rule
  there. Interim looks never say inconclusive: a check not yet certain measures another round.
A metric without a resolution (the p99s) has no pass to prove early: its interim looks can stop only
with a regression.
- A family of k judged metrics (judge/family.py): each metric's regression question spends alpha / k
  over its looks (the pass question still spends alpha), so that the chance of any regression on an
  A/A check stays within alpha over every look of every metric (a union bound).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Literal, Sequence

import numpy as np
import numpy.typing as npt

from kcliff.judge import stats, verdict
from kcliff.judge.verdict import Decision, Outcome
from kcliff.measure.plan import GATE_ROUNDS
from kcliff.results.metrics import METRICS

FIRST_LOOK = 6  # O'Brien-Fleming spends under 1e-4 before a third of the rounds: earlier looks cannot stop
# Where links or disks are capped a round's log ratios scatter 2-6%, not 17%: the pass question's early looks
# can end an A/A check at round 4 (17 recorded checks at a profile: median round 4 against 6), while
# where CPU binds they only thin out the later looks (docs/gate.md, "Stopping early").
FIRST_LOOK_WHERE_BYTES_BIND = 4
# Through a fault alone, a check has FAULT_ROUNDS rounds: the pass question may look from the third (a
# look needs decide's three pairs), the regression question's early looks spend next to nothing.
FIRST_LOOK_THROUGH_FAULTS = 3
GRID = 1001  # points of the integration grid per look: boundaries within 1e-4 of a 2001-point grid

Spending = Literal["obrien-fleming", "pocock"]
Floats = npt.NDArray[np.float64]


@dataclass(frozen=True)
class Plan:
    """When to look and how much of alpha each look may spend: a look after every `every` rounds
    from `first_look`, and always one after `max_rounds`, where the fixed rule decides."""

    max_rounds: int = GATE_ROUNDS  # kcliff check's default --rounds
    first_look: int = FIRST_LOOK
    every: int = 1
    spending: Spending = "obrien-fleming"  # the regression question's: a false alarm needs unmistakable early rounds
    pass_spending: Spending = "pocock"  # the pass question's: a benign change stops at the first looks
    alpha: float = verdict.DEFAULT_ALPHA
    moved_margins: bool = True  # False: interim looks keep the fixed rule's margins (for comparison only)
    family: int = 1  # metrics judged together: each one's regression question spends alpha / family

    def __post_init__(self) -> None:
        if not 1 <= self.first_look <= self.max_rounds or self.every < 1:
            raise ValueError(f"a plan needs 1 <= first_look <= max_rounds and every >= 1, got {self}")
        if not 0 < self.alpha < 0.5:
            raise ValueError(f"alpha must be in (0, 0.5), got {self.alpha}")
        if self.family < 1:
            raise ValueError(f"a family holds at least one metric, got {self.family}")

    @classmethod
    def for_rounds(cls, max_rounds: int, family: int = 1, bytes_capped: bool = False,
                   through_faults: bool = False) -> Plan:
        """The default plan for a check of `max_rounds` rounds (kcliff check --rounds) judging `family` metrics,
        on a rig whose links or disks are capped (`bytes_capped`) or not, measured `through_faults` alone or not."""
        first = FIRST_LOOK_WHERE_BYTES_BIND if bytes_capped else FIRST_LOOK
        first = FIRST_LOOK_THROUGH_FAULTS if through_faults else first
        return cls(max_rounds=max_rounds, first_look=min(first, max_rounds), family=family)

    @property
    def regression_alpha(self) -> float:
        """The one-sided level a regression question spends over all its looks (Bonferroni over the family)."""
        return self.alpha / self.family

    def looks(self) -> tuple[int, ...]:
        """The rounds after which the rule looks; the last is `max_rounds`."""
        return (*range(self.first_look, self.max_rounds, self.every), self.max_rounds)


PLAN = Plan()


@dataclass(frozen=True)
class Step:
    """What the rule says after `rounds` rounds. `outcome` None: not certain yet, measure another
    round. `level`: the look's one-sided nominal level (None at the last look: decide's alpha)."""

    outcome: Outcome | None
    reason: str
    rounds: int
    pairs: int
    level: float | None = None
    ratio: float | None = None

    @property
    def stopped(self) -> bool:
        return self.outcome is not None


def spent(t: float, alpha: float = verdict.DEFAULT_ALPHA, spending: Spending = "obrien-fleming") -> float:
    """The part of the one-sided `alpha` spent by information fraction `t` (Lan-DeMets): O'Brien-
    Fleming-type 2 - 2 Phi(z_{alpha/2} / sqrt(t)), or Pocock-type alpha ln(1 + (e - 1) t)."""
    from scipy.special import ndtr, ndtri

    if t <= 0:
        return 0.0
    t = min(t, 1.0)
    if spending == "obrien-fleming":
        return float(2 * ndtr(ndtri(alpha / 2) / math.sqrt(t)))
    return alpha * math.log(1 + (math.e - 1) * t)


def _grid(upper: float, scale: float) -> tuple[Floats, Floats]:
    """Points from deep in the lower tail to `upper` (the score scale, sd `scale`; an infinite
    `upper` stops as deep in the upper tail) and their trapezoid weights."""
    upper = min(upper, 10 * scale)
    x = np.linspace(min(-10 * scale, upper - scale), upper, GRID)
    w = np.full(GRID, x[1] - x[0])
    w[0] = w[-1] = w[0] / 2
    return x, w


def _first_crossings(times: Sequence[float], bounds: Sequence[float | None],
                     targets: Sequence[float] = ()) -> list[tuple[float, float]]:
    """Look by look, under the null: (the z boundary, P(the first crossing is at this look)). A
    boundary given as None is solved for, so that its crossing probability is that look's target.
    The sub-density of the score S_j = Z_j sqrt(t_j) on the continuation region is carried from
    look to look on a grid (its increments are independent normal with variance t_j - t_{j-1})."""
    from scipy import optimize
    from scipy.special import ndtr

    out: list[tuple[float, float]] = []
    x = w = density = np.zeros(0)
    previous = 0.0
    for j, t in enumerate(times):
        step = math.sqrt(t - previous)

        def crossing(c: float) -> float:
            if j == 0:
                return float(ndtr(-c))
            return float(np.sum(w * density * ndtr((x - c * math.sqrt(t)) / step)))

        c = bounds[j]
        if c is None:
            target = targets[j]
            c = math.inf if target <= 1e-15 else float(
                optimize.brentq(lambda z: crossing(z) - target, -10.0, 40.0, xtol=1e-10))
        out.append((c, 0.0 if math.isinf(c) else crossing(c)))
        if j < len(times) - 1:
            nx, nw = _grid(c * math.sqrt(t), math.sqrt(t))
            if j == 0:
                new = np.exp(-0.5 * nx * nx / t) / math.sqrt(2 * math.pi * t)
            else:
                kernel = np.exp(-0.5 * ((nx[None, :] - x[:, None]) / step) ** 2) / (step * math.sqrt(2 * math.pi))
                new = (w * density) @ kernel
            x, w, density = nx, nw, new
        previous = t
    return out


@lru_cache(maxsize=64)
def boundaries(times: tuple[float, ...], alpha: float = verdict.DEFAULT_ALPHA,
               spending: Spending = "obrien-fleming") -> tuple[float, ...]:
    """The z boundaries of looks at information fractions `times` (increasing, within (0, 1]): the
    first crossing is at look j with probability spent(t_j) - spent(t_{j-1}) under the null. A
    look's boundary depends on the looks before it only, so a plan's are computed once."""
    if not times or times[0] <= 0 or times[-1] > 1 + 1e-12 or any(b <= a for a, b in zip(times, times[1:])):
        raise ValueError(f"information fractions must increase within (0, 1], got {times}")
    cumulative = [spent(t, alpha, spending) for t in times]
    targets = [b - a for a, b in zip([0.0, *cumulative], cumulative)]
    return tuple(c for c, _ in _first_crossings(times, [None] * len(times), targets))


def nominal_levels(times: tuple[float, ...], alpha: float = verdict.DEFAULT_ALPHA,
                   spending: Spending = "obrien-fleming") -> tuple[float, ...]:
    """Each look's one-sided nominal level 1 - Phi(c_j): the level its t-test is held to."""
    from scipy.special import ndtr

    return tuple(float(ndtr(-c)) for c in boundaries(times, alpha, spending))


def fixed_final_error(plan: Plan = PLAN) -> float:
    """The z-scale error at the regression question's null when the interim looks use the plan's
    boundaries and the last look the fixed level alpha instead of its own: what the interim looks
    would add to the fixed rule's alpha with unmoved margins."""
    from scipy.special import ndtri

    times = tuple(n / plan.max_rounds for n in plan.looks())
    final = float(-ndtri(plan.alpha))
    bounds = [*boundaries(times[:-1], plan.alpha, plan.spending), final] if len(times) > 1 else [final]
    return sum(p for _, p in _first_crossings(times, bounds))


def round_logs(base_runs: Sequence[float | None], head_runs: Sequence[float | None]) -> list[float | None]:
    """ln(head / base) of each round, None where a side measured nothing (stats.log_ratios keeps
    the same rounds, without the gaps)."""
    if len(base_runs) != len(head_runs):
        raise ValueError(f"base and head must have measured the same rounds ({len(base_runs)} and {len(head_runs)})")
    return [next(iter(stats.log_ratios([b], [h])), None) for b, h in zip(base_runs, head_runs)]


def _looks_taken(logs: Sequence[float | None], plan: Plan) -> list[tuple[int, int]]:
    """(round, pairs) of the interim looks so far that count: a look with fewer than decide's
    minimum of pairs, or no more pairs than the look before, has nothing new to spend on."""
    taken: list[tuple[int, int]] = []
    for r in plan.looks()[:-1]:
        if r > len(logs):
            break
        pairs = sum(x is not None for x in logs[:r])
        if pairs >= verdict.DEFAULT_MIN_RUNS and (not taken or pairs > taken[-1][1]):
            taken.append((r, pairs))
    return taken


def _level(plan: Plan, taken: list[tuple[int, int]], alpha: float, spending: Spending) -> float:
    """The nominal level of the last look taken, for a question spending `alpha` by `spending`. The
    boundaries are computed for the looks taken and the plan's later interim looks, so that a check
    without gaps computes them once."""
    later = [r for r in plan.looks()[:-1] if r > taken[-1][0]]
    times = tuple(p / plan.max_rounds for _, p in taken) + tuple(r / plan.max_rounds for r in later)
    return nominal_levels(times, alpha, spending)[len(taken) - 1]


def _interim(logs: Sequence[float], level: float, metric: str, min_effect: float, tolerance: float,
             resolution: float | None, where: str, moved: bool = True,
             regression_level: float | None = None) -> tuple[Outcome | None, str, float]:
    """An interim look's answer over the pairs measured so far, held to `level` (one-sided), the
    regression question to `regression_level` (default `level`; smaller in a family). With
    `moved` margins, a regression's interval must clear the minimum effect and a pass's ratio be
    within the tolerance; without, the fixed rule's: the tolerance, and the minimum effect."""
    higher = METRICS[metric].higher_is_better
    worse, better = ("lower", "higher") if higher else ("higher", "lower")
    sign = 1 if higher else -1
    n, mean = len(logs), math.fsum(logs) / len(logs)
    prior = METRICS[metric].noise
    sd, df = stats.pair_spread(logs, prior)
    ratio = math.exp(mean)

    held = level if regression_level is None else regression_level

    def beyond(margin: float, head_is: str, at: float = level) -> bool:
        return stats.t_p_value(mean, sd, df, n, margin, head_is) < at

    def interval(at: float = level) -> str:
        _, low, high = stats.paired_ratio(logs, 1 - 2 * at, prior)
        return f"the {_percent(1 - 2 * at)} interval {low:.2f}-{high:.2f} (the level this look may spend)"

    direction = "down" if higher else "up"
    margin, share = (min_effect, tolerance) if moved else (tolerance, min_effect)
    worse_than_effect = ratio < 1 - min_effect if higher else ratio > 1 + min_effect
    if worse_than_effect and beyond(1 - sign * margin, worse, held):
        return Outcome.REGRESSION, (f"{metric} {direction} to {ratio:.2f}x {where}, stopped early: {interval(held)} "
                                    f"lies more than {margin:.0%} worse"), ratio
    within = ratio >= 1 - share if higher else ratio <= 1 + share
    if resolution is not None and within and beyond(1 - sign * resolution, better):
        if beyond(1 + sign * min_effect, better):
            return Outcome.IMPROVEMENT, (f"{metric} improved to {ratio:.2f}x {where}, stopped early: {interval()} "
                                         f"lies beyond the {min_effect:.0%} minimum effect"), ratio
        return Outcome.PASS, (f"{ratio:.2f}x {where}, stopped early: {interval()} rules out a {resolution:.0%} "
                              f"worsening, and the ratio is within {share:.0%}"), ratio
    return None, f"{ratio:.2f}x {where}: not yet certain at this look's level (p < {level:.2g} one-sided)", ratio


def _percent(confidence: float) -> str:
    for digits in range(1, 6):
        text = f"{100 * confidence:.{digits}f}"
        if float(text) < 100:
            return text.rstrip("0").rstrip(".") + "%"
    return f"{100 * confidence:g}%"


def judge_rounds(logs: Sequence[float | None], plan: Plan = PLAN, metric: str = "throughput",
                 min_effect: float = verdict.DEFAULT_MIN_EFFECT, tolerance: float | None = None,
                 resolution: float | None | Literal["default"] = "default") -> Step:
    """The rule after the rounds measured so far: `logs` holds each round's ln(head / base) in the
    order measured, None for a round where a side measured nothing. At `plan.max_rounds` (or
    more) rounds, verdict.decide's paired verdict; at an interim look, pass, improvement or
    regression if certain at the look's level, else None; between looks, None."""
    rounds, pairs = len(logs), sum(x is not None for x in logs)
    measured = [x for x in logs if x is not None]
    min_effect = verdict.metric_min_effect(metric, min_effect)
    tolerance = verdict.default_tolerance(min_effect) if tolerance is None else tolerance
    if rounds >= plan.max_rounds:
        base = [1.0 if x is not None else None for x in logs]
        head = [math.exp(x) if x is not None else None for x in logs]
        d = verdict.decide(base, head, metric, min_effect=min_effect, resolution=resolution, paired=True,
                           tolerance=tolerance, alpha=plan.regression_alpha)
        return Step(d.outcome, d.reason, rounds, pairs, None, d.ratio)
    taken = _looks_taken(logs, plan)
    if not taken or taken[-1][0] != rounds:
        return Step(None, f"no look after round {rounds}", rounds, pairs)
    level = _level(plan, taken, plan.alpha, plan.pass_spending)
    held = _level(plan, taken, plan.regression_alpha, plan.spending)
    resolved = METRICS[metric].resolution if resolution == "default" else resolution
    where = f"after {rounds} of {plan.max_rounds} rounds" + (f" ({pairs} with both sides)" if pairs < rounds else "")
    outcome, reason, ratio = _interim(measured, level, metric, min_effect, tolerance, resolved, where,
                                      plan.moved_margins, held)
    return Step(outcome, reason, rounds, pairs, held if outcome is Outcome.REGRESSION else level, ratio)


def first_stop(logs: Sequence[float | None], plan: Plan = PLAN, metric: str = "throughput",
               min_effect: float = verdict.DEFAULT_MIN_EFFECT, tolerance: float | None = None,
               resolution: float | None | Literal["default"] = "default") -> Step:
    """Where a check measuring these rounds one by one would stop, and with what: the first look
    that stops, or the last one reached (not stopped, when fewer than max rounds are given)."""
    step = Step(None, "no look reached", 0, 0)
    for r in plan.looks():
        if r > len(logs):
            break
        step = judge_rounds(logs[:r], plan, metric, min_effect, tolerance, resolution)
        if step.stopped:
            break
    return step


def decide_so_far(base_runs: Sequence[float | None], head_runs: Sequence[float | None], plan: Plan = PLAN,
                  metric: str = "throughput", min_effect: float = verdict.DEFAULT_MIN_EFFECT,
                  tolerance: float | None = None,
                  resolution: float | None | Literal["default"] = "default") -> Decision | None:
    """What kcliff check can call after each round: the i-th runs of base and head were measured
    in round i. None: measure another round. A Decision: stop; at `plan.max_rounds` rounds it is
    verdict.decide's paired decision exactly, before that an early pass, improvement or regression
    whose figures (ratio, 95% interval, p against the tolerance) are decide's over the rounds so
    far and whose reason names the look's own interval."""
    step = judge_rounds(round_logs(base_runs, head_runs), plan, metric, min_effect, tolerance, resolution)
    if step.outcome is None:
        return None
    fixed = verdict.decide(base_runs, head_runs, metric, min_effect=min_effect, resolution=resolution, paired=True,
                           tolerance=tolerance, alpha=plan.regression_alpha)
    if step.level is None:
        return fixed
    return replace(fixed, outcome=step.outcome, reason=step.reason)

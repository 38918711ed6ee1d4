"""Verdicts for base vs head: pure functions over plain lists of per-run values (and plain dicts).

    decide(base, head, metric)                -> Decision      one metric, one scenario
    canary.canary_verdict(canary, reference)  -> CanaryVerdict did the canary show its cliff?
    compare_scenario(id, base, head, ...)     -> ScenarioVerdict
    judge(scenarios, canaries, rule_matches)  -> Verdict       the gate's answer and exit code

Verdicts, worst first: cliff (an error-severity cliff rule matched, or head landed in the canaries'
tier while base did not), regression (throughput down or p99 up beyond noise AND beyond the minimum
effect), inconclusive (too few runs, an interval too wide to rule out a real drop, or a canary that
failed to show its cliff: the rig could not have seen one), pass.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field, replace
from enum import StrEnum
from typing import Any, Literal, Mapping, Sequence

from kcliff.judge import stats
from kcliff.judge.canary import CanaryVerdict
from kcliff.judge.family import Family
from kcliff.lint.severity import Severity
from kcliff.results.documents import VERDICT
from kcliff.results.metrics import CONSUMED, METRICS, THROUGHPUT, Workload
from kcliff.scenario.latency_budget import LatencyBudget

DEFAULT_MIN_EFFECT = 0.10
DEFAULT_ALPHA = 0.025  # one-sided, against `tolerance`: the whole 95% interval beyond it
DEFAULT_CONFIDENCE = 0.95
DEFAULT_MIN_RUNS = 3
# The share of the minimum effect a change may have without risking a regression verdict: the
# p-value tests "worse by more than this", not "worse at all". Real config changes move throughput
# by a few percent, and the rig adds a few percent per check that rounds do not average away (the
# gate benchmark's A/A checks scatter 1.3x more between checks than their own runs predict); tested
# against no change at all, those were failed whenever noise stretched them past the minimum effect.
TOLERANCE_SHARE = 0.5
# A metric's resolution and its floor on the minimum effect are the Metric's (results/model.py).


class Outcome(StrEnum):
    """A metric's decision (pass, improvement, regression, inconclusive) or a scenario's or the gate's
    verdict (pass, inconclusive, regression, cliff)."""

    PASS = "pass"
    IMPROVEMENT = "improvement"  # a metric's decision only: a scenario that improved passes
    INCONCLUSIVE = "inconclusive"
    REGRESSION = "regression"
    CLIFF = "cliff"
    # a metric's decision only: measured and reported, but the change cannot move it (judge/family.py)
    NOT_JUDGED = "not judged"

    @property
    def fails(self) -> bool:
        """A measured regression or cliff: the head's change is what costs."""
        return self in (Outcome.REGRESSION, Outcome.CLIFF)

    @property
    def unsettled(self) -> bool:
        """A metric that regressed or could not be decided."""
        return self in (Outcome.REGRESSION, Outcome.INCONCLUSIVE)


ORDER = (Outcome.PASS, Outcome.INCONCLUSIVE, Outcome.REGRESSION, Outcome.CLIFF)  # worst last
EXIT_CODES = {Outcome.PASS: 0, Outcome.REGRESSION: 1, Outcome.CLIFF: 1, Outcome.INCONCLUSIVE: 3}


@dataclass(frozen=True)
class Decision:
    metric: str
    outcome: Outcome  # pass | improvement | regression | inconclusive
    reason: str
    n_base: int
    n_head: int
    base_median: float | None = None
    head_median: float | None = None
    ratio: float | None = None  # head median / base median (paired: geometric mean of per-round ratios)
    low: float | None = None  # interval on the ratio (bootstrap; paired: t)
    high: float | None = None
    p_value: float | None = None  # one-sided, against a worsening of `tolerance`
    tolerance: float | None = None
    cv_base: float | None = None
    cv_head: float | None = None
    min_effect: float = DEFAULT_MIN_EFFECT
    method: str = "unpaired"  # unpaired: Mann-Whitney, ratio of medians; paired: t on per-round log ratios
    n_pairs: int | None = None
    alpha: float = DEFAULT_ALPHA  # the level the regression question was held to (split across a family)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def default_tolerance(min_effect: float) -> float:
    return min_effect * TOLERANCE_SHARE


def metric_min_effect(metric: str, min_effect: float) -> float:
    """The minimum effect `metric` is judged at: the one asked for, or its floor if larger."""
    return max(min_effect, METRICS[metric].min_effect_floor)


def _worse(metric: str, ratio: float, min_effect: float) -> bool:
    return ratio < 1 - min_effect if METRICS[metric].higher_is_better else ratio > 1 + min_effect


def _better(metric: str, ratio: float, min_effect: float) -> bool:
    return ratio > 1 + min_effect if METRICS[metric].higher_is_better else ratio < 1 - min_effect


def decide(base_runs: Sequence[float | None], head_runs: Sequence[float | None], metric: str = "throughput",
           min_effect: float = DEFAULT_MIN_EFFECT, alpha: float = DEFAULT_ALPHA,
           confidence: float = DEFAULT_CONFIDENCE, min_runs: int = DEFAULT_MIN_RUNS,
           resolution: float | None | Literal["default"] = "default", seed: int = 0, n_boot: int = 4000,
           paired: bool = False, tolerance: float | None = None) -> Decision:
    """Compare one metric's per-run values. Regression needs both: a ratio beyond `min_effect` (big
    enough to matter; at least the metric's min_effect_floor) and a one-sided p below `alpha`
    against a worsening of `tolerance` (default half the minimum effect): the runs must rule out
    that the head is only that much worse, so a real but small change is not failed whenever noise
    stretches it past the minimum effect.
    Unpaired: Mann-Whitney and the ratio of medians. `paired` (the i-th runs of base and head were
    measured in the same round): a t-test on the per-round log ratios and their geometric mean."""
    if metric not in METRICS:
        raise ValueError(f"metric must be one of {tuple(METRICS)}, got {metric!r}")
    resolved = METRICS[metric].resolution if resolution == "default" else resolution
    min_effect = metric_min_effect(metric, min_effect)
    base, head = stats.clean(base_runs), stats.clean(head_runs)
    common: dict[str, Any] = {"metric": metric, "n_base": len(base), "n_head": len(head), "min_effect": min_effect,
              "method": "paired" if paired else "unpaired", "alpha": alpha}
    if paired:
        logs = stats.log_ratios(base_runs, head_runs)
        common["n_pairs"] = len(logs)
        if len(logs) < min_runs:
            return Decision(outcome=Outcome.INCONCLUSIVE, reason=f"too few rounds with both sides measured ({len(logs)}; "
                                                           f"need {min_runs})", **common)
    elif len(base) < min_runs or len(head) < min_runs:
        return Decision(outcome=Outcome.INCONCLUSIVE, reason=f"too few runs (base {len(base)}, head {len(head)}; "
                                                       f"need {min_runs} a side)", **common)
    elif 1 / math.comb(len(base) + len(head), len(head)) >= alpha:
        # Mann-Whitney's smallest possible p for these sample sizes: no result could reach alpha.
        return Decision(outcome=Outcome.INCONCLUSIVE, reason=f"too few runs (base {len(base)}, head {len(head)}) for any "
                        f"result to reach p < {alpha}", **common)
    higher = METRICS[metric].higher_is_better
    worse, better = ("lower", "higher") if higher else ("higher", "lower")
    tolerance = default_tolerance(min_effect) if tolerance is None else tolerance
    worse_margin, better_margin = (1 - tolerance, 1 + tolerance) if higher else (1 + tolerance, 1 - tolerance)
    if paired:
        prior = METRICS[metric].noise
        ratio, low, high = stats.paired_ratio(logs, confidence, prior)
        p_worse = stats.paired_p_value(logs, worse, worse_margin, prior)
        p_better = stats.paired_p_value(logs, better, better_margin, prior)
    else:
        ratio = stats.ratio_of_medians(base, head)
        low, high = stats.bootstrap_ratio_interval(base, head, confidence, n_boot, seed)
        p_worse = stats.shift_p_value(base, head, worse, worse_margin)
        p_better = stats.shift_p_value(base, head, better, better_margin)
    figures: dict[str, Any] = dict(base_median=stats.median(base), head_median=stats.median(head), ratio=ratio, low=low, high=high,
                   p_value=p_worse, tolerance=tolerance, cv_base=stats.cv(base), cv_head=stats.cv(head), **common)
    return _outcome(figures, p_better, alpha, confidence, resolved)


def _outcome(figures: dict[str, Any], p_better: float, alpha: float, confidence: float,
             resolution: float | None) -> Decision:
    """Regression, improvement, inconclusive or pass, from the ratio, its interval and the p values."""
    metric, ratio, low, high = figures["metric"], figures["ratio"], figures["low"], figures["high"]
    p_worse, min_effect, tolerance = figures["p_value"], figures["min_effect"], figures["tolerance"]
    higher = METRICS[metric].higher_is_better
    direction = "down" if higher else "up"
    if _worse(metric, ratio, min_effect) and p_worse < alpha:
        return Decision(outcome=Outcome.REGRESSION, reason=f"{metric} {direction} to {ratio:.2f}x "
                        f"(beyond the {min_effect:.0%} minimum effect, and more than {tolerance:.0%} worse: "
                        f"p={p_worse:.3g} < {alpha})", **figures)
    if _better(metric, ratio, min_effect) and p_better < alpha:
        return Decision(outcome=Outcome.IMPROVEMENT, reason=f"{metric} improved to {ratio:.2f}x (p={p_better:.3g})", **figures)
    if resolution is not None:
        bound = low if higher else high
        if (higher and bound < 1 - resolution) or (not higher and bound > 1 + resolution):
            return Decision(outcome=Outcome.INCONCLUSIVE, reason=(
                f"{metric} too noisy to tell: the {confidence:.0%} interval {low:.2f}-{high:.2f} cannot rule out "
                f"a {resolution:.0%} worsening; more runs are needed"), **figures)
        if _worse(metric, ratio, min_effect):
            return Decision(outcome=Outcome.INCONCLUSIVE, reason=(
                f"{metric} {direction} to {ratio:.2f}x, but these runs cannot show it is more than {tolerance:.0%} "
                f"worse (p={p_worse:.3g} >= {alpha}); more runs are needed"), **figures)
    if _worse(metric, ratio, min_effect):
        reason = f"{ratio:.2f}x is not shown to be more than {tolerance:.0%} worse (p={p_worse:.3g} >= {alpha})"
    else:
        reason = f"{ratio:.2f}x is within the {min_effect:.0%} minimum effect"
    return Decision(outcome=Outcome.PASS, reason=reason, **figures)


def within_budget(d: Decision, budget: LatencyBudget | None) -> Decision:
    """A latency at rate the service's budget covers (at its percentile or below) that worsened, or could
    not be told, yet stays within the budget by the runs (the base's median times the upper end of the
    ratio's interval) passes: the service tolerates it, so a team may trade it for throughput."""
    percentile = METRICS[d.metric].percentile
    if budget is None or percentile is None or percentile > budget.percentile:
        return d
    high, base, head = d.high, d.base_median, d.head_median
    if d.outcome not in (Outcome.REGRESSION, Outcome.INCONCLUSIVE) or high is None or base is None or head is None:
        return d
    top = max(base * high, head)
    if top > budget.ms:
        return d
    return replace(d, outcome=Outcome.PASS, reason=(
        f"{d.metric} {d.ratio:.2f}x ({d.base_median:.3g} -> {d.head_median:.3g} ms, at most {top:.3g} ms by these "
        f"rounds), within the service's {budget} budget (kcliff.yaml)"))


def cliff_ceiling(canaries: Sequence[CanaryVerdict]) -> float | None:
    """Throughput at or below the fastest throughput canary that showed its cliff: a scenario this
    slow is on a cliff the rig has just proved it can see."""
    medians = [c.canary_median for c in canaries if c.metric == THROUGHPUT.name and c.seen and c.canary_median]
    return max(medians) if medians else None


@dataclass(frozen=True)
class ScenarioVerdict:
    id: str
    verdict: Outcome
    decisions: tuple[Decision, ...]
    head_in_tier: bool = False
    base_in_tier: bool = False
    notes: tuple[str, ...] = ()
    rate_cliff: bool = False  # head could not hold the fixed rate that base held
    lost: int = 0  # acknowledged records the head's runs through a fault lost: a durability cliff
    failed: int = 0  # deliveries the head's producer gave up on through a fault where the base's gave up none
    read_cliff: float | None = None  # head's consumption over base's where head's consumer was cut on its cliff

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "verdict": self.verdict, "head_in_tier": self.head_in_tier,
                "base_in_tier": self.base_in_tier, "rate_cliff": self.rate_cliff, "lost": self.lost,
                "failed": self.failed, "read_cliff": self.read_cliff, "notes": list(self.notes),
                "decisions": [d.to_dict() for d in self.decisions]}


def compare_scenario(scenario_id: str, base: Mapping[str, Sequence[float | None]],
                     head: Mapping[str, Sequence[float | None]],
                     ceiling: float | None = None, family: Family | None = None,
                     held: tuple[bool | None, bool | None] = (None, None), budget: LatencyBudget | None = None,
                     stopped: tuple[bool, bool] = (False, False), lost: tuple[int | None, int | None] = (None, None),
                     failed: tuple[int | None, int | None] = (None, None), reads_cut: tuple[bool, bool] = (False, False),
                     **decide_args: Any) -> ScenarioVerdict:
    """Decide each metric present on both sides; `ceiling` is cliff_ceiling() of this job's canaries.
    With a `family` (kcliff check), only its judged metrics count, each regression question at its
    share of alpha; the others are decided for their figures and reported as not judged. `held`: whether
    base and head held their fixed rate (Entry.held_rate): a head that could not, where base could, is
    on a cliff at rate (its latencies there are only a lower bound). `budget`: the service's latency
    budget (within_budget). `stopped`: whether base and head were stopped on their cliff (on_cliff.on_its_cliff):
    a head the early stop cut twice running, where base ran on, fell to the cliff tier, whatever its cut
    runs' figures read. `lost`: acknowledged records base's and head's runs through a fault lost (None:
    not measured): one the head lost fails the check by itself, a durability cliff, whatever the statistics.
    `failed`: deliveries base's and head's producers gave up on through a fault, where a changed setting can
    move them (Family.counted; None: not judged): any the head failed where the base failed none is a regression.
    `reads_cut`: whether base's and head's consumers were stopped at their cap twice running (on_cliff.reads_on_cliff):
    a head cut so where base read on is on a cliff of the read side, where the check judges consumption."""
    alpha = decide_args.pop("alpha", DEFAULT_ALPHA)
    decisions = tuple(within_budget(_decision(base[m], head[m], m, alpha, family, decide_args), budget)
                      for m in METRICS if m in base and m in head)
    judged = [d for d in decisions if d.outcome is not Outcome.NOT_JUDGED]
    notes: list[str] = []
    head_in = base_in = False
    tier = family is None or family.judges(THROUGHPUT)  # a change that cannot move throughput is no throughput cliff
    if tier and ceiling is not None and THROUGHPUT.name in head and THROUGHPUT.name in base:
        h, b = stats.clean(head[THROUGHPUT.name]), stats.clean(base[THROUGHPUT.name])
        head_in = bool(h) and stats.median(h) <= ceiling
        base_in = bool(b) and stats.median(b) <= ceiling
        if head_in and base_in:
            notes.append("base is already in the canaries' cliff tier")
    outcomes = {d.outcome for d in judged}
    at_rate = any(METRICS[d.metric].workload is Workload.RATE for d in judged)
    rate_cliff = at_rate and held[1] is False and held[0] is not False
    if at_rate and held[0] is False:
        notes.append("base could not hold the fixed rate either: latency at rate is a lower bound on both sides")
    if tier and stopped[1] and not stopped[0]:
        head_in = True
        notes.append("head was stopped on its cliff twice running: under the early stop's share of the reference")
    read_cliff = None
    if (family is None or family.judges(CONSUMED)) and reads_cut[1] and not reads_cut[0]:
        h, b = stats.clean(head.get(CONSUMED.name, ())), stats.clean(base.get(CONSUMED.name, ()))
        before = stats.median(b) if b else 0.0
        read_cliff = stats.median(h) / before if h and before > 0 else 0.0
        notes.append(f"head's consumer was stopped at its cap twice running where base's read on: a cliff on the read "
                     f"side, consumed {read_cliff:.3f}x")
    head_lost = lost[1] or 0
    if head_lost:
        notes.append(f"head lost {head_lost} acknowledged record(s) under acks=all through a failure: "
                     "a durability cliff" + (f" (base lost {lost[0]})" if lost[0] else " (base lost none)"))
    head_failed = failed_deliveries(failed)
    if head_failed:
        notes.append(f"head's producer gave up on {head_failed} deliveries through a failure (base none): records "
                     "the service must resend or drop")
    if head_lost:
        verdict = Outcome.CLIFF
    elif head_in and not base_in:
        verdict = Outcome.CLIFF
        if not stopped[1]:  # else head_in came from the ceiling, which is then set
            notes.append(f"head throughput is at or below the slowest tier the canaries define ({ceiling:.3g} MB/s)")
    elif rate_cliff:
        verdict = Outcome.CLIFF
        notes.append("head could not hold the fixed rate that base held: a cliff at rate")
    elif read_cliff is not None:
        verdict = Outcome.CLIFF
    elif Outcome.REGRESSION in outcomes or head_failed:
        verdict = Outcome.REGRESSION
    elif not judged or Outcome.INCONCLUSIVE in outcomes:
        verdict = Outcome.INCONCLUSIVE
    else:
        verdict = Outcome.PASS
    return ScenarioVerdict(scenario_id, verdict, decisions, head_in, base_in, tuple(notes), rate_cliff, head_lost,
                           head_failed, read_cliff)


def failed_deliveries(failed: tuple[int | None, int | None]) -> int:
    """The deliveries the head failed that count against it (0: none): any, where the base measured and failed none.
    Where both failed some, the service already copes with failures: the count alone decides nothing."""
    base, head = failed
    return (head or 0) if base == 0 else 0


def _decision(base: Sequence[float | None], head: Sequence[float | None], metric: str, alpha: float,
              family: Family | None, decide_args: dict[str, Any]) -> Decision:
    if family is None:
        return decide(base, head, metric, alpha=alpha, **decide_args)
    if family.judges(METRICS[metric]):
        return decide(base, head, metric, alpha=family.regression_alpha(alpha), **decide_args)
    d = decide(base, head, metric, alpha=alpha, **decide_args)
    measured = f" (measured {d.ratio:.2f}x)" if d.ratio is not None else ""
    return replace(d, outcome=Outcome.NOT_JUDGED, reason=family.why_not(METRICS[metric]) + measured)


@dataclass(frozen=True)
class Verdict:
    verdict: Outcome
    reasons: tuple[str, ...]
    scenarios: tuple[ScenarioVerdict, ...] = ()
    canaries: tuple[CanaryVerdict, ...] = ()
    rule_matches: tuple[dict[str, Any], ...] = ()
    notes: tuple[str, ...] = ()
    settings: dict[str, Any] = field(default_factory=dict)

    @property
    def exit_code(self) -> int:
        return EXIT_CODES[self.verdict]

    def to_dict(self) -> dict[str, Any]:
        return {**VERDICT.stamp(), "verdict": self.verdict, "exit_code": self.exit_code,
                "reasons": list(self.reasons), "settings": self.settings,
                "scenarios": [s.to_dict() for s in self.scenarios],
                "canaries": [asdict(c) for c in self.canaries],
                "rule_matches": list(self.rule_matches), "notes": list(self.notes)}


def worst(verdicts: Sequence[Outcome]) -> Outcome:
    return max(verdicts, key=ORDER.index, default=Outcome.PASS)


def unsettled(sv: ScenarioVerdict) -> str:
    """The reasons of a scenario's regressed or inconclusive metrics, regressions first (what fails the
    check before what it could not tell), each said once; '' when there are none. A durability cliff is
    decided by its count, and so are failed deliveries: what the statistics could not tell yet is left out
    beside them."""
    counted = sv.lost or sv.failed
    unsettled = [d for d in sv.decisions if d.outcome.unsettled and (d.outcome is Outcome.REGRESSION or not counted)]
    ordered = sorted(unsettled, key=lambda d: d.outcome is not Outcome.REGRESSION)
    return "; ".join(dict.fromkeys(d.reason for d in ordered))


def judge(scenarios: Sequence[ScenarioVerdict], canaries: Sequence[CanaryVerdict] = (),
          rule_matches: Sequence[dict[str, Any]] = (), notes: Sequence[str] = (),
          settings: dict[str, Any] | None = None, unchanged: str | None = None) -> Verdict:
    """The gate's answer. `rule_matches` are static cliff-rule matches as dicts with at least
    'severity', 'rule', 'path', 'line'; an error-severity match makes the verdict cliff. `unchanged`
    says why nothing needed measuring: then having compared nothing is a pass, not inconclusive."""
    reasons: list[str] = []
    found = [Outcome.PASS]
    errors = [m for m in rule_matches if m.get("severity") == Severity.ERROR]
    if errors:
        found.append(Outcome.CLIFF)
        reasons.extend(f"cliff rule {m['rule']} matched at {m['path']}:{m['line']}" for m in errors)
    for sv in scenarios:
        found.append(sv.verdict)
        if sv.verdict is not Outcome.PASS:
            detail = unsettled(sv)
            reasons.append(f"{sv.id}: {sv.verdict}" + (f" ({detail})" if detail else "")
                           + ("; " + "; ".join(sv.notes) if sv.notes and (sv.verdict is Outcome.CLIFF or sv.failed)
                              else ""))
    failed = [c for c in canaries if not c.seen]
    if failed:
        found.append(Outcome.INCONCLUSIVE)
        reasons.extend(f"canary {c.id} did not show its cliff ({c.reason}): this rig could not have seen that cliff"
                       for c in failed)
    if unchanged:
        reasons.append(unchanged)
    elif not scenarios and not rule_matches:
        found.append(Outcome.INCONCLUSIVE)
        reasons.append("nothing was compared")
    return Verdict(worst(found), tuple(reasons), tuple(scenarios), tuple(canaries), tuple(rule_matches), tuple(notes),
                   dict(settings or {}))

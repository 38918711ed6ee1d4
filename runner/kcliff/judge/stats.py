"""The statistics behind the gate's verdicts, over plain lists of per-run values.

Two questions, two tools each (the reasoning is in docs/gate.md):
                                  unpaired (against a baseline)      paired (base and head in rounds)
  beyond run-to-run noise?        one-sided Mann-Whitney U           one-sided t-test on the per-round
                                                                     log ratios
  by how much, how sure?          ratio of medians, seeded           geometric mean of the per-round
                                  percentile-bootstrap interval      ratios, t interval
Mann-Whitney needs no assumption about the noise's shape. When base and head were measured in the
same rounds (kcliff check), drift hits both runs of a round alike and the per-round ratio cancels
it; what is left is roughly symmetric scatter, which a t-test on logs handles (Wilcoxon's
signed-rank test cannot reach a small enough p with a handful of rounds). The development
machine's figures behind this are in docs/measurements.md.
"""

from __future__ import annotations

import math
from typing import Literal, Sequence

import numpy as np

from kcliff.results.metrics import Noise

# head_is -> scipy's one-sided `alternative`
_ALTERNATIVE: dict[str, Literal["less", "greater"]] = {"lower": "less", "higher": "greater"}


def clean(values: Sequence[float | None]) -> list[float]:
    """The finite, positive values (a run that measured nothing has no ratio)."""
    return [float(v) for v in values if v is not None and math.isfinite(float(v)) and float(v) > 0]


def median(values: Sequence[float]) -> float:
    return float(np.median(np.asarray(values, dtype=float)))


def ratio_of_medians(base: Sequence[float], head: Sequence[float]) -> float:
    return median(head) / median(base)


def cv(values: Sequence[float]) -> float | None:
    """Coefficient of variation (sample sd / mean), the noise figure the report prints."""
    if len(values) < 2:
        return None
    arr = np.asarray(values, dtype=float)
    return float(arr.std(ddof=1) / arr.mean())


def bootstrap_ratio_interval(base: Sequence[float], head: Sequence[float], confidence: float = 0.95,
                             n_boot: int = 4000, seed: int = 0) -> tuple[float, float]:
    """Percentile-bootstrap interval for median(head) / median(base), resampling each side on its own.

    Seeded, so the same runs always give the same interval (a verdict must be reproducible).
    Percentile rather than BCa: with 3-5 runs a side BCa's jackknife degenerates on medians."""
    def ratio(h: np.ndarray, b: np.ndarray, axis: int = -1) -> np.ndarray:
        out: np.ndarray = np.median(h, axis=axis) / np.median(b, axis=axis)
        return out

    from scipy import stats as sps  # imported here: scipy.stats takes seconds to import, lint needs none of it

    result = sps.bootstrap((np.asarray(head, dtype=float), np.asarray(base, dtype=float)), ratio, vectorized=True,
                           n_resamples=n_boot, confidence_level=confidence, method="percentile",
                           rng=np.random.default_rng(seed))
    low, high = result.confidence_interval
    return float(low), float(high)


def shift_p_value(base: Sequence[float], head: Sequence[float], head_is: str, margin: float = 1.0) -> float:
    """One-sided Mann-Whitney U p-value for 'head tends to be lower' (head_is="lower") or "higher"
    than base times `margin` (1.0: than base itself). Exact for small samples without ties, normal
    approximation otherwise (scipy's auto)."""
    from scipy import stats as sps

    alternative = _ALTERNATIVE[head_is]
    shifted = np.asarray(base, dtype=float) * margin
    return float(sps.mannwhitneyu(head, shifted, alternative=alternative, method="auto").pvalue)


def log_ratios(base: Sequence[float | None], head: Sequence[float | None]) -> list[float]:
    """ln(head / base) for each round (the i-th run of each side) where both measured something."""
    return [math.log(h / b) for b, h in zip(base, head)
            if b is not None and h is not None and clean([b]) and clean([h])]


def pair_spread(logs: Sequence[float], prior: Noise | None = None) -> tuple[float, int]:
    """The sd of the per-round log ratios and its degrees of freedom: the sample's own (n - 1), or pooled with
    a metric's `prior` (results/metrics.Noise) as a moderated t pools them (Smyth 2004): the variances weighted
    by their degrees of freedom, which add."""
    n = len(logs)
    sd = float(np.asarray(logs, dtype=float).std(ddof=1)) if n > 1 else 0.0
    if prior is None:
        return sd, n - 1
    df = prior.df + n - 1
    return math.sqrt((prior.df * prior.sd ** 2 + (n - 1) * sd ** 2) / df), df


def paired_ratio(logs: Sequence[float], confidence: float = 0.95, prior: Noise | None = None) -> tuple[float, float, float]:
    """The geometric mean of the per-round ratios and its t interval (its spread pooled with `prior`, if any)."""
    from scipy.special import stdtrit

    arr = np.asarray(logs, dtype=float)
    mean, half = float(arr.mean()), 0.0
    sd, df = pair_spread(logs, prior)
    if df > 0:
        half = float(stdtrit(df, (1 + confidence) / 2)) * sd / math.sqrt(len(arr))
    return math.exp(mean), math.exp(mean - half), math.exp(mean + half)


def paired_p_value(logs: Sequence[float], head_is: str, margin: float = 1.0, prior: Noise | None = None) -> float:
    """One-sided t-test p for 'the per-round ratio is below `margin`' (head_is="lower") or above it
    (1.0: below or above no change at all); the spread pooled with `prior`, if any."""
    sd, df = pair_spread(logs, prior)
    mean = math.fsum(logs) / len(logs) if len(logs) else math.log(margin)
    return t_p_value(mean, sd, df, len(logs), margin, head_is)


def t_p_value(mean: float, sd: float, df: int, n: int, margin: float, head_is: str) -> float:
    """One-sided t p for 'the ratio is below `margin`' (head_is "lower") or above it, from the n pairs' mean of
    log ratios and their sd on `df` degrees of freedom; without spread, which side the mean is on decides."""
    from scipy.special import stdtr

    null = math.log(margin)
    if df < 1 or sd == 0.0:
        return 0.0 if (mean < null if head_is == "lower" else mean > null) else 1.0
    t = (mean - null) / (sd / math.sqrt(n))
    return float(stdtr(df, t if head_is == "lower" else -t))

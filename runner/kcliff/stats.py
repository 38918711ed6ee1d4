"""The statistics behind the gate's verdicts, over plain lists of per-run values.

Two questions, two tools (the reasoning is in docs/gate.md):
  is head different from base beyond run-to-run noise?   one-sided Mann-Whitney U (scipy)
  by how much, and how sure are we of the size?            ratio of medians with a seeded
                                                           percentile-bootstrap interval (scipy)
Mann-Whitney needs no assumption about the noise's shape, and under A/A (same config both sides,
interleaved) its false-alarm rate is what alpha says it is, even for 3-20 runs. The ratio of
medians is what the results files report (ratios to the reference are ratios of medians), so the
interval is in the unit people read.
"""

from __future__ import annotations

import math
from typing import Sequence

import numpy as np


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
        return np.median(h, axis=axis) / np.median(b, axis=axis)

    from scipy import stats as sps  # imported here: scipy.stats takes seconds to import, lint needs none of it

    result = sps.bootstrap((np.asarray(head, dtype=float), np.asarray(base, dtype=float)), ratio, vectorized=True,
                           n_resamples=n_boot, confidence_level=confidence, method="percentile",
                           rng=np.random.default_rng(seed))
    low, high = result.confidence_interval
    return float(low), float(high)


def shift_p_value(base: Sequence[float], head: Sequence[float], head_is: str) -> float:
    """One-sided Mann-Whitney U p-value for 'head tends to be lower' (head_is="lower") or "higher"
    than base. Exact for small samples without ties, normal approximation otherwise (scipy's auto)."""
    from scipy import stats as sps

    alternative = {"lower": "less", "higher": "greater"}[head_is]
    return float(sps.mannwhitneyu(head, base, alternative=alternative, method="auto").pvalue)

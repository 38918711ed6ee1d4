"""The model's predicted best configuration, with and without a p99 bound, and what was measured beside it.

The best configuration is each setting's best modelled throughput level (main effects add on the
log scale, so choosing each alone is the joint optimum). Under a p99 bound the choice is no longer
separable: every combination of the design's levels (186,624 on the committed space) is scored at
once with numpy and the fastest one whose predicted p99 is within the bound wins. Both are
predictions for combinations the run never measured: `settings` is a scenario's settings per scope,
ready to be measured.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from kcliff.pairwise.design import CENSORED, MB, P99_MS, SCENARIO, Design, split
from kcliff.results.metrics import P99, THROUGHPUT
from kcliff.results.model import ResultsDoc


@dataclass(frozen=True)
class MetricFit:
    """One metric's fit (factors.fit_metric): each factor's log contribution per level (intercept apart);
    a prediction is made from these."""

    intercept: float
    contributions: dict[str, dict[str, float]]
    slope: dict[str, float]  # a numeric factor's trend: log change per log level (the power b)
    se: dict[str, float]  # its standard error (approximate; NaN when the fit has no noise left to measure)
    sigma: float
    rows: int
    bounded: int


@dataclass(frozen=True)
class Prediction:
    levels: dict[str, str]  # factor ("scope name") -> level label
    settings: dict[str, dict[str, Any]]  # {"broker": {...}, "topic": {...}, "producer": {...}}
    mb_per_sec: float
    p99_ms: float | None
    p99_bound_ms: float | None = None

    def describe(self) -> str:
        return " ".join(f"{split(f)[1]}={level}" for f, level in self.levels.items())


def _settings(built: Design, levels: dict[str, str]) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {"broker": {}, "topic": {}, "producer": {}}
    for factor, level in levels.items():
        scope, name = split(factor)
        out[scope][name] = built.values[factor][level]
    return out


def _predicted(fit: MetricFit, levels: dict[str, str]) -> float:
    return math.exp(fit.intercept + sum(fit.contributions[f][v] for f, v in levels.items()))


def _make(built: Design, fits: dict[str, MetricFit], levels: dict[str, str], bound: float | None) -> Prediction:
    p99 = _predicted(fits[P99.name], levels) if P99.name in fits else None
    return Prediction(levels, _settings(built, levels), _predicted(fits[THROUGHPUT.name], levels), p99, bound)


def _bounded_levels(fits: dict[str, MetricFit], bound: float) -> dict[str, str] | None:
    """The fastest combination of levels whose predicted p99 is within `bound`, by full enumeration."""
    mb, p99 = fits[THROUGHPUT.name], fits[P99.name]
    factors = list(mb.contributions)
    labels = [list(mb.contributions[f]) for f in factors]
    shape = [len(ls) for ls in labels]
    log_mb = np.zeros(shape)
    log_p99 = np.full(shape, p99.intercept)
    for axis, (f, ls) in enumerate(zip(factors, labels)):
        view = [1] * len(shape)
        view[axis] = len(ls)
        log_mb = log_mb + np.reshape([mb.contributions[f][v] for v in ls], view)
        log_p99 = log_p99 + np.reshape([p99.contributions[f][v] for v in ls], view)
    allowed = np.where(log_p99 <= math.log(bound), log_mb, -np.inf)
    if not np.isfinite(allowed).any():
        return None
    index = np.unravel_index(int(np.argmax(allowed)), shape)
    return {f: ls[i] for f, ls, i in zip(factors, labels, index)}


def predict(built: Design, fits: dict[str, MetricFit], bound: float | None
            ) -> tuple[Prediction, Prediction | None]:
    """(the best configuration, the best one within the p99 bound or None when none is predicted to be)."""
    mb = fits[THROUGHPUT.name]
    best = {f: max(own, key=lambda v: own[v]) for f, own in mb.contributions.items()}
    chosen = _bounded_levels(fits, bound) if bound and P99.name in fits else None
    return _make(built, fits, best, bound), (_make(built, fits, chosen, bound) if chosen is not None else None)


def title(bound_ms: float | None) -> str:
    """How a prediction is named on the page: the best, or the best within a p99 bound."""
    return f"best with p99 <= {bound_ms:,.0f} ms" if bound_ms else "best throughput"


def prediction_table(best: Prediction | None, bounded: Prediction | None) -> pd.DataFrame:
    """The predictions as rows for the page: which, the levels, predicted MB/s and p99."""
    rows = [{"prediction": which, "predicted MB/s": p.mb_per_sec, "predicted p99 ms": p.p99_ms, "levels": p.describe()}
            for which, p in ((title(None), best), (title(bounded.p99_bound_ms) if bounded else "", bounded))
            if p is not None]
    return pd.DataFrame(rows)


def best_measured(built: Design, bound: float | None) -> pd.DataFrame:
    """The fastest finished design row, and the fastest within the p99 bound."""
    finished = built.table[~built.table[CENSORED]].sort_values(MB, ascending=False)
    picks = [("fastest measured", finished.head(1))]
    if bound:
        picks.append((f"fastest measured with p99 <= {bound:,.0f} ms", finished[finished[P99_MS] <= bound].head(1)))
    rows = [{"which": which, "scenario": r[SCENARIO], "MB/s": r[MB], "p99 ms": r[P99_MS],
             "levels": " ".join(f"{split(f)[1]}={r[f]}" for f in built.factors)}
            for which, found in picks for r in found.to_dict("records")]
    return pd.DataFrame(rows)


def beside_table(built: Design) -> pd.DataFrame:
    """The measured scenarios that are not design rows (reference, canaries): shown, never fitted."""
    return pd.DataFrame([{"scenario": e.id, "kind": "canary" if e.is_canary else "other", "status": str(e.status),
                          "MB/s": e.median(THROUGHPUT), "p99 ms": e.median(P99)} for e in built.beside],
                        columns=["scenario", "kind", "status", "MB/s", "p99 ms"])


def reference_p99(doc: ResultsDoc) -> float | None:
    ref = doc.reference()
    return ref.median(P99) if ref is not None else None


EXTRAPOLATION = 1.5  # a prediction this many times the fastest measured row is called an extrapolation


def warnings(built: Design, fits: dict[str, MetricFit], best: Prediction) -> list[str]:
    """What a reader must know before acting on the prediction."""
    fastest = float(built.table.loc[~built.table[CENSORED], MB].max())
    found = ["Predictions are for combinations this run never measured: the model assumes no interactions "
             "(pairwise covers pairs, not triples). Measure the predicted configuration before adopting it."]
    if best.mb_per_sec > EXTRAPOLATION * fastest:
        found.append(f"The predicted best ({best.mb_per_sec:,.0f} MB/s) is {best.mb_per_sec / fastest:,.0f}x the fastest "
                     f"measured design row ({fastest:.3g} MB/s): the model multiplies its effects with no ceiling, "
                     "while the rig's own limits (cores, disk, network) are interactions it cannot see. Read it as "
                     "which levels to try together, not as a figure.")
    if built.censored:
        found.append(f"{built.censored} design row(s) were stopped early as cliffs: their throughput enters the "
                     "fit as an upper bound and their p99 as a lower bound (censored fit), and the averages "
                     "count them at their throughput bound.")
    if P99.name not in fits:
        found.append("Too few design rows with a p99 to fit it: no p99 model and no bounded prediction.")
    return found

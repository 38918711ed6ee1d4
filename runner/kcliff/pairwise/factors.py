"""Factor analysis of a pairwise run's design rows: which settings move throughput and p99.

Only the design rows are analysed (pairwise/design.py); the reference and the canaries are shown beside,
never averaged or fitted. The model is what 18 rows can identify: main effects only, for log
throughput and log p99, each numeric setting as one trend in its log level (throughput ~ level^b:
1 parameter, fitting the study's flush tiers 1 / 1000 / 10000 well) and each other setting
(compression) one effect per level: 13 parameters on the committed space. Curvature (a best middle
level) and every interaction are aliased with these effects and the noise: the design cannot tell
them apart, and the page says so. Cliff rows enter as bounds through a censored (Tobit) fit
(pairwise/censored.py). Beside the model: the study's own tables (pairwise/study.py) and the predicted best
configuration (pairwise/prediction.py).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from itertools import combinations
from typing import Any

import numpy as np
import pandas as pd

from kcliff.pairwise import censored, design, prediction, study
from kcliff.pairwise.censored import Matrix, Vector
from kcliff.pairwise.design import CENSORED, MB, P99_MS, Design, sort_levels, split
from kcliff.pairwise.prediction import MetricFit
from kcliff.results.metrics import P99
from kcliff.results.model import ResultsDoc

CONFOUNDED_R = 0.4  # design columns correlated at least this much are reported as partly confounded
Encoding = dict[str, list[float]]  # level label -> that level's covariates for one factor


@dataclass
class FactorAnalysis:
    rows: int
    censored: int = 0
    levels: pd.DataFrame = field(default_factory=pd.DataFrame)
    ranking: pd.DataFrame = field(default_factory=pd.DataFrame)
    tier_factor: str = ""
    tiers: pd.DataFrame = field(default_factory=pd.DataFrame)
    pairs: pd.DataFrame = field(default_factory=pd.DataFrame)
    beside: pd.DataFrame = field(default_factory=pd.DataFrame)
    fits: dict[str, MetricFit] = field(default_factory=dict)
    best: prediction.Prediction | None = None
    bounded: prediction.Prediction | None = None
    measured: pd.DataFrame = field(default_factory=pd.DataFrame)
    model_note: str = ""
    warnings: list[str] = field(default_factory=list)

    @property
    def empty(self) -> bool:
        return self.levels.empty

    @property
    def top(self) -> dict[str, Any]:
        """The ranking's first row: the setting to get right first."""
        return {str(k): v for k, v in self.ranking.iloc[0].items()} if not self.ranking.empty else {}

    @property
    def predictions(self) -> pd.DataFrame:
        return prediction.prediction_table(self.best, self.bounded)


def _numeric(levels: list[str]) -> bool:
    try:
        return all(math.isfinite(float(v)) for v in levels)
    except ValueError:
        return False


def encode(levels: list[str]) -> Encoding:
    """A numeric factor: one covariate, log(level) (log(level + 1) when a level is 0); any other:
    one indicator per level after the first."""
    ordered = sort_levels(levels)
    if _numeric(ordered) and len(ordered) > 2:
        shift = 1.0 if min(float(v) for v in ordered) <= 0 else 0.0
        return {v: [math.log(float(v) + shift)] for v in ordered}
    return {v: [float(i == j) for j in range(1, len(ordered))] for i, v in enumerate(ordered)}


def _matrix(table: pd.DataFrame, encodings: dict[str, Encoding]) -> Matrix:
    rows = [[1.0] + [x for f, enc in encodings.items() for x in enc[row[f]]] for row in table.to_dict("records")]
    return np.asarray(rows, dtype=np.float64)


def fit_metric(table: pd.DataFrame, encodings: dict[str, Encoding], column: str, bound_kind: int) -> MetricFit:
    """Censored maximum-likelihood fit of log(column); cliff rows are bounds of kind `bound_kind`."""
    usable = table[table[column].notna() & (table[column] > 0)]
    x = _matrix(usable, encodings)
    y = np.log(usable[column].to_numpy(dtype=np.float64))
    kind = np.where(usable[CENSORED].to_numpy(dtype=bool), bound_kind, censored.EXACT).astype(np.float64)
    done = censored.fit(x, y, kind)
    contributions, slope, se, at = {}, {}, {}, 1
    for factor, enc in encodings.items():
        width = len(next(iter(enc.values())))
        coef: Vector = done.coef[at:at + width]
        contributions[factor] = {level: float(np.dot(cov, coef)) for level, cov in enc.items()}
        if width == 1:
            slope[factor], se[factor] = float(coef[0]), float(done.se[at])
        at += width
    return MetricFit(float(done.coef[0]), contributions, slope, se, done.sigma, len(usable), done.bounded)


def parameters(encodings: dict[str, Encoding]) -> int:
    return 1 + sum(len(next(iter(enc.values()))) for enc in encodings.values())


def _model_levels(averages: pd.DataFrame, fits: dict[str, MetricFit]) -> pd.DataFrame:
    """The averages with each level's modelled throughput and p99 relative to the setting's best level."""
    levels = averages.copy()
    mb, p99 = [], []
    for row in averages.to_dict("records"):
        factor = f"{row['scope']} {row['setting']}"
        own = fits["throughput"].contributions[factor]
        mb.append(math.exp(own[row["level"]] - max(own.values())))
        own_p99 = fits[P99.name].contributions[factor] if P99.name in fits else {}
        p99.append(math.exp(own_p99[row["level"]] - min(own_p99.values())) if own_p99 else None)
    levels["model MB/s x best"] = mb
    levels["model p99 x best"] = p99
    return levels


def _ranking(levels: pd.DataFrame, fits: dict[str, MetricFit]) -> pd.DataFrame:
    """The model's ranking (range of a setting's modelled level effects, widest first) beside the
    study's ranking (range of its level means)."""
    study_rank = study.range_ranking(levels).set_index("setting")
    rows = []
    for (setting, scope), group in levels.groupby(["setting", "scope"], sort=False):
        best = group.loc[group["model MB/s x best"].idxmax()]["level"]
        p99_best = group.loc[group["model p99 x best"].idxmin()]["level"] if P99.name in fits else None
        mine = study_rank.loc[str(setting)]
        factor = f"{scope} {setting}"
        rows.append({"setting": setting, "scope": scope, "model range x": 1 / group["model MB/s x best"].min(),
                     "slope": fits["throughput"].slope.get(factor), "slope se": fits["throughput"].se.get(factor),
                     "model best": best, "p99 range x": group["model p99 x best"].max(), "p99 best": p99_best,
                     "study rank": int(mine["rank"]), "study range x": mine["range x"],
                     "study best": mine["best level"], "best agrees": "yes" if best == mine["best level"] else "no"})
    ranking = pd.DataFrame(rows).sort_values("model range x", ascending=False, ignore_index=True)
    ranking.insert(0, "model rank", range(1, len(ranking) + 1))
    return ranking


def _confounded(table: pd.DataFrame, encodings: dict[str, Encoding]) -> list[str]:
    """Pairs of numeric settings whose design columns are correlated: partly confounded."""
    trend = [f for f, enc in encodings.items() if len(next(iter(enc.values()))) == 1]
    out = []
    for a, b in combinations(trend, 2):
        xa = [encodings[a][v][0] for v in table[a]]
        xb = [encodings[b][v][0] for v in table[b]]
        r = float(np.corrcoef(xa, xb)[0, 1])
        if abs(r) >= CONFOUNDED_R:
            out.append(f"{split(a)[1]} with {split(b)[1]} (r = {r:+.2f})")
    return out


def _model_note(rows: int, params: int, confounded: list[str]) -> str:
    note = (f"Main effects only, {params} parameters per metric on {rows} design rows: each numeric setting is "
            "one trend in its log level, any other setting one effect per level. Interactions between settings "
            "and any curvature of a setting (a middle level that is best) are aliased with these effects and the "
            "noise: this design cannot separate them, so a setting whose best level is in the middle shows it "
            "only in the averages.")
    if confounded:
        note += " Partly confounded in this design: " + "; ".join(confounded) + "."
    return note


def _fits(built: Design, encodings: dict[str, Encoding]) -> dict[str, MetricFit]:
    fits = {"throughput": fit_metric(built.table, encodings, MB, censored.AT_MOST)}
    if built.table[P99_MS].notna().sum() > parameters(encodings) + 1:
        fits[P99.name] = fit_metric(built.table, encodings, P99_MS, censored.AT_LEAST)
    return fits


def analyse(doc: ResultsDoc, p99_bound_ms: float | None = None) -> FactorAnalysis:
    """The design rows' study tables, the censored main-effects model for both metrics, its ranking
    and the predicted best configuration (under `p99_bound_ms`, default the reference's p99)."""
    built = design.build(doc)
    beside = prediction.beside_table(built)
    if not built.factors or len(built.table) < 3:
        return FactorAnalysis(len(built.table), beside=beside, warnings=[
            "No factor analysis: this run has fewer than 3 measured pairwise design rows or they vary no setting."])
    encodings = {f: encode(built.table[f].unique().tolist()) for f in built.factors}
    averages = study.level_averages(built)
    params = parameters(encodings)
    fa = FactorAnalysis(len(built.table), built.censored, levels=averages, beside=beside,
                        pairs=study.contrasting_pairs(built))
    if len(built.table) < params + 2:
        fa.ranking = study.range_ranking(averages)
        fa.tier_factor = f"{fa.ranking.iloc[0]['scope']} {fa.ranking.iloc[0]['setting']}"
        fa.tiers = study.tiers(built, fa.tier_factor)
        fa.warnings.append(f"No model: {len(built.table)} design rows cannot identify {params} main-effect "
                           "parameters and a noise term; only the study's tables are shown.")
        return fa
    fa.fits = _fits(built, encodings)
    fa.levels = _model_levels(averages, fa.fits)
    fa.ranking = _ranking(fa.levels, fa.fits)
    fa.tier_factor = f"{fa.ranking.iloc[0]['scope']} {fa.ranking.iloc[0]['setting']}"
    fa.tiers = study.tiers(built, fa.tier_factor)
    fa.model_note = _model_note(len(built.table), params, _confounded(built.table, encodings))
    bound = p99_bound_ms if p99_bound_ms is not None else prediction.reference_p99(doc)
    fa.best, fa.bounded = prediction.predict(built, fa.fits, bound)
    fa.measured = prediction.best_measured(built, bound)
    fa.warnings += prediction.warnings(built, fa.fits, fa.best)
    return fa

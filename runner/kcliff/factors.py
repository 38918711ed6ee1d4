"""Factor analysis of one (pairwise) run: which settings move throughput, and which to change first.

Two views side by side. The per-level averages are what the pairwise study reported: the mean of the
scenario medians at each level of a setting. They are confounded: in a pairwise design the other
settings' levels are not balanced within a level. The main effects come from a least-squares fit of
log throughput on every varied setting at once (one-hot levels, the default level as baseline), so
each effect is "this level vs the default, the other settings held fixed", as a throughput
multiplier. numpy's lstsq does the fit: the model is small and we only need coefficients and their
standard errors, so statsmodels would add a dependency without adding an answer.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from . import settings
from .model import THROUGHPUT, ResultsDoc

WARNING = ("Pairwise designs cover every pair of levels, not every combination, so settings are not "
           "independent of each other: per-level averages mix in the other settings' levels (confounded), "
           "and the regression assumes effects multiply with no interactions (3-way interactions are untested). "
           "Both are directions to test: measure a candidate configuration before adopting it.")
_LONG_MAX_LABEL = "Long.MAX"


@dataclass
class FactorAnalysis:
    scenarios: int
    levels: pd.DataFrame   # setting, scope, level, scenarios, average MB/s, vs default avg, regression effect, se
    ranking: pd.DataFrame  # what to change first
    warnings: list[str] = field(default_factory=list)

    @property
    def empty(self) -> bool:
        return self.levels.empty


def _label(value: Any) -> str:
    if value == settings.LONG_MAX:
        return _LONG_MAX_LABEL
    if isinstance(value, bool):
        return str(value).lower()
    return str(value)


def _settings_table(doc: ResultsDoc) -> pd.DataFrame:
    """One row per measured scenario: every catalogue setting's level (defaults filled in) and MB/s."""
    rows = []
    for sc in doc.scenarios:
        mb = sc.median(THROUGHPUT)  # only an entry whose runs count has one
        applied = sc.applied
        if mb is None or mb <= 0:
            continue
        row: dict[str, Any] = {"_scenario": sc.id, "_mb": mb}
        for scope in settings.SCOPES:
            levels = {**settings.defaults(scope), **(applied.get(scope) or {})}
            for name, value in levels.items():
                if settings.lookup(scope, name) is not None:
                    row[f"{scope} {name}"] = _label(value)
        rows.append(row)
    return pd.DataFrame(rows)


def _sort_levels(levels: list[str]) -> list[str]:
    def key(level: str) -> tuple[int, float, str]:
        if level == _LONG_MAX_LABEL:
            return (0, float("inf"), level)
        try:
            return (0, float(level), level)
        except ValueError:
            return (1, 0.0, level)
    return sorted(levels, key=key)


Matrix = np.ndarray[tuple[int, ...], np.dtype[np.float64]]
Level = tuple[str, str]  # (factor, level)


def _design(table: pd.DataFrame, factors: list[str], baselines: dict[str, str]) -> tuple[Matrix, list[Level]]:
    columns: list[Matrix] = [np.ones(len(table))]
    names: list[tuple[str, str]] = []
    for factor in factors:
        for level in _sort_levels(table[factor].unique().tolist()):
            if level != baselines[factor]:
                columns.append(np.asarray(table[factor] == level, dtype=np.float64))
                names.append((factor, level))
    return np.column_stack(columns), names


def _fit(table: pd.DataFrame, factors: list[str], baselines: dict[str, str]
         ) -> tuple[dict[Level, float], dict[Level, float], int, int, int]:
    """Least squares on log MB/s: effect and standard error per non-baseline level."""
    x, names = _design(table, factors, baselines)
    y = np.log(table["_mb"].to_numpy())
    coef, _, rank, _ = np.linalg.lstsq(x, y, rcond=None)
    dof = len(y) - rank
    se = np.full(len(coef), np.nan)
    if dof > 0 and rank == x.shape[1]:
        sigma2 = float(np.sum((y - x @ coef) ** 2)) / dof
        se = np.sqrt(np.diag(sigma2 * np.linalg.inv(x.T @ x)))
    effects = {name: float(c) for name, c in zip(names, coef[1:])}
    errors = {name: float(s) for name, s in zip(names, se[1:])}
    return effects, errors, int(rank), x.shape[1], int(dof)


def analyse(doc: ResultsDoc) -> FactorAnalysis:
    """Per-level averages, regression main effects and a ranking for the settings a run varied."""
    table = _settings_table(doc)
    factors = [c for c in table.columns if not c.startswith("_") and table[c].nunique() > 1] if not table.empty else []
    if len(factors) < 1 or len(table) < 3:
        return FactorAnalysis(len(table), pd.DataFrame(), pd.DataFrame(),
                              ["No factor analysis: this run measured fewer than 3 scenarios or varied no setting."])
    defaults = {f: _label(settings.require(*f.split(" ", 1)).default) for f in factors}
    baselines = {f: defaults[f] if defaults[f] in set(table[f]) else table[f].mode().iloc[0] for f in factors}
    effects, errors, rank, params, dof = _fit(table, factors, baselines)
    warnings = [WARNING]
    if rank < params:
        warnings.append(f"The regression cannot separate every effect (rank {rank} of {params} parameters): "
                        "some settings only ever changed together in this run.")
    elif dof == 0:
        warnings.append("The regression has as many parameters as scenarios: it fits exactly, with no "
                        "measure of noise (no standard errors).")
    rows = []
    for factor in factors:
        base_avg = table.loc[table[factor] == baselines[factor], "_mb"].mean()
        scope, name = factor.split(" ", 1)
        for level in _sort_levels(table[factor].unique().tolist()):
            sel = table.loc[table[factor] == level, "_mb"]
            coef = 0.0 if level == baselines[factor] else effects[(factor, level)]
            rows.append({
                "setting": name, "scope": scope,
                "level": level + (" (baseline)" if level == baselines[factor] else ""),
                "scenarios": len(sel), "average MB/s": sel.mean(), "average vs baseline": sel.mean() / base_avg,
                "regression effect": float(np.exp(coef)),
                "std. error (log)": None if level == baselines[factor] else errors.get((factor, level)),
            })
    levels = pd.DataFrame(rows)
    return FactorAnalysis(len(table), levels, _ranking(levels), warnings)


def _ranking(levels: pd.DataFrame) -> pd.DataFrame:
    """What to change first: biggest estimated gain over the baseline (default) level first; settings
    already at their best level follow, ordered by how much a wrong level would cost."""
    rows = []
    for (setting, scope), group in levels.groupby(["setting", "scope"], sort=False):
        best = group.loc[group["regression effect"].idxmax()]
        worst = group.loc[group["regression effect"].idxmin()]
        avg_best = group.loc[group["average MB/s"].idxmax(), "level"]
        rows.append({
            "setting": setting, "scope": scope,
            "set it to": "keep the baseline" if best["level"].endswith("(baseline)") else best["level"],
            "gain vs baseline": best["regression effect"],
            "avoid": worst["level"].replace(" (baseline)", ""),
            "best / worst": best["regression effect"] / worst["regression effect"],
            "averages agree": "yes" if avg_best == best["level"] else "no",
        })
    ranking = pd.DataFrame(rows).sort_values(["gain vs baseline", "best / worst"], ascending=False, ignore_index=True)
    ranking.index = ranking.index + 1
    return ranking

"""The published pairwise study's own tables, computed on a run's design rows.

The study read its 28 rows four ways, kept here so a run can be set beside it: the mean of the rows
at each level of a setting (with their spread), settings ranked by how far apart their best and
worst level means are, the rows grouped into tiers by the top setting's level, and pairs of rows
that differ in few settings but far in throughput (its reasoning about interactions). The means
are confounded (a level's rows carry whatever other levels the design gave them); the model in
factors.py is the adjustment. A cliff row counts at its throughput bound (pairwise/design.py).
"""

from __future__ import annotations

from itertools import combinations

import pandas as pd

from kcliff.pairwise.design import CENSORED, MB, P99_MS, SCENARIO, Design, sort_levels, split

MAX_DIFFERENCES = 4
MIN_RATIO = 2.0


def level_averages(design: Design) -> pd.DataFrame:
    """Per setting and level: rows, cliff rows, mean and min-max MB/s, mean and max p99 of finished rows."""
    rows = []
    table = design.table
    for factor in design.factors:
        scope, name = split(factor)
        for level in sort_levels(table[factor].unique().tolist()):
            sel = table[table[factor] == level]
            finished = sel[~sel[CENSORED]]
            rows.append({
                "setting": name, "scope": scope, "level": level, "scenarios": len(sel),
                "cliffs": int(sel[CENSORED].sum()), "average MB/s": sel[MB].mean(),
                "min MB/s": sel[MB].min(), "max MB/s": sel[MB].max(),
                "average p99 ms": finished[P99_MS].mean(), "max p99 ms": finished[P99_MS].max(),
            })
    return pd.DataFrame(rows)


def range_ranking(averages: pd.DataFrame) -> pd.DataFrame:
    """Settings by best level mean / worst level mean, the widest first (the study's ranking)."""
    rows = []
    for (setting, scope), group in averages.groupby(["setting", "scope"], sort=False):
        best = group.loc[group["average MB/s"].idxmax()]
        worst = group.loc[group["average MB/s"].idxmin()]
        rows.append({"setting": setting, "scope": scope, "best level": best["level"],
                     "worst level": worst["level"], "range x": best["average MB/s"] / worst["average MB/s"]})
    ranking = pd.DataFrame(rows).sort_values("range x", ascending=False, ignore_index=True)
    ranking.insert(0, "rank", range(1, len(ranking) + 1))
    return ranking


def tiers(design: Design, factor: str) -> pd.DataFrame:
    """The rows grouped by `factor`'s level, best tier first: each tier's throughput and p99 range."""
    rows = []
    for level in sort_levels(design.table[factor].unique().tolist()):
        sel = design.table[design.table[factor] == level]
        finished = sel[~sel[CENSORED]]
        rows.append({"level": level, "scenarios": len(sel), "cliffs": int(sel[CENSORED].sum()),
                     "min MB/s": sel[MB].min(), "average MB/s": sel[MB].mean(), "max MB/s": sel[MB].max(),
                     "min p99 ms": finished[P99_MS].min(), "max p99 ms": finished[P99_MS].max(),
                     "rows": ", ".join(sel.sort_values(MB, ascending=False)[SCENARIO])})
    return pd.DataFrame(rows).sort_values("average MB/s", ascending=False, ignore_index=True)


def contrasting_pairs(design: Design, max_differences: int = MAX_DIFFERENCES,
                      min_ratio: float = MIN_RATIO) -> pd.DataFrame:
    """Pairs of rows that differ in at most `max_differences` settings but by at least `min_ratio` in
    throughput, fewest differences first: what changed between them is where an effect (or an
    interaction) sits. A cliff row's throughput is a bound, so its ratio is a lower bound."""
    records = design.table.to_dict("records")
    found = []
    for a, b in combinations(records, 2):
        differ = [f for f in design.factors if a[f] != b[f]]
        fast, slow = (a, b) if a[MB] >= b[MB] else (b, a)
        ratio = fast[MB] / slow[MB]
        if len(differ) <= max_differences and ratio >= min_ratio:
            found.append({"faster": fast[SCENARIO], "slower": slow[SCENARIO], "differences": len(differ),
                          "settings that differ (faster / slower)": "; ".join(
                              f"{split(f)[1]} {fast[f]} / {slow[f]}" for f in differ),
                          "faster MB/s": fast[MB], "slower MB/s": slow[MB],
                          "ratio x": ratio, "slower is a cliff": bool(slow[CENSORED])})
    columns = ["faster", "slower", "differences", "settings that differ (faster / slower)", "faster MB/s",
               "slower MB/s", "ratio x", "slower is a cliff"]
    pairs = pd.DataFrame(found, columns=columns)
    return pairs.sort_values(["differences", "ratio x"], ascending=[True, False], ignore_index=True)

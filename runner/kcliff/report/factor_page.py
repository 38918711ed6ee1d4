"""The factor page's data: the analysis, the tiers chart and the confirmation of its prediction."""

from __future__ import annotations

from typing import Any

import pandas as pd

from kcliff.pairwise import confirm, factors, prediction
from kcliff.pairwise.design import split
from kcliff.report.charts import Bar, bar_chart
from kcliff.results.metrics import THROUGHPUT
from kcliff.results.model import ResultsDoc, Status

# one colour per tier of the top setting, best tier first (colour-blind safe, Okabe-Ito)
TIER_COLOURS = ("#009e73", "#56b4e9", "#e69f00", "#d55e00", "#cc79a7", "#999999")
REFERENCE_COLOUR = "#bbbbbb"


def tier_bars(doc: ResultsDoc, fa: factors.FactorAnalysis) -> list[Bar]:
    """The design rows grouped by the top setting's level (best tier first, fastest first inside),
    the reference on top for scale; a cliff row's bar is its throughput bound."""
    _, name = split(fa.tier_factor)
    bars = []
    reference = doc.reference()
    ref_mb = reference.median(THROUGHPUT) if reference is not None else None
    if ref_mb is not None:
        bars.append(Bar("reference", ref_mb, REFERENCE_COLOUR, f"{ref_mb:.3g} MB/s", "the reference: Kafka's defaults",
                        emphasis=True))
    for i, tier in enumerate(fa.tiers.to_dict("records")):
        colour = TIER_COLOURS[i % len(TIER_COLOURS)]
        for scenario_id in str(tier["rows"]).split(", "):
            entry = doc.entry(scenario_id)
            mb = entry.median(THROUGHPUT) if entry is not None else None
            if entry is None or mb is None:
                continue
            cliff = entry.status is Status.CLIFF
            text = f"{'<= ' if cliff else ''}{mb:.3g} MB/s" + (" cliff" if cliff else "")
            tip = f"{scenario_id}: {name}={tier['level']} | {text}; tier average {tier['average MB/s']:.3g} MB/s"
            bars.append(Bar(f"{tier['level']}  {scenario_id}", mb, colour, text, tip))
    return bars


def confirmation_table(doc: ResultsDoc) -> pd.DataFrame:
    """One row per confirmed prediction: predicted, measured, against the fastest row and the reference."""
    record = doc.confirmation
    rows = []
    for c in confirm.check(doc):
        d = c.vs_fastest
        bound = record.p99_bound_ms if record and c.config.kind == "p99-bounded" else None
        rows.append({"prediction": prediction.title(bound),
                     "predicted MB/s": c.config.predicted_mb_per_sec, "measured MB/s": c.mb_per_sec,
                     "fastest row": record.fastest_row if record else "", "x fastest row": d.ratio if d else None,
                     "interval": f"{d.low:.2f}-{d.high:.2f}" if d and d.low is not None and d.high is not None else "",
                     "x reference": c.vs_reference, "measured p99 ms": c.p99_ms,
                     "outcome": str(c.outcome), "held": "yes" if c.held else "no"})
    return pd.DataFrame(rows)


def context(doc: ResultsDoc, p99_bound_ms: float | None) -> dict[str, Any]:
    """What templates/factors.html needs."""
    fa = factors.analyse(doc, p99_bound_ms)
    bars = tier_bars(doc, fa) if not fa.tiers.empty else []
    title = f"Design rows by {fa.tier_factor} (bars labelled with its level): one colour per level, fastest first"
    return {"factors": fa,
            "factor_tiers_svg": bar_chart(bars, THROUGHPUT.unit, title) if bars else "",
            "confirmation": doc.confirmation,
            "confirmed": confirm.check(doc),
            "confirmation_table": confirmation_table(doc),
            "confirm_sentence": confirm.sentence}

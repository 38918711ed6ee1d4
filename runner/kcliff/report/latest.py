"""The latest run at a glance: cliff tiers by ratio to the reference, the canary verdicts, the table."""

from __future__ import annotations

from typing import Any

import pandas as pd

from kcliff.judge.tiers import tier_for
from kcliff.report.charts import Bar
from kcliff.results.metrics import CONSUMED, E2E_P99, P99, THROUGHPUT
from kcliff.results.model import Entry, ResultsDoc


def _ratio(value: float | None, ref: float | None) -> float | None:
    return value / ref if value is not None and ref else None


def _reference_mb(doc: ResultsDoc) -> float | None:
    reference = doc.reference()
    return reference.median(THROUGHPUT) if reference is not None else None


def _sorted_measured(doc: ResultsDoc) -> list[Entry]:
    measured = [sc for sc in doc.scenarios if sc.median(THROUGHPUT) is not None]
    return sorted(measured, key=lambda sc: sc.median(THROUGHPUT) or 0.0, reverse=True)


def tier_bars(doc: ResultsDoc) -> list[Bar]:
    """Measured scenarios, fastest first, coloured by tier; the reference drawn with an outline."""
    ref_mb = _reference_mb(doc)
    reference = doc.reference()
    bars = []
    for sc in _sorted_measured(doc):
        mb = sc.median(THROUGHPUT) or 0.0
        ratio = _ratio(mb, ref_mb)
        tier = tier_for(ratio)
        p99 = sc.median(P99)
        text = f"{mb:.3g} MB/s" + (f" · {ratio:.2f}x" if ratio is not None else "")
        tip = f"{sc.id}: {sc.description} | {mb:.3g} MB/s, tier {tier.name}" + \
              (f", p99 {p99:.4g} ms" if p99 is not None else "") + f", status {sc.status}"
        bars.append(Bar(sc.id, mb, tier.colour, text, tip, emphasis=sc is reference))
    return bars


def _settings_text(applied: Any) -> str:
    if not isinstance(applied, dict):
        return ""
    parts = []
    for scope in ("broker", "topic", "producer", "consumer"):
        for name, value in (applied.get(scope) or {}).items():
            if name not in ("acks", "replication.factor", "min.insync.replicas", "default.replication.factor"):
                parts.append(f"{name}={value}")
    return ", ".join(parts)


def scenario_table(doc: ResultsDoc) -> pd.DataFrame:
    """Every scenario of the run: measured ones by throughput, then the rest with their status."""
    ref_mb = _reference_mb(doc)
    measured = _sorted_measured(doc)
    rest = [sc for sc in doc.scenarios if all(sc is not m for m in measured)]
    reads = doc.has_read_side()
    rows = []
    for sc in measured + rest:
        mb = sc.median(THROUGHPUT)
        ratio = _ratio(mb, ref_mb)
        stats = (sc.summary or {}).get(THROUGHPUT.key)
        rows.append({
            "scenario": sc.id,
            "status": str(sc.status) + (f" ({sc.status_reason})" if sc.status_reason else ""),
            "MB/s": mb,
            "MB/s min-max": f"{stats.min:.3g}-{stats.max:.3g}" if mb is not None and stats is not None else "",
            "x reference": ratio,
            "tier": tier_for(ratio).name if mb is not None else "",
            "p99 ms": sc.median(P99),
            "settings": _settings_text(sc.applied),
        })
        if reads:
            rows[-1].update({"consumed MB/s": sc.median(CONSUMED), "e2e p99 ms": sc.median(E2E_P99)})
    return pd.DataFrame(rows)

"""The latest run at a glance: cliff tiers by ratio to the reference, latency at a fixed rate beside
them, the canary verdicts, the table."""

from __future__ import annotations

from typing import Any

import pandas as pd

from kcliff.judge.tiers import tier_for
from kcliff.report.charts import Bar
from kcliff.results.metrics import CONSUMED, E2E_P99, METRICS, P99, RATE_P99, THROUGHPUT, Metric, Workload
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


AT_RATE = tuple(m for m in METRICS.values() if m.workload is Workload.RATE)
NOT_HELD = "#b2182b"  # the deep-cliff colour: a scenario that could not keep up with the rate


def column(metric: Metric) -> str:
    """A metric's column in the scenario table, e.g. 'p99 at rate ms'."""
    return f"{metric.name.replace('_', ' ')} {metric.unit}"


def rate_text(sc: Entry) -> str:
    """The rate its latency at rate was measured at, and whether it was held."""
    targets = " and ".join(f"{t:,.0f}" for t in sc.rate_targets())
    return f"{targets} records/s" + (", not held" if sc.fell_behind(RATE_P99) else "") if targets else ""


def rate_bars(doc: ResultsDoc, metric: Metric = RATE_P99) -> list[Bar]:
    """Scenarios measured at a fixed rate by their latency there, lowest (best) first, as the throughput
    chart puts the best first; the reference outlined, one that fell behind its rate in red."""
    reference = doc.reference()
    found = [sc for sc in doc.scenarios if sc.median(metric) is not None]
    bars = []
    for sc in sorted(found, key=lambda sc: sc.median(metric) or 0.0):
        value = sc.median(metric) or 0.0
        behind = sc.fell_behind(metric)
        ref = reference.median(metric) if reference is not None else None
        text = f"{value:,.0f} {metric.unit}" + (f" · {value / ref:.2f}x" if ref else "") + (" · not held" if behind else "")
        tip = f"{sc.id}: {sc.description} | {metric.name} {value:,.4g} {metric.unit} at {rate_text(sc)}, status {sc.status}"
        bars.append(Bar(sc.id, value, NOT_HELD if behind else "#4393c3", text, tip, emphasis=sc is reference))
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
    """Every scenario of the run: measured ones by throughput, then the rest with their status; and, for a
    run that recorded it, the resource that bound most of each scenario's producer runs."""
    ref_mb = _reference_mb(doc)
    measured = _sorted_measured(doc)
    rest = [sc for sc in doc.scenarios if all(sc is not m for m in measured)]
    reads, at_rate = doc.has_read_side(), doc.measured(Workload.RATE)
    bounds = {sc.id: sc.bound() for sc in doc.scenarios}  # what bound each one's producer runs, where recorded
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
        if at_rate:
            rows[-1].update({column(m): sc.median(m) for m in AT_RATE} | {"rate": rate_text(sc)})
        if any(bounds.values()):
            bound = bounds[sc.id]
            rows[-1]["bound"] = bound.describe() if bound is not None else ""
    return pd.DataFrame(rows)

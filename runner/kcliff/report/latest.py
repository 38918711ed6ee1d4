"""The latest run at a glance: cliff tiers by ratio to the reference, the canary verdicts, the table."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pandas as pd

from ..history import MEASURED
from ..scenario import REFERENCE_ID
from .charts import Bar


@dataclass(frozen=True)
class Tier:
    name: str
    colour: str
    at_least: float  # lower bound of throughput / reference throughput
    meaning: str


# Bounds follow the study's picture: flush=10000 scenarios sat near or above the reference, flush=1000
# at about half, flush=1 at a few percent.
TIERS = (
    Tier("faster", "#1b7837", 1.1, "at least 1.1x the reference"),
    Tier("near reference", "#7fbf7b", 0.8, "0.8x to 1.1x"),
    Tier("slower", "#fdb863", 0.5, "0.5x to 0.8x"),
    Tier("cliff", "#e66101", 0.1, "0.1x to 0.5x"),
    Tier("deep cliff", "#b2182b", 0.0, "below 0.1x"),
)
NO_REFERENCE = Tier("no reference", "#9e9e9e", float("nan"), "the reference was not measured")


def tier_for(ratio: float | None) -> Tier:
    if ratio is None:
        return NO_REFERENCE
    return next(t for t in TIERS if ratio >= t.at_least)


def median(sc: dict[str, Any] | None, key: str) -> float | None:
    if not sc or sc.get("status") not in MEASURED:
        return None
    value = ((sc.get("summary") or {}).get(key) or {}).get("median")
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def reference(doc: dict[str, Any]) -> dict[str, Any] | None:
    return next((sc for sc in doc["scenarios"] if sc["id"] == REFERENCE_ID), None)


def _ratio(value: float | None, ref: float | None) -> float | None:
    return value / ref if value is not None and ref else None


@dataclass(frozen=True)
class CanaryVerdict:
    id: str
    stands_for: str
    metric: str
    max_ratio: float
    ratio: float | None
    verdict: str  # "cliff seen", "cliff NOT seen", "not measured"

    @property
    def passed(self) -> bool:
        return self.verdict == "cliff seen"


def canaries(doc: dict[str, Any]) -> list[CanaryVerdict]:
    """Does every canary still land beyond its max_ratio? Throughput: canary / reference below it;
    p99: reference / canary below it (the canary that much slower)."""
    ref = reference(doc)
    found = []
    for sc in doc["scenarios"]:
        cliff = sc.get("cliff")
        if not isinstance(cliff, dict):
            continue
        metric = cliff.get("metric", "throughput")
        max_ratio = float(cliff.get("max_ratio", 0.5))
        if metric == "p99":
            ratio = _ratio(median(ref, "p99_ms"), median(sc, "p99_ms"))
        else:
            ratio = _ratio(median(sc, "mb_per_sec"), median(ref, "mb_per_sec"))
        verdict = "not measured" if ratio is None else "cliff seen" if ratio < max_ratio else "cliff NOT seen"
        found.append(CanaryVerdict(sc["id"], str(cliff.get("stands_for", "")), metric, max_ratio, ratio, verdict))
    return found


def _sorted_measured(doc: dict[str, Any]) -> list[dict[str, Any]]:
    measured = [sc for sc in doc["scenarios"] if median(sc, "mb_per_sec") is not None]
    return sorted(measured, key=lambda sc: median(sc, "mb_per_sec") or 0.0, reverse=True)


def tier_bars(doc: dict[str, Any]) -> list[Bar]:
    """Measured scenarios, fastest first, coloured by tier; the reference drawn with an outline."""
    ref_mb = median(reference(doc), "mb_per_sec")
    bars = []
    for sc in _sorted_measured(doc):
        mb = median(sc, "mb_per_sec") or 0.0
        ratio = _ratio(mb, ref_mb)
        tier = tier_for(ratio)
        p99 = median(sc, "p99_ms")
        text = f"{mb:.3g} MB/s" + (f" · {ratio:.2f}x" if ratio is not None else "")
        tip = f"{sc['id']}: {sc.get('description', '')} | {mb:.3g} MB/s, tier {tier.name}" + \
              (f", p99 {p99:.4g} ms" if p99 is not None else "") + f", status {sc['status']}"
        bars.append(Bar(sc["id"], mb, tier.colour, text, tip, emphasis=sc["id"] == REFERENCE_ID))
    return bars


def _settings_text(applied: Any) -> str:
    if not isinstance(applied, dict):
        return ""
    parts = []
    for scope in ("broker", "topic", "producer"):
        for name, value in (applied.get(scope) or {}).items():
            if name not in ("acks", "replication.factor", "min.insync.replicas", "default.replication.factor"):
                parts.append(f"{name}={value}")
    return ", ".join(parts)


def scenario_table(doc: dict[str, Any]) -> pd.DataFrame:
    """Every scenario of the run: measured ones by throughput, then the rest with their status."""
    ref_mb = median(reference(doc), "mb_per_sec")
    measured = _sorted_measured(doc)
    rest = [sc for sc in doc["scenarios"] if sc not in measured]
    rows = []
    for sc in measured + rest:
        mb = median(sc, "mb_per_sec")
        ratio = _ratio(mb, ref_mb)
        stats = (sc.get("summary") or {}).get("mb_per_sec") or {}
        rows.append({
            "scenario": sc["id"],
            "status": sc.get("status", "") + (f" ({sc['status_reason']})" if sc.get("status_reason") else ""),
            "MB/s": mb,
            "MB/s min-max": f"{stats['min']:.3g}-{stats['max']:.3g}" if mb is not None else "",
            "x reference": ratio,
            "tier": tier_for(ratio).name if mb is not None else "",
            "p99 ms": median(sc, "p99_ms"),
            "settings": _settings_text(sc.get("applied")),
        })
    return pd.DataFrame(rows)

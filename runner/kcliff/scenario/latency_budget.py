"""A service's latency budget, as a config repo's kcliff.yaml gives it beside the producer's rate:

    producers:
      producers/orders.properties:
        rate: 2000 records/s
        latency: {p99: 50 ms}   # what the service tolerates at its rate, produced and read end to end

A budget at a percentile bounds every latency at rate at that percentile or below: a p99 of 50 ms
keeps the median under 50 ms too. The gate reads it in judge/budget.py."""

from __future__ import annotations

import re
from dataclasses import dataclass

PERCENTILES = (50, 99)  # the latencies kcliff measures at rate (results/metrics.py, RATE_*)
VALID_FORMS = "a mapping of p50 or p99 to a time, e.g. '{p99: 50 ms}' ('ms' or 's'; a bare number is ms)"
_TIME = re.compile(r"^\s*(?P<value>\d+(?:\.\d+)?|\.\d+)\s*(?P<unit>ms|s)?\s*$")


@dataclass(frozen=True)
class LatencyBudget:
    percentile: int  # one of PERCENTILES
    ms: float

    def __str__(self) -> str:
        return f"p{self.percentile} {self.ms:g} ms"


def parse_budget(raw: object) -> LatencyBudget:
    """The budget a kcliff.yaml `latency:` gives; ValueError naming the valid forms. One percentile: the
    strictest the service states is the one that binds, so two would only say one thing twice."""
    if not isinstance(raw, dict) or len(raw) != 1:
        raise ValueError(f"latency {raw!r}: expected {VALID_FORMS}")
    (key, value), = raw.items()
    found = re.fullmatch(r"p(\d+)", str(key))
    if found is None or int(found[1]) not in PERCENTILES:
        raise ValueError(f"latency: unknown percentile {key!r}: expected one of "
                         f"{', '.join(f'p{p}' for p in PERCENTILES)} (the latencies kcliff measures at rate)")
    return LatencyBudget(int(found[1]), _milliseconds(value, str(key)))


def _milliseconds(value: object, key: str) -> float:
    text = str(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else value
    found = _TIME.match(text) if isinstance(text, str) else None
    if found is None or float(found["value"]) <= 0:
        raise ValueError(f"latency: {key}: {value!r} is not a positive time: expected e.g. '50 ms' or '0.05 s'")
    return float(found["value"]) * (1000.0 if found["unit"] == "s" else 1.0)

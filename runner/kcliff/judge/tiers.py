"""Tiers: the bands a scenario's throughput falls in, as a ratio to the reference measured beside it.

This is the only meaning of "tier" in kcliff: the report colours scenarios by it. (The gate's cliff
test is verdict.cliff_ceiling, the throughput of the fastest canary that showed its cliff.)
"""

from __future__ import annotations

from dataclasses import dataclass


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
    """The tier of a throughput ratio to the reference; NO_REFERENCE without one."""
    if ratio is None:
        return NO_REFERENCE
    return next(t for t in TIERS if ratio >= t.at_least)

"""The design rows of a run: the pairwise suite's scenarios, apart from the reference and the canaries.

A factor analysis is only as good as its rows. The pairwise suite's rows were chosen together to
hold every pair of levels; the reference and the canaries were not (each is Kafka's defaults with at
most one change), so mixing them in gives levels the design never had (flush=Long.MAX made of the
reference and two canaries) and skews every average they touch. A row is a design row when its
scenario came from a generated pairwise suite file (`pairwise*.yaml`, any strength): the file is
what says "the covering search chose this row". Being neither the reference nor a canary is not
enough: a config check's base/head or a hand-written scenario would pass that test too.

Rows stopped early as cliffs (Status.CLIFF) are kept as bounds, not values: their throughput is at
most the rate their first seconds reported (the stop rule's "at most", never above threshold x the
reference), and their p99, never measured, is at least the reference's p99 / threshold (Little's law
with the producer's buffer full: a rate below threshold x the reference's keeps each record queued
at least 1/threshold times as long).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import PurePath
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pandas as pd

from kcliff.results.metrics import P99, THROUGHPUT
from kcliff.results.model import REFERENCE_ID, Entry, ResultsDoc, Status
from kcliff.scenario import settings

DESIGN_SUITE_PREFIX = "pairwise"
DEFAULT_CLIFF_THRESHOLD = 0.5
LONG_MAX_LABEL = "Long.MAX"
# DataFrame columns that are not factors
SCENARIO, MB, P99_MS, CENSORED = "_scenario", "_mb", "_p99", "_censored"


@dataclass
class Design:
    """One row per design scenario: every varied setting's level (as a label) and both metrics.

    MB is the median, or for a cliff row the upper bound; P99_MS is the median, or for a cliff row
    the lower bound; CENSORED marks the cliff rows. `values` maps each factor's labels back to the
    values a scenario would set; `beside` holds the measured entries that are not design rows."""

    table: pd.DataFrame
    factors: list[str]
    values: dict[str, dict[str, Any]]
    beside: list[Entry] = field(default_factory=list)

    @property
    def censored(self) -> int:
        return int(self.table[CENSORED].sum()) if not self.table.empty else 0


def is_design_source(source: str | None) -> bool:
    """A scenario file the covering search wrote (a generated pairwise*.yaml)."""
    return bool(source) and PurePath(str(source)).stem.startswith(DESIGN_SUITE_PREFIX)


def is_design_row(entry: Entry) -> bool:
    """A pairwise suite's scenario (by its source file), never the reference or a canary."""
    return entry.id != REFERENCE_ID and not entry.is_canary and is_design_source(entry.source)


def label(value: Any) -> str:
    if value == settings.LONG_MAX:
        return LONG_MAX_LABEL
    if isinstance(value, bool):
        return str(value).lower()
    return str(value)


def sort_levels(levels: list[str]) -> list[str]:
    """Numeric levels in numeric order (Long.MAX last of them), then the others alphabetically."""
    def key(level: str) -> tuple[int, float, str]:
        if level == LONG_MAX_LABEL:
            return (0, float("inf"), level)
        try:
            return (0, float(level), level)
        except ValueError:
            return (1, 0.0, level)
    return sorted(levels, key=key)


def cliff_bounds(doc: ResultsDoc) -> tuple[float, float]:
    """(highest throughput a cliff row can have had, lowest p99 it can have had), from this run's
    reference and cliff threshold; (inf, 0) when the run has no reference figures."""
    ref = doc.reference()
    threshold = float(doc.parameters.get("cliff_threshold") or DEFAULT_CLIFF_THRESHOLD)
    ref_mb = ref.median(THROUGHPUT) if ref is not None else None
    ref_p99 = ref.median(P99) if ref is not None else None
    return (threshold * ref_mb if ref_mb else math.inf, ref_p99 / threshold if ref_p99 else 0.0)


def _row(entry: Entry, mb_cap: float, p99_floor: float) -> dict[str, Any] | None:
    mb, p99 = entry.median(THROUGHPUT), entry.median(P99)
    if mb is None or mb <= 0:
        return None
    censored = entry.status is Status.CLIFF
    if censored:
        mb, p99 = min(mb, mb_cap), (p99_floor if p99_floor > 0 else None)
    return {SCENARIO: entry.id, MB: mb, P99_MS: p99, CENSORED: censored}


def build(doc: ResultsDoc) -> Design:
    """The design rows of `doc` with every catalogue setting's level (defaults filled in); only the
    settings the design rows vary are factors. Everything else measured goes to `beside`."""
    mb_cap, p99_floor = cliff_bounds(doc)
    rows: list[dict[str, Any]] = []
    values: dict[str, dict[str, Any]] = {}
    beside = []
    for entry in doc.scenarios:
        row = _row(entry, mb_cap, p99_floor) if is_design_row(entry) else None
        if row is None:
            if entry.counts:
                beside.append(entry)
            continue
        for scope in settings.SCOPES:
            for name, value in {**settings.defaults(scope), **(entry.applied.get(scope) or {})}.items():
                if settings.lookup(scope, name) is not None:
                    row[f"{scope} {name}"] = label(value)
                    values.setdefault(f"{scope} {name}", {})[label(value)] = value
        rows.append(row)
    import pandas as pd  # here: 2-5 s to load, and `kcliff run` needs only is_design_source

    table = pd.DataFrame(rows)
    factors = [c for c in table.columns if not c.startswith("_") and table[c].nunique() > 1]
    return Design(table, factors, {f: values[f] for f in factors}, beside)


def split(factor: str) -> tuple[str, str]:
    """("producer", "batch.size") from the column name "producer batch.size"."""
    scope, name = factor.split(" ", 1)
    return scope, name

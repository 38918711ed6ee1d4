"""The gate's reading of the runs at a fixed rate: whether a side held its rate, and the notes saying
which rate base and head were measured at."""

from __future__ import annotations

from kcliff.results.metrics import Workload
from kcliff.results.model import Entry, ResultsDoc
from kcliff.scenario import settings
from kcliff.scenario.rate import BYTES_PER_MB


def held_rate(entry: Entry | None) -> bool | None:
    """Whether most of the entry's fixed-rate runs held their rate (rate_output.held); None: none measured.
    Most, not all: one run a stall of the machine held back does not put a side on a cliff at rate."""
    held = [r.rate_held for r in (entry.read_runs if entry else []) if r.workload is Workload.RATE
            and r.rate_held is not None]
    return 2 * sum(held) > len(held) if held else None


def rate_notes(doc: ResultsDoc) -> list[str]:
    """e.g. 'latency at rate: base and head at 1,229 records/s (1.2 MB/s)'."""
    targets = sorted({t for side in ("base", "head") if (e := doc.entry(side)) is not None for t in e.rate_targets()})
    if not targets:
        return []
    return ["latency at rate: base and head at " + ", ".join(
        f"{t:,.0f} records/s ({t * settings.RECORD_SIZE / BYTES_PER_MB:.2g} MB/s)" for t in targets)]

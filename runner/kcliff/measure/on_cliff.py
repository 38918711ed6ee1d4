"""When a side is decided on its cliff and measures no more: its producer (or its consumer) was
stopped on the cliff twice running. The rounds skip such a side; the stop rules kcliff check hands
in (judge/stopping.py) count it as decided."""

from __future__ import annotations

from kcliff.results.metrics import Workload
from kcliff.results.model import Entry, StopKind

EARLY_STOP_AFTER = 2     # runs in a row (the warm-up counts) stopped on a cliff decide a scenario


def on_its_cliff(entry: Entry) -> bool:
    """On its cliff: the last EARLY_STOP_AFTER runs, the warm-up counted, were all stopped on it.
    Two independent runs agreeing decides it as surely as more would, in the time a healthy
    scenario's warm-up and one run take."""
    recent = entry.attempts()[-EARLY_STOP_AFTER:]
    return len(recent) == EARLY_STOP_AFTER and all(r.stop_kind is StopKind.CLIFF for r in recent)


def reads_on_cliff(entry: Entry) -> bool:
    """A consumer stopped at its cap twice running, as on_its_cliff is for the producer."""
    recent = [r for r in entry.read_runs if r.workload == Workload.CONSUME][-EARLY_STOP_AFTER:]
    return len(recent) == EARLY_STOP_AFTER and all(r.stopped_early for r in recent)

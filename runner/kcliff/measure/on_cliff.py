"""When a side is decided on its cliff and measures no more: its producer (or its consumer) was
stopped on the cliff twice running. The rounds skip such a side; the stop rules kcliff check hands
in (judge/stopping.py) count it as decided."""

from __future__ import annotations

from kcliff.results.metrics import Workload
from kcliff.results.model import Entry, StopKind

EARLY_STOP_AFTER = 2     # runs in a row (the warm-up counts) stopped on a cliff decide a scenario


def stops_to_decide(entry: Entry) -> int:
    """Runs in a row stopped on a cliff that decide this entry: one for a canary, whose cliff is known
    (the self-test asks only whether the rig sees it, and a stop below the threshold shows it does),
    EARLY_STOP_AFTER for a scenario, whose tier is what is being measured."""
    return 1 if entry.is_canary else EARLY_STOP_AFTER


def on_its_cliff(entry: Entry) -> bool:
    """On its cliff: the last stops_to_decide runs, the warm-up counted, were all stopped on it.
    Two independent runs agreeing decides a scenario as surely as more would, in the time a healthy
    scenario's warm-up and one run take."""
    needed = stops_to_decide(entry)
    recent = entry.attempts()[-needed:]
    return len(recent) == needed and all(r.stop_kind is StopKind.CLIFF for r in recent)


def reads_on_cliff(entry: Entry) -> bool:
    """A consumer stopped at its cap twice running, as on_its_cliff is for the producer."""
    recent = [r for r in entry.read_runs if r.workload == Workload.CONSUME][-EARLY_STOP_AFTER:]
    return len(recent) == EARLY_STOP_AFTER and all(r.stopped_early for r in recent)

"""Whose runs a stored baseline holds, and so how a run may be compared with it: the one rule.

Absolute figures (MB/s, ms) belong to the machine that measured them: a fresh machine of the same
runner class as the committed baseline measured the reference at 0.68x the baseline's, with nothing
wrong. So a run is compared figure for figure only with the runs its own host measured. Against runs
of another host, only what the host does not change is compared: each scenario's ratio to the
reference of the run that measured it (judge/relative.py), and the reference itself is not judged.

A host is named by environment.host_id (measure/environment.py), recorded in a results file and in
each baseline source. A baseline or results file that does not record it (written before kcliff did)
is never taken for this host's own: the committed baseline was measured on another machine, and a
fresh clone must not read it as its own.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from kcliff.results.baseline import Baseline

UPDATE_HINT = "kcliff baseline update"


class Basis(StrEnum):
    """What a run is compared with in a baseline."""

    OWN_HOST = "own host"  # the runs this host measured, figure for figure
    OTHER_HOST = "other host"  # another host's runs: ratios to the same run's reference only
    # every runner of a pool stands for its class: the nightly's baseline is built from its own
    # nights, on whichever runner the pool gave each night (commands/nightly.py)
    RUNNER_POOL = "runner pool"

    @property
    def absolute(self) -> bool:
        """Whether MB/s and ms are compared as measured (else only ratios to the reference)."""
        return self is not Basis.OTHER_HOST


@dataclass(frozen=True)
class Yardstick:
    """How a run is compared with a baseline: its basis, and the baseline's runs it is compared with
    (on its own host, only the runs that host measured)."""

    basis: Basis
    baseline: Baseline

    def note(self, results: str = "RESULTS") -> str | None:
        """The one line a reader needs when absolute figures are not compared; None when they are."""
        if self.basis.absolute:
            return None
        return ("this host has no baseline of its own yet: absolute figures (MB/s, ms) are not compared, only "
                "each scenario's ratio to its run's reference against the baseline's, and the reference is not "
                f"judged (`{UPDATE_HINT} {results}` on this host makes it one)")


def host_of(environment: dict[str, Any]) -> str | None:
    """The host a results file was measured on (None: written before kcliff recorded it)."""
    found = environment.get("host_id")
    return found if isinstance(found, str) and found else None


def own_runs(base: Baseline, host: str | None) -> Baseline | None:
    """The part of `base` that `host` measured (None when it measured none of it): its sources, and
    each scenario's runs from them. Runs of other hosts in the same file are left out."""
    if host is None:
        return None
    mine = {s.run_id for s in base.sources if s.host_id == host}
    if not mine:
        return None
    kept = base.model_copy(deep=True)
    kept.sources = [s for s in kept.sources if s.run_id in mine]
    for sid, stored in list(kept.scenarios.items()):
        stored.runs = [r for r in stored.runs if r.run_id in mine]
        stored.read_runs = [r for r in stored.read_runs if r.run_id in mine]
        if not stored.runs:
            del kept.scenarios[sid]
    return kept


def yardstick(environment: dict[str, Any], base: Baseline) -> Yardstick:
    """THE rule: is this baseline this host's own? Yes where the results' host measured some of its
    runs (then only those are compared with); no otherwise, also when either side does not say."""
    mine = own_runs(base, host_of(environment))
    return Yardstick(Basis.OWN_HOST, mine) if mine is not None else Yardstick(Basis.OTHER_HOST, base)


def runner_pool(base: Baseline) -> Yardstick:
    """A runner pool's own baseline, every runner standing for the class (the nightly's)."""
    return Yardstick(Basis.RUNNER_POOL, base)

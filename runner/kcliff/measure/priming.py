"""Priming a site's brokers with unmeasured load before its first measurement."""

from __future__ import annotations

import time
import uuid

from kcliff.errors import ClusterError
from kcliff.measure import faults
from kcliff.measure.options import Options
from kcliff.measure.rig import Rig
from kcliff.measure.sites import Site
from kcliff.scenario.settings import INVARIANTS

PRIME_RECORDS = 30_000   # per priming run, so JVM start-ups do not eat the priming time


def prime(rig: Rig, site: Site, opts: Options, seconds: float) -> None:
    """Unmeasured runs on a throwaway topic for `seconds` (at least one): fresh brokers speed up over
    their first minute (JIT), and a reference measured on cold brokers made the canaries look healthy
    beside it (docs/measurements.md)."""
    topic = f"kcliff-prime-{uuid.uuid4().hex[:6]}"
    site.loaded_since = time.monotonic()
    rig.progress.phase(f"priming the brokers ({seconds:.0f}s of unmeasured load)", seconds)
    site.admin.create_topic(topic, 6, 3, {})
    began, figures = time.monotonic(), list[float]()
    try:
        while True:
            run = rig.perf_run(site.cluster, topic, max(opts.warmup(), PRIME_RECORDS),
                               dict(INVARIANTS["producer"]), _deadline(began, seconds, opts.budget_s),
                               rig.logdir / f"prime-{len(figures) + 1}.log",
                               watch=faults.FaultWatch(site.cluster).check)
            figures.append(round(run.mb_per_sec or 0.0, 2))
            if run.stop_kind is not None and run.stop_kind.is_fault:
                raise ClusterError(f"while priming the brokers: {faults.unprefixed(run.stop_reason or '')}")
            if not run.complete or time.monotonic() - began >= seconds:
                break
    finally:
        site.admin.delete_topic(topic)
    primed = {"seconds": round(time.monotonic() - began, 1), "mb_per_sec": figures}
    if site is rig.home:
        rig.doc.prime = primed
    else:  # beside the home cluster's figures: an upgrade check's second cluster
        rig.doc.prime = {**(rig.doc.prime or {}), f"kafka {site.kafka_version}": primed}


def _deadline(began: float, seconds: float, budget_s: float) -> float:
    """When a priming run is stopped: at the priming's end (one run of PRIME_RECORDS took 25 s of a 5 s
    priming on compose), or after the budget for `--prime 0`'s one run."""
    budget = time.monotonic() + budget_s
    return min(budget, began + seconds) if seconds > 0 else budget

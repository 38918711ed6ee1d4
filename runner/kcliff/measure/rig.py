"""What every part of a suite's measuring shares: the sites it measures on, the results document and
where it is saved, the tools' logs, the progress line and the perf run."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from kcliff.measure.progress import Progress
from kcliff.measure.sites import Site
from kcliff.results.metrics import THROUGHPUT
from kcliff.results.model import ResultsDoc, Run, save

# producer.perf_run's signature: the suite is given it, so its fault and status handling can be tested
# with made-up runs
Measure = Callable[..., Run]


@dataclass(eq=False)
class Rig:
    home: Site
    doc: ResultsDoc
    out: Path
    logdir: Path
    progress: Progress
    perf_run: Measure
    elsewhere: dict[str, Site] = field(default_factory=dict)  # scenario id -> its site, when not home
    abort: str | None = None  # a fault no retry can mend (a full disk): ends the suite

    def sites(self) -> list[Site]:
        return [self.home, *self.elsewhere.values()]  # measure_elsewhere gives each its own, never home

    def site_of(self, scenario_id: str) -> Site:
        return self.elsewhere.get(scenario_id, self.home)

    def save(self) -> None:
        save(self.doc, self.out)

    def log_path(self, scenario_id: str, label: str) -> Path:
        """A tool run's log: one file per scenario and run ('round 3/18' -> reference-round3.log)."""
        return self.logdir / f"{scenario_id}-{label.split('/')[0].replace(' ', '')}.log"

    def steady_state(self) -> bool:
        """Runs leave their first records out of their figures (the perf tool's --warmup-records, 4.2
        on) only where every cluster's tool can: an upgrade check from 3.x measures both sides alike,
        over whole runs (docs/measurements.md, "Kafka 3.x")."""
        return all(site.cluster.release.producer_warmup for site in self.sites())

    def reference_mb(self) -> float | None:
        """The reference's median MB/s so far; its warm-up's while it has no measured run yet."""
        ref = self.doc.reference()
        if ref is None:
            return None
        stat = (ref.summary or {}).get(THROUGHPUT.key)
        return (stat.median if stat else None) or (ref.warmup.mb_per_sec if ref.warmup else None)

"""Which resource bound a run: a broker's link at its cap, a broker's disk at its write cap, the CPU
busy, or none of them (the run waited: fsyncs, round trips). One rule, here, for every reader: the
run table, the results, the report and the trade-off verdicts."""

from __future__ import annotations

import statistics
from collections import Counter
from enum import StrEnum
from typing import Sequence

from pydantic import BaseModel, ConfigDict

# A cap counts as binding once the busiest broker's bytes reach this share of it: a token bucket
# holds a TCP stream at 95-99% of its rate (kafka-facts.md: 80 Mbit/s measured 9.9 MB/s).
AT_CAP = 0.85
# The cores count as binding once this share of all of them was busy over the run.
CPU_BUSY = 0.90


class Resource(StrEnum):
    LINK = "link"
    DISK = "disk"
    CPU = "cpu"
    WAIT = "wait"  # nothing at its limit: the run waited on fsyncs or round trips


class Bound(BaseModel):
    """What a run used of each capped resource, per second, at the busiest broker, and which bound it."""

    model_config = ConfigDict(extra="allow")

    resource: Resource
    link_mb_s: float | None = None  # the busiest broker's link, its busier direction (10^6 bytes/s)
    link_cap_mb_s: float | None = None
    disk_mb_s: float | None = None  # the busiest broker's log growth
    disk_cap_mb_s: float | None = None
    cpu_busy: float = 0.0  # share of all cores busy over the run

    def describe(self) -> str:
        if self.resource is Resource.LINK and self.link_mb_s and self.link_cap_mb_s:
            return f"link {self.link_mb_s:.1f}/{self.link_cap_mb_s:.1f} MB/s"
        if self.resource is Resource.DISK and self.disk_mb_s and self.disk_cap_mb_s:
            return f"disk {self.disk_mb_s:.1f}/{self.disk_cap_mb_s:.1f} MB/s"
        return f"{self.resource.value} (cpu {self.cpu_busy:.0%})"


def binding(link: float | None, link_cap: float | None, disk: float | None, disk_cap: float | None,
            cpu_busy: float) -> Resource:
    """The resource that bound a run: of the capped ones at their cap, the one nearest it (a disk held at
    its cap keeps the link a few percent above the log's bytes, both near theirs); else the CPU if busy,
    else none."""
    shares = {Resource.LINK: link / link_cap if link is not None and link_cap else 0.0,
              Resource.DISK: disk / disk_cap if disk is not None and disk_cap else 0.0}
    nearest = max(shares, key=lambda r: shares[r])
    if shares[nearest] >= AT_CAP:
        return nearest
    return Resource.CPU if cpu_busy >= CPU_BUSY else Resource.WAIT


def prevailing(bounds: Sequence[Bound]) -> Bound | None:
    """What bound a scenario's runs: the resource that bound most of them (a tie goes to the one that bound
    the earliest run), with the median of each figure over the runs it bound; None without a bound run."""
    if not bounds:
        return None
    counts = Counter(b.resource for b in bounds)
    resource = max(counts, key=lambda r: counts[r])  # max keeps the first of equals: the earliest run's
    bound = [b for b in bounds if b.resource is resource]

    def median(values: list[float | None]) -> float | None:
        known = [v for v in values if v is not None]
        return statistics.median(known) if known else None
    return Bound(resource=resource, link_mb_s=median([b.link_mb_s for b in bound]),
                 link_cap_mb_s=median([b.link_cap_mb_s for b in bound]), disk_mb_s=median([b.disk_mb_s for b in bound]),
                 disk_cap_mb_s=median([b.disk_cap_mb_s for b in bound]),
                 cpu_busy=statistics.median(b.cpu_busy for b in bound))

"""Watch a run's resources once a second and say which bound it (results/bottleneck.py's rule).

The first seconds of a run are the tool's JVM starting and its producer warming up, so the steady
rate is the median over the later windows, not the run's average."""

from __future__ import annotations

import statistics
import threading
import time
from dataclasses import dataclass, field
from types import TracebackType

from kcliff.backends.base import Cluster, Usage
from kcliff.errors import ClusterError
from kcliff.host.load import busy_and_total
from kcliff.results.bottleneck import Bound, binding

INTERVAL_S = 1.0
SKIP_WINDOWS = 2  # windows of start-up left out when a run has more than twice as many


@dataclass
class _Sample:
    at: float
    usage: Usage | None
    busy: int
    total: int


@dataclass
class Sampler:
    """Samples `cluster` in a thread between __enter__ and __exit__."""

    cluster: Cluster
    samples: list[_Sample] = field(default_factory=list)
    _stop: threading.Event = field(default_factory=threading.Event)
    _thread: threading.Thread | None = None

    def __enter__(self) -> Sampler:
        self._sample()
        self._thread = threading.Thread(target=self._loop, name="kcliff-bottleneck", daemon=True)
        self._thread.start()
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
        self._sample()

    def _loop(self) -> None:
        while not self._stop.wait(INTERVAL_S):
            self._sample()

    def _sample(self) -> None:
        try:
            usage = self.cluster.usage()
        except ClusterError:  # a namespace gone with its broker: this window counts only the CPU
            usage = None
        busy, total = busy_and_total()
        self.samples.append(_Sample(time.monotonic(), usage, busy, total))

    def bound(self) -> Bound | None:
        """What bound the run, from its steady windows; None for a run too short to have one."""
        pairs = list(zip(self.samples, self.samples[1:]))
        if len(pairs) > 2 * SKIP_WINDOWS:
            pairs = pairs[SKIP_WINDOWS:]
        pairs = [(a, b) for a, b in pairs if b.at - a.at > 0.2]
        if not pairs:
            return None
        cpu = statistics.median((b.busy - a.busy) / max(1, b.total - a.total) for a, b in pairs)
        links = [_link_mb_s(a, b) for a, b in pairs]
        disks = [_disk_mb_s(a, b) for a, b in pairs]
        link = statistics.median(v for v in links if v is not None) if any(v is not None for v in links) else None
        disk = statistics.median(v for v in disks if v is not None) if any(v is not None for v in disks) else None
        caps = next((s.usage for s in self.samples if s.usage is not None), None)
        link_cap = caps.link_cap_mb_s if caps else None
        disk_cap = caps.disk_cap_mb_s if caps else None
        return Bound(resource=binding(link, link_cap, disk, disk_cap, cpu), cpu_busy=round(cpu, 3),
                     link_mb_s=_round(link), link_cap_mb_s=link_cap, disk_mb_s=_round(disk), disk_cap_mb_s=disk_cap)


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 2)


def _link_mb_s(a: _Sample, b: _Sample) -> float | None:
    """The busiest broker's busier direction over one window, MB/s."""
    if a.usage is None or b.usage is None or a.usage.link_cap_mb_s is None:
        return None
    dt = b.at - a.at
    deltas = [max(rx1 - rx0, tx1 - tx0) for rx0, tx0, rx1, tx1 in
              zip(a.usage.link_rx, a.usage.link_tx, b.usage.link_rx, b.usage.link_tx)]
    return max(deltas, default=0) / dt / 1e6


def _disk_mb_s(a: _Sample, b: _Sample) -> float | None:
    """The busiest broker's log growth over one window, MB/s (a deleted segment counts as none)."""
    if a.usage is None or b.usage is None or a.usage.disk_cap_mb_s is None:
        return None
    dt = b.at - a.at
    return max((max(0, y - x) for x, y in zip(a.usage.log_bytes, b.usage.log_bytes)), default=0) / dt / 1e6

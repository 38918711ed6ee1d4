"""What ends a measurement because of the cluster, not the settings: a dead broker, a full data disk."""

from __future__ import annotations

import shutil
import time
from pathlib import Path

from kcliff.backends.base import Cluster
from kcliff.errors import ClusterError
from kcliff.results.model import StopKind

FAULT = "fault:"  # stop reasons of faults start so (older files are read by this prefix: model.Run)
DISK_FULL = "disk full:"
DISK_FREE_MIN = 16 * 2 ** 20
DISK_SLACK = 128 * 2 ** 20  # metadata log, index files, broker logs


class FaultWatch:
    """Looks for dead brokers and a full data disk at most every `every_s` seconds (docker inspect is
    not free)."""

    def __init__(self, cluster: Cluster, every_s: float = 2.0) -> None:
        self.cluster = cluster
        self.every_s = every_s
        self.last = 0.0

    def check(self) -> tuple[StopKind, str] | None:
        if time.monotonic() - self.last < self.every_s:
            return None
        self.last = time.monotonic()
        # the disk first: a broker whose only log dir went offline on it halts, and the disk is why
        full = disk_full(self.cluster.data_root())
        if full is not None:
            return full
        dead = self.cluster.dead_nodes()
        return (StopKind.FAULT, died(dead)) if dead else None


def died(dead: list[int], during: str = "") -> str:
    return f"{FAULT} broker node(s) {dead} died" + (f" during {during}" if during else "")


def disk_full(root: Path | None) -> tuple[StopKind, str] | None:
    """A reason when the brokers' disk is full: Kafka then takes the log dir offline and the brokers
    stay up accepting nothing, which no retry can mend."""
    if root is None:
        return None
    free = shutil.disk_usage(root).free
    if free >= DISK_FREE_MIN:
        return None
    return StopKind.DISK_FULL, (f"{FAULT} {DISK_FULL} the disk holding {root} has {free / 2 ** 20:.0f} MB free, "
                                "so the brokers cannot write their logs; free space there or give --workdir on a "
                                "larger disk")


def unprefixed(reason: str) -> str:
    """A fault's stop reason without its prefixes, for a message that says what ended the suite."""
    return reason.removeprefix(FAULT).strip().removeprefix(DISK_FULL).strip()


def check_space(root: Path | None, needed: int) -> None:
    """Refuse to start a run that would fill the brokers' disk."""
    if root is None:
        return
    free = shutil.disk_usage(root).free
    if free < needed:
        raise ClusterError(f"not enough disk space for this run in {root}: {free / 2 ** 20:.0f} MB free, "
                           f"about {needed / 2 ** 20:.0f} MB needed (every record on three replicas); "
                           "free space, give --workdir on a larger disk, or lower --records/--repeats")

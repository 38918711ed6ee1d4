"""Other load on the machine before measuring: what else keeps the CPUs busy, and which other kcliff
runs or clusters are alive. A throughput measured beside them is low and noisy without any config
being at fault, so the run warns loudly and records it in the results' environment (what such load
cost on the development machine: docs/measurements.md).

Only CPU time of processes that are not this run's counts: the run's own cluster may still be busy
from its start-up, which is no reason to warn.
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import TypedDict

from kcliff.host import leftovers, procs

SAMPLE_S = 1.0
# Other processes busy for more than this share of the cores: the brokers and the perf tool lose CPU
# to them. An idle machine's background stays far below (0.01-0.05 cores measured on a 2-core VM).
BUSY_SHARE = 0.25


def busy_and_total() -> tuple[int, int]:
    """Busy and total CPU time of all cores since boot, in clock ticks (/proc/stat)."""
    fields = [int(x) for x in Path("/proc/stat").read_text().splitlines()[0].split()[1:]]
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0)  # idle + iowait
    total = sum(fields[:8])  # guest time is already inside user time
    return total - idle, total


def cpu_ticks(pid: int) -> int:
    """utime + stime of `pid` in clock ticks; 0 when it is gone."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(") ", 1)[1].split()
    except (OSError, IndexError):
        return 0
    return int(fields[11]) + int(fields[12])


def in_containers(container_ids: list[str]) -> set[int]:
    """Processes running inside these docker containers (their cgroup path names the id)."""
    found: set[int] = set()
    if not container_ids:
        return found
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                cgroup = (entry / "cgroup").read_text()
            except OSError:
                continue
            if any(cid in cgroup for cid in container_ids):
                found.add(int(entry.name))
    return found


def own_pids(own_marks: set[str], container_ids: list[str]) -> set[int]:
    marked = {pid for pid, mark in leftovers.marked_processes().items() if mark in own_marks}
    return marked | in_containers(container_ids) | {os.getpid()}


def foreign_busy_cores(own_marks: set[str], container_ids: list[str], seconds: float = SAMPLE_S) -> float:
    """Cores kept busy over `seconds` by processes that are not this run's."""
    mine = own_pids(own_marks, container_ids)
    busy0, total0 = busy_and_total()
    own0 = sum(cpu_ticks(pid) for pid in mine)
    time.sleep(seconds)
    mine |= own_pids(own_marks, container_ids)
    busy1, total1 = busy_and_total()
    own1 = sum(cpu_ticks(pid) for pid in mine)
    return busy_cores(busy1 - busy0, total1 - total0, own1 - own0, os.cpu_count() or 1)


def busy_cores(busy_ticks: int, total_ticks: int, own_ticks: int, cores: int) -> float:
    """Cores kept busy by others: the machine's busy share of all cores' time, less this run's own
    ticks (a process may be counted a tick apart from /proc/stat, hence never below 0)."""
    foreign = max(0, busy_ticks - own_ticks)
    return round(foreign / max(1, total_ticks) * cores, 2)


def warning(foreign_cores: float, cores: int, other_kcliff: list[str]) -> str | None:
    """The one rule for when the machine is too busy to measure quietly; None when it is not."""
    parts = []
    if foreign_cores > BUSY_SHARE * cores:
        parts.append(f"other processes kept {foreign_cores:.1f} of {cores} cores busy")
    if other_kcliff:
        parts.append("other kcliff processes are running: " + "; ".join(other_kcliff))
    if not parts:
        return None
    return "; ".join(parts) + " - throughput measured now is lower and noisier than on a quiet machine"


class Survey(TypedDict):
    cores: int
    foreign_busy_cores: float
    busy_limit_cores: float
    loadavg_1m: float
    other_kcliff: list[str]
    reaped: list[str]
    warning: str | None


def survey(own_marks: set[str], container_ids: list[str], reaped: list[str]) -> Survey:
    """The results' environment.load block."""
    cores = os.cpu_count() or 1
    foreign = foreign_busy_cores(own_marks, container_ids)
    others = leftovers.others(own_marks)
    return {"cores": cores, "foreign_busy_cores": foreign, "busy_limit_cores": round(BUSY_SHARE * cores, 2),
            "loadavg_1m": round(os.getloadavg()[0], 2), "other_kcliff": others, "reaped": reaped,
            "warning": warning(foreign, cores, others)}


def own_marks_of(cluster_mark: str | None) -> set[str]:
    return {procs.run_mark(), *([cluster_mark] if cluster_mark else [])}

"""What a run ran on, recorded in every results file so results from different machines never mix
silently."""

from __future__ import annotations

import os
import platform
import socket
import subprocess
import time
from pathlib import Path
from typing import Any

from . import __version__, kafka_dist
from .backends.base import Cluster


def now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def memory_gb() -> float:
    try:
        pages = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError):
        return 0.0
    return round(pages / 2 ** 30, 1)


def runner_class(backend: str) -> str:
    """Baselines are keyed by this; KCLIFF_RUNNER_CLASS names a runner pool explicitly."""
    return os.environ.get("KCLIFF_RUNNER_CLASS") or f"{backend}-{os.cpu_count()}c-{round(memory_gb())}g"


def git_revision() -> str:
    repo = Path(__file__).resolve().parents[2]
    try:
        done = subprocess.run(["git", "-C", str(repo), "rev-parse", "HEAD"], capture_output=True, text=True,
                              timeout=10)
    except (OSError, subprocess.TimeoutExpired):
        return "unknown"
    return done.stdout.strip() if done.returncode == 0 else "unknown"


def collect(cluster: Cluster, kafka_version: str) -> dict[str, Any]:
    described = cluster.describe()
    return {
        "kafka_version": kafka_version,
        "java": kafka_dist.java_version(),
        "cores": os.cpu_count(),
        "memory_gb": memory_gb(),
        "os": platform.platform(),
        "backend": cluster.backend,
        "runner_class": runner_class(cluster.backend),
        "caps": described.get("caps"),
        "kcliff_version": __version__,
        "kcliff_revision": git_revision(),
        "hostname": socket.gethostname(),
        "started": now(),
        "ended": None,
        "cluster_bringup_s": cluster.bringup_s,
    }

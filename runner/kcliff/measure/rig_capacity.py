"""This rig's CPU-bound capacity: the reference's MB/s flat out on an uncapped cluster, which a rig
profile's caps are scaled to (scenario/profile.py). Measured once per host, Kafka version and backend
and kept a week in kcliff's cache, so a check at a profile does not pay for it each time."""

from __future__ import annotations

import dataclasses
import json
import socket
import statistics
import time
from pathlib import Path
from typing import Any

from kcliff.backends.admin import Admin
from kcliff.backends.open import ClusterConfig, open_cluster
from kcliff.backends.storage import cache_dir
from kcliff.errors import ClusterError, InputError
from kcliff.host import netns
from kcliff.measure.document import new_document
from kcliff.measure.options import Options
from kcliff.measure.progress import Progress
from kcliff.measure.suite import SuiteRunner
from kcliff.results.metrics import THROUGHPUT
from kcliff.results.model import REFERENCE_ID
from kcliff.results.rig import CPU_BOUND, RunnerClass
from kcliff.scenario.profile import Profile, RigCaps
from kcliff.scenario.suites import load_suites

MAX_AGE_S = 7 * 86400
MIB_TO_MB = 1.048576  # the perf tool's MB is 2^20 bytes; a profile's 10^6
CALIBRATION = Options(records=100_000, repeats=3, prime_s=10.0)


def _path() -> Path:
    return cache_dir() / "rig-capacity.json"


def _key(version: str, backend: str) -> str:
    """One capacity per host, Kafka version and backend: the compose brokers' containers and one-off
    producer containers reach another rate than the local JVMs on the same cores."""
    return f"{socket.gethostname()}/{version}" + ("" if backend == "local" else f"/{backend}")


def cached(version: str, backend: str = "local") -> float | None:
    """The capacity measured on this host for `version` on `backend` within MAX_AGE_S, MB/s."""
    try:
        known = json.loads(_path().read_text()).get(_key(version, backend))
    except (OSError, ValueError):
        return None
    if not isinstance(known, dict) or time.time() - float(known.get("at", 0)) > MAX_AGE_S:
        return None
    return float(known["mb_s"])


def remember(version: str, mb_s: float, backend: str = "local") -> None:
    try:
        known = json.loads(_path().read_text())
    except (OSError, ValueError):
        known = {}
    known[_key(version, backend)] = {"mb_s": mb_s, "at": time.time()}
    _path().parent.mkdir(parents=True, exist_ok=True)
    _path().write_text(json.dumps(known, indent=1))


def measure(config: ClusterConfig, run_dir: Path, progress: Progress) -> float:
    """The reference flat out, three runs, on a cluster with no caps of bytes: their median in MB/s."""
    # no replication round trip either: its proxy's CPU and waits are no part of the rig's capacity
    uncapped = dataclasses.replace(config, caps=dataclasses.replace(config.caps, link_mbit=0.0, disk_mb_s=0.0,
                                                                    replication_rtt_ms=0))
    progress.note("measuring this rig's CPU-bound capacity (the reference flat out, uncapped), once a week")
    reference = next(s for s in load_suites(["canaries"]) if s.id == REFERENCE_ID)
    with open_cluster(uncapped, run_dir, progress, "calibration") as cluster:
        doc = new_document(cluster, CALIBRATION, ["calibration"], config.kafka_version)
        runner = SuiteRunner(cluster, Admin(cluster.admin_bootstrap), CALIBRATION, doc, run_dir / "calibration.json",
                             run_dir / "calibration", progress)
        runner.run([reference], read_baseline=False)
    entry = doc.entry(REFERENCE_ID)
    values = [v for v in (entry.values(THROUGHPUT) if entry else []) if v]
    if not values:
        raise ClusterError("the rig's CPU-bound capacity could not be measured: the reference has no complete run; "
                           f"see {run_dir / 'calibration'}")
    mb_s = round(statistics.median(values) * MIB_TO_MB, 2)
    if (doc.environment.get("load") or {}).get("warning"):
        progress.warn("the rig's capacity was measured on a busy machine: used for this run only, not kept")
    else:
        remember(config.kafka_version, mb_s, config.backend)
    return mb_s


def capped(config: ClusterConfig, profile: Profile | None, run_dir: Path, progress: Progress) -> tuple[ClusterConfig, RigCaps | None]:
    """`config` with the caps `profile` sets on this rig (the rig's capacity cached or measured now) and
    its replication round trip, unless --replication-rtt-ms gave one; no profile: `config` as it is, with
    the caps given by hand as a rig of their own (RigCaps.by_hand), else none."""
    if profile is None:
        return config, RigCaps.by_hand(config.caps.link_mbit, config.caps.disk_mb_s, config.caps.replication_rtt_ms)
    if profile.replication_rtt_ms and config.backend != "local":
        raise InputError(f"profile replication_rtt_ms is for the local backend, not {config.backend}: kcliff puts a "
                         "proxy between brokers it starts as JVMs on this host", profile.path, profile.line)
    # before the capacity is measured: a minute on a fresh runner, for a cluster that could not start
    netns.require_root(f"at rig profile {profile.name} cap each broker's link and disk")
    capacity = cached(config.kafka_version, config.backend) or measure(config, run_dir, progress)
    caps = profile.caps(capacity)
    rtt = config.caps.replication_rtt_ms if config.caps.replication_rtt_given else caps.replication_rtt_ms
    caps = dataclasses.replace(caps, replication_rtt_ms=rtt)
    progress.note(f"rig profile {profile.describe()}; this rig: {capacity:.1f} MB/s CPU-bound, so each broker's "
                  f"link is capped at {caps.link_mbit:g} Mbit/s and its disk at {caps.disk_mb_s:g} MB/s"
                  + (f"; followers fetch across a {rtt} ms round trip" if rtt else ""))
    return dataclasses.replace(config, caps=dataclasses.replace(config.caps, link_mbit=caps.link_mbit,
                                                                disk_mb_s=caps.disk_mb_s,
                                                                replication_rtt_ms=rtt)), caps


def record(environment: dict[str, Any], caps: RigCaps | None) -> None:
    """The results' record of the rig: its profile and caps; and the runner class, which keys baselines,
    history and the report's series, gains the profile: a baseline belongs to one profile."""
    environment["rig"] = dataclasses.asdict(caps) if caps else {"profile": CPU_BOUND}
    if caps is not None:
        environment["runner_class"] = str(RunnerClass(environment["runner_class"], caps.profile))

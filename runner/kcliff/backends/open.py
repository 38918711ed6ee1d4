"""Open the cluster a command measures on: the external one given, the one `kcliff cluster up` left
running, or one started for this command and always taken down again (also on Ctrl-C and errors)."""

from __future__ import annotations

import contextlib
import dataclasses
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Iterator, Protocol

from kcliff.backends import compose_projects
from kcliff.backends.base import Cluster
from kcliff.backends.broker_control import BrokerControl, controlled
from kcliff.backends.local import Caps, LocalCluster, shared_dir, start_local_cluster
from kcliff.host import leftovers, netns
from kcliff.kafka import dist as kafka_dist
from kcliff.results.metrics import Workload
from kcliff.scenario.suites import Scenario

BACKENDS = ("local", "compose", "external")


class Reporter(Protocol):
    """Where opening a cluster says what it does (measure.progress.Progress is one): backends lie
    below the measuring, so they name only the two calls they make."""

    def note(self, text: str) -> None: ...

    def warn(self, text: str) -> None: ...

    def phase(self, text: str, seconds: float | None = None) -> None:
        """Note `text` as what is under way until the next phase (the heartbeat repeats it)."""


@dataclass(frozen=True)
class ClusterConfig:
    """Which cluster to measure on and how a started one is capped."""

    backend: str  # one of BACKENDS
    bootstrap_servers: str | None
    workdir: Path
    kafka_version: str
    kafka_home: str | None
    caps: Caps
    broker_control: BrokerControl | None = None  # external only: the commands that crash and start its brokers


def for_faults(config: ClusterConfig, scenarios: Iterable[Scenario]) -> ClusterConfig:
    """The config a local cluster needs for these scenarios' faults: its controller apart when one takes two
    brokers at once (local_nodes.py); else as given."""
    if config.backend != "local" or not any(Workload.FAILOVER in sc.workloads and sc.fault.takes_two_brokers
                                            for sc in scenarios):
        return config
    return dataclasses.replace(config, caps=dataclasses.replace(config.caps, controller_apart=True))


def reap_leftovers() -> list[str]:
    """End what dead kcliff processes left running, one sentence each: their marked processes
    (host.leftovers) and their compose projects, which live in dockerd."""
    return leftovers.reap() + compose_projects.reap() + netns.reap()


@contextlib.contextmanager
def open_cluster(config: ClusterConfig, run_dir: Path, progress: Reporter, name: str = "cluster",
                 reuse: bool = True) -> Iterator[Cluster]:
    """The cluster to measure; whatever this function started is torn down when the block ends.
    `name` tells a second cluster's files from the first's; `reuse=False` starts one even where
    `kcliff cluster up` left one running (an upgrade check needs a cluster of each version)."""
    for said in reap_leftovers():
        progress.warn(said)
    if config.backend == "external":
        from kcliff.backends.external import connect
        assert config.bootstrap_servers is not None  # options.cluster_config requires it
        found = connect(config.bootstrap_servers, config.kafka_version, config.kafka_home,
                        config.caps.producer_heap_mb, config.caps.producer_cpus)
        # a run's fault is undone by the run itself (failover.failover_run), or by the watchdog if kcliff dies
        yield found if config.broker_control is None else controlled(found, config.broker_control)
        return
    if config.backend == "compose":
        from kcliff.backends.compose import start_compose_cluster
        from kcliff.backends.compose_file import ComposeCaps
        caps = dataclasses.replace(ComposeCaps.from_env(), client_rtt_ms=config.caps.client_rtt_ms,
                                   fsync_delay_ms=config.caps.fsync_delay_ms,
                                   fsync_delay_given=config.caps.fsync_delay_given,
                                   link_mbit=config.caps.link_mbit, disk_mb_s=config.caps.disk_mb_s)
        progress.phase(f"starting a 3-broker compose cluster (Kafka {config.kafka_version})")
        started: Cluster = start_compose_cluster(run_dir / name.replace("cluster", "compose"), config.kafka_version,
                                                 caps=caps)
    else:
        running = LocalCluster.from_state(shared_dir(config.workdir)) if reuse else None
        wanted = kafka_dist.libs_dir(config.kafka_version, config.kafka_home)
        if running is not None and running.libs != wanted:  # a repo naming another release gets its own
            progress.note(f"the cluster left running by `kcliff cluster up` runs the jars in {running.libs}, not "
                          f"Kafka {config.kafka_version}'s: starting one of that release")
            running = None
        # the client proxy too: brokers advertise it at start, so a cluster up without it measured no round trip
        set_at_start = ("link_mbit", "disk_mb_s", "replication_rtt_ms", "client_rtt_ms")
        differ = [k for k in set_at_start if running is not None and getattr(running.caps, k) != getattr(config.caps, k)]
        if differ:  # caps and listeners are set at start: a rig profile needs a cluster of its own
            progress.note(f"the cluster left running by `kcliff cluster up` was started with other "
                          f"{', '.join(differ)}: starting one for this command")
            running = None
        if running is not None and config.caps.controller_apart and not running.controller_apart():
            progress.note("the cluster left running by `kcliff cluster up` runs its controller quorum in the brokers, "
                          "and a fault here takes two brokers at once: starting one with its controller apart")
            running = None
        if running is not None and not running.dead_nodes():
            progress.note(f"using the cluster left running by `kcliff cluster up` ({running.admin_bootstrap})")
            if running.emulated_fsync_ms() != config.caps.fsync_delay_ms:
                progress.warn(f"that cluster's brokers were started with --fsync-delay-ms "
                              f"{running.emulated_fsync_ms():g}, not {config.caps.fsync_delay_ms:g}; it measures "
                              "with its own (kcliff cluster down, then up with the delay wanted)")
            yield running
            return
        apart = ", its controller apart" if config.caps.controller_apart else ""
        progress.phase(f"starting a local 3-broker KRaft cluster (Kafka {config.kafka_version}{apart})")
        started = start_local_cluster(run_dir / name, config.kafka_version, config.caps, config.kafka_home)
    try:
        progress.note(f"cluster ready in {started.bringup_s or 0:.1f}s ({started.admin_bootstrap})")
        if started.emulated_fsync_ms():
            progress.note(f"every fsync of the brokers' data takes at least {started.emulated_fsync_ms():g} ms "
                          "(--fsync-delay-ms), standing in for a slower disk")
        elif config.caps.fsync_delay_ms:
            progress.warn("the brokers' disk is not emulated (their image cannot preload the fsync shim): "
                          "they sync on the containers' own disk")
        yield started
    finally:
        progress.phase("stopping the cluster")
        started.down()

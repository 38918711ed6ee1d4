"""What a backend gives the runner: a running cluster it can reach, restart and take down.

Scenario application (topics, dynamic configs) and measurement are the same for every backend;
only how the cluster starts and where the perf tool runs differ.
"""

from __future__ import annotations

import base64
import socket
import uuid
from abc import ABC, abstractmethod
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from kcliff.errors import InputError
from kcliff.host import procs
from kcliff.kafka import dist as kafka_dist
from kcliff.kafka import release as kafka_release
from kcliff.kafka.release import KafkaRelease
from kcliff.results.metrics import Fault

# A broker restarted before its dead registration's session ran out is not let in until it does; till
# then the cluster's metadata still shows the old, dead registration as alive, and a TCP or metadata
# probe cannot tell that the new process is serving. It logs this line once the controller unfenced it.
STARTED_LINE = "Kafka Server started"


def new_cluster_id() -> str:
    """A KRaft cluster id as `kafka-storage random-uuid` prints it (Kafka's Uuid.randomUuid): a random
    (version 4) UUID's 16 bytes, URL-safe base64 without padding, 22 characters, never one starting
    with '-', which StorageTool's `-t ID` would read as a flag (the image's `--cluster-id=ID` would not)."""
    while True:
        cluster_id = base64.urlsafe_b64encode(uuid.uuid4().bytes).decode().rstrip("=")
        if not cluster_id.startswith("-"):
            return cluster_id


def free_ports(count: int) -> list[int]:
    """`count` distinct loopback ports free right now, so a cluster never clashes with one already running."""
    socks = []
    try:
        for _ in range(count):
            sock = socket.socket()
            sock.bind(("127.0.0.1", 0))
            socks.append(sock)
        return [s.getsockname()[1] for s in socks]
    finally:
        for sock in socks:
            sock.close()


@dataclass(frozen=True)
class Usage:
    """Counters of each broker's capped resources at one moment: bytes received and sent on its link,
    bytes its partition logs hold; and the caps (MB/s, 10^6 bytes; None: uncapped)."""

    link_rx: tuple[int, ...]
    link_tx: tuple[int, ...]
    log_bytes: tuple[int, ...]
    link_cap_mb_s: float | None
    disk_cap_mb_s: float | None


@dataclass(frozen=True)
class Abilities:
    """What a backend can do beyond measuring, declared so the suite asks instead of trying."""

    restart: bool = False  # read-only broker settings applied by restarting the brokers (Restartable)
    heal: bool = False  # a dead node started again with its data (Restartable)


class Cluster(ABC):
    """A running 3-broker cluster. `admin_bootstrap` is reachable from kcliff's own process (admin
    calls); `tool_bootstrap` from wherever `tool_command` runs the perf tools (they differ for
    compose, where the producer runs in its own container)."""

    abilities: ClassVar[Abilities] = Abilities()
    backend: str
    bringup_s: float | None = None

    @property
    @abstractmethod
    def admin_bootstrap(self) -> str:
        """bootstrap.servers for admin calls from this process."""

    @property
    @abstractmethod
    def tool_bootstrap(self) -> str:
        """bootstrap.servers for the perf tool, as `tool_command` runs it."""

    @property
    def release(self) -> KafkaRelease:
        """The Kafka release of the tools `tool_command` runs, which says their classes and flags.
        Every backend that runs tools says its own; a stand-in cluster of a test runs today's default."""
        return kafka_release.of(kafka_dist.DEFAULT_VERSION)

    @abstractmethod
    def tool_command(self, main_class: str, args: list[str], files: tuple[Path, ...] = (),
                     jars: tuple[Path, ...] = (), name: str | None = None) -> list[str]:
        """argv that runs a Kafka tool class (e.g. org.apache.kafka.tools.ProducerPerformance) with
        `args` as the dedicated, separately capped producer. Never a shell string. `files`: host
        files the tool reads (a config file), visible to it at the same path. `jars`: a program of
        kcliff's own (the load generator) ahead of the release's jars on the classpath. `name`: what
        crash_tool finds it by, where it runs apart from the process kcliff starts (compose: its container)."""

    def program_command(self, argv: list[str]) -> list[str]:
        """argv that runs a program of kcliff's own off the JVM (the librdkafka load generator) as the
        dedicated, separately capped producer, where tool_command runs the perf tools. Never a shell string."""
        raise InputError(f"the {self.backend} backend cannot run kcliff's librdkafka load generator")

    def crash_tool(self, pid: int, name: str | None = None) -> None:
        """Crash a tool started from tool_command (SIGKILL: no shutdown hook runs), `pid` the process kcliff
        started, `name` the one it was given."""
        procs.crash(pid)

    def dead_nodes(self) -> list[int]:
        """Node ids whose broker process is no longer running (empty for an external cluster)."""
        return []

    @abstractmethod
    def down(self) -> None:
        """Stop everything this backend started; idempotent."""

    def process_mark(self) -> str | None:
        """procs.MARK_VAR of this cluster's processes on this host; None when none run here."""
        return None

    def container_ids(self) -> list[str]:
        """Docker containers running this cluster: their CPU time is the run's own, not other load."""
        return []

    def client_rtt_ms(self) -> float | None:
        """The producer-broker round trip when this backend knows it (None: a real network, unknown)."""
        return None

    def emulated_fsync_ms(self) -> float:
        """The least time each fsync of the brokers' data is held to (--fsync-delay-ms); 0: the disk's own."""
        return 0.0

    def bytes_capped(self) -> bool:
        """Whether this cluster's links or disks are capped, so bytes rather than CPU are meant to bind."""
        return False

    def usage(self) -> Usage | None:
        """Each broker's link and disk counters now, when this backend caps them (None: nothing capped)."""
        return None

    def controller_apart(self) -> bool:
        """Whether the controller quorum runs apart from the brokers, so two brokers may die and elections go on
        (False where kcliff cannot tell: an external cluster's faults are not kcliff's to make)."""
        return False

    def data_root(self) -> Path | None:
        """The host directory holding the brokers' logs, when the brokers write to this host's disk."""
        return None

    def describe(self) -> dict[str, Any]:
        """Facts for the results' environment block: backend name, caps."""
        return {"backend": self.backend}


class Faultable(Cluster):
    """A cluster whose brokers kcliff may crash, stop, pause and start again: one it started itself, or an
    external one whose operator gave the commands (--broker-control, backends/broker_control.py)."""

    abilities: ClassVar[Abilities] = Abilities(heal=True)

    @abstractmethod
    def heal(self) -> None:
        """Start again any node that died, keeping its data, and wait until the cluster is ready."""

    @abstractmethod
    def kill_broker(self, node_id: int) -> None:
        """Kill one node's broker at once (SIGKILL: no controlled shutdown), as a crash does; `heal` undoes it."""

    @abstractmethod
    def stop_broker(self, node_id: int, grace_s: float) -> None:
        """Stop one node's broker as an operator's restart does (SIGTERM: a controlled shutdown where the
        broker has it enabled), killed if still running after `grace_s`; `heal` starts it again."""

    @abstractmethod
    def pause_broker(self, node_id: int) -> None:
        """Freeze one node's broker (SIGSTOP): alive to the OS, silent to the cluster; `resume_broker` undoes it."""

    @abstractmethod
    def resume_broker(self, node_id: int) -> None:
        """Let a paused broker run again (SIGCONT)."""

    def missing_for(self, fault: Fault) -> str | None:
        """What this cluster lacks to make `fault` (None: nothing)."""
        return None


class Restartable(Faultable):
    """A cluster kcliff started itself, so it can also restart its brokers with other read-only settings."""

    abilities: ClassVar[Abilities] = Abilities(restart=True, heal=True)

    @abstractmethod
    def restart(self, overrides: dict[str, Any]) -> None:
        """Restart the brokers so `overrides` (read-only broker settings) are in force; an empty
        mapping restores the defaults."""


def restartable(cluster: Cluster) -> Restartable | None:
    """The cluster as one that restarts and heals, when its backend declares it can."""
    return cluster if isinstance(cluster, Restartable) and cluster.abilities.restart else None


def faultable(cluster: Cluster) -> Faultable | None:
    """The cluster as one whose brokers kcliff may crash and start again, when it can."""
    return cluster if isinstance(cluster, Faultable) and cluster.abilities.heal else None

"""The compose backend's byte caps (issue #42), as the local backend's: each broker container's link
held to --link-mbit each way (host/container_link.py: a tc token bucket on both ends of its veth pair),
its writes to its data volume paced to --disk-mb-s by the emulated disk's shim (backends/storage.py,
which also slows its fsyncs), and the counters of both that say which resource bound a run (Usage).

The links' qdiscs go with the containers (their veth pairs die with their network namespaces), so
`down`, Ctrl-C and the watchdog's removal of the project after a SIGKILL leave none behind; a broker
recreated (restart) or started again (heal) has new links, capped again once it runs (`started`).
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass, field
from pathlib import Path

from kcliff.backends import storage
from kcliff.backends.base import Usage
from kcliff.backends.compose_file import BROKERS, DATA_IN_CONTAINER, PRELOAD_LABEL, SHIM_IN_CONTAINER, ComposeCaps
from kcliff.backends.docker_cli import docker
from kcliff.errors import ClusterError, InputError
from kcliff.host import container_link, netns
from kcliff.host.container_link import ContainerLink

SERVICE_AND_PID = '{{index .Config.Labels "com.docker.compose.service"}} {{.State.Pid}}'
# The producer runs in a one-off container of a Kafka image, which has a JVM and no Python or librdkafka; run on
# the host instead, outside the producer service's caps, the librdkafka load generator would measure another rig.
NO_LIBRDKAFKA = ("the compose backend cannot measure a librdkafka client: its producer runs in a container of "
                 "the Kafka image, which holds no Python or librdkafka; use --backend local (or external)")


def require_root(caps: ComposeCaps) -> None:
    """Capped links enter the brokers' namespaces and shape the host's veths, and the disk's figures are
    read through /proc/<pid>/root: both need root (a ClusterError, exit 2, before anything starts)."""
    if caps.link_mbit > 0 or caps.disk_mb_s > 0:
        netns.require_root("and disks on the compose backend shape each broker container's veth with tc and "
                           "read its log through /proc")


def shim_variables(caps: ComposeCaps) -> dict[str, str]:
    """The compose file's variables for the shim: the host's build to mount, its fsync delay and write cap;
    none when the disk is the containers' own."""
    if not caps.shim:
        return {}
    libc = storage.Libc(caps.shim_libc)
    # the stand-in's entry point preloads the shim into the broker JVM alone; apache/kafka's has no such
    # hook, so every process of its containers preloads the musl build (it acts on the data dir's files only)
    preload = {"KCLIFF_BROKER_PRELOAD": SHIM_IN_CONTAINER} if libc is storage.Libc.GLIBC else {
        "KCLIFF_LD_PRELOAD": SHIM_IN_CONTAINER}
    return {"KCLIFF_FSYNC_DELAY_LIB": str(storage.find_library(libc)),
            "KCLIFF_FSYNC_DELAY_MS": f"{caps.fsync_delay_ms:g}", **preload, **storage.write_pacing(caps.disk_mb_s)}


def emulation_caps(caps: ComposeCaps, image: str) -> ComposeCaps:
    """`caps` with the disk emulated on `image`: an image whose entry point preloads the shim into its broker
    JVM (KCLIFF_BROKER_PRELOAD: kcliff's stand-in, glibc) gets this host's build; any other (apache/kafka:
    Alpine) the musl build, preloaded into every process of its containers. Without musl-gcc an explicit
    --fsync-delay-ms or a disk cap is refused there (exit 2) and kcliff's default delay is dropped (the
    check then says which canaries it cannot vouch for)."""
    if not caps.shim:
        return caps
    labels = docker("image", "inspect", "-f", "{{json .Config.Labels}}", image, check=False).stdout.strip()
    libc = storage.Libc.GLIBC if PRELOAD_LABEL in (json.loads(labels or "null") or {}) else storage.Libc.MUSL
    try:
        storage.find_library(libc)  # a missing compiler fails before anything starts
    except ClusterError as exc:
        if libc is storage.Libc.GLIBC or caps.fsync_delay_given or caps.disk_mb_s > 0:
            raise InputError(f"--fsync-delay-ms or --disk-mb-s on the compose backend with {image}: {exc}; or give "
                             "--fsync-delay-ms 0 and no disk cap to measure on the containers' own disk") from None
        return dataclasses.replace(caps, fsync_delay_ms=0.0)
    return dataclasses.replace(caps, shim_libc=libc.value)


def service_pids(inspected: str) -> dict[str, int]:
    """Service -> main pid, from `docker inspect -f SERVICE_AND_PID` of the brokers' containers."""
    pids = {}
    for line in inspected.splitlines():
        service, _, pid = line.strip().rpartition(" ")
        if service and pid.isdigit() and int(pid) > 0:
            pids[service] = int(pid)
    return pids


@dataclass
class CappedBrokers:
    """Each broker container's capped link and its data, found again each time containers start."""

    caps: ComposeCaps
    pids: dict[str, int] = field(default_factory=dict)  # service -> its container's main process
    links: dict[str, ContainerLink] = field(default_factory=dict)

    @property
    def capped(self) -> bool:
        return self.caps.link_mbit > 0 or self.caps.disk_mb_s > 0

    def started(self, container_ids: list[str]) -> None:
        """Note the containers just started (running) and cap their links."""
        if not self.capped or not container_ids:
            return
        found = service_pids(docker("inspect", "-f", SERVICE_AND_PID, *container_ids).stdout)
        for service, pid in found.items():
            self.pids[service] = pid
            if self.caps.link_mbit > 0:
                self.links[service] = container_link.find(pid)
                self.links[service].cap(netns.LinkCap(self.caps.link_mbit))

    def usage(self) -> Usage | None:
        """Each broker's link counters and log bytes now (the broker's order: kafka-1..3)."""
        if not self.capped:
            return None
        missing = [name for name in BROKERS if name not in self.pids]
        if missing:
            raise ClusterError(f"no running container noted for {', '.join(missing)}")
        links = [self.links[name].counters() if name in self.links else (0, 0) for name in BROKERS]
        # the volume seen through the container's own root: no process started, no docker call
        logs = [storage.log_bytes(Path(f"/proc/{self.pids[name]}/root{DATA_IN_CONTAINER}")) for name in BROKERS]
        return Usage(tuple(rx for rx, _ in links), tuple(tx for _, tx in links), tuple(logs),
                     self.caps.link_mbit / 8 if self.caps.link_mbit > 0 else None, self.caps.disk_mb_s or None)

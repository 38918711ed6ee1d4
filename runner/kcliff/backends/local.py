"""The embedded default: three combined-mode KRaft nodes as separate JVMs on loopback, no Docker (or
three brokers beside a controller of their own, `Caps.controller_apart`: backends/local_nodes.py).

Each node gets its own directory under the run directory (server.properties, data/, broker.log).
Ports are picked free at start-up, so a Kafka the user already runs is never disturbed.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kcliff.backends import replication_rtt
from kcliff.backends.admin import Admin
from kcliff.backends.base import Restartable, Usage, free_ports, new_cluster_id
from kcliff.backends.latency import LatencyProxy
from kcliff.backends.local_nodes import CONTROLLER_ID, NODES, Node, controller_properties, server_properties, voters
from kcliff.backends.storage import broker_env, find_library, log_bytes
from kcliff.errors import ClusterError
from kcliff.host import procs
from kcliff.host.netns import Fabric, LinkCap, new_fabric, require_root
from kcliff.host.leftovers import STATE_FILE
from kcliff.kafka import dist as kafka_dist
from kcliff.kafka.release import BROKER_CLASS, STORAGE_CLASS, KafkaRelease, LogRole

READY_TIMEOUT_S = 90.0


@dataclass
class Caps:
    broker_heap_mb: int = 1024
    broker_cpus: str | None = None  # taskset list, e.g. "0" or "0-1"
    producer_heap_mb: int = 512
    producer_cpus: str | None = None
    client_rtt_ms: float = 0.0  # producer <-> broker round trip added by a latency proxy (latency.py)
    fsync_delay_ms: float = 0.0  # least time of each fsync of the brokers' data (storage.py)
    fsync_delay_given: bool = True  # False: the default; a backend that cannot emulate it says so and goes on
    link_mbit: float = 0.0  # each broker's NIC, each way: brokers in namespaces of their own (host/netns.py)
    disk_mb_s: float = 0.0  # each broker's disk write throughput, MB/s (storage.py)
    replication_rtt_ms: int = 0  # follower <-> leader round trip (cross-zone) added by a proxy (replication_rtt.py)
    replication_rtt_given: bool = False  # given on the command line: it wins over a rig profile's, 0 too
    controller_apart: bool = False  # the quorum in a JVM of its own, not the brokers' (local_nodes.py)

    @property
    def shim(self) -> bool:
        """Whether the brokers preload the emulated disk's shim."""
        return self.fsync_delay_ms > 0 or self.disk_mb_s > 0


@dataclass
class LocalCluster(Restartable):
    workdir: Path
    libs: Path
    caps: Caps = field(default_factory=Caps)
    overrides: dict[str, Any] = field(default_factory=dict)
    nodes: list[Node] = field(default_factory=list)
    cluster_id: str = ""
    backend: str = "local"
    owned: bool = True  # False for a cluster `kcliff cluster up` left running: it must outlive this process
    proxy: LatencyProxy | None = None
    replication_proxy: LatencyProxy | None = None  # followers' fetches cross it (replication_rtt.py)
    fabric: Fabric | None = None  # the brokers' namespaces and capped links, when links are capped
    mark: str = ""  # procs.MARK_VAR of its processes: this run's, or the `cluster up` cluster's own
    controller: Node | None = None  # the controller apart, when caps.controller_apart

    @property
    def admin_bootstrap(self) -> str:
        return ",".join(f"{n.host}:{n.broker_port}" for n in self.nodes)

    @property
    def release(self) -> KafkaRelease:
        return kafka_dist.release_of(self.libs)

    @property
    def tool_bootstrap(self) -> str:
        if self.proxy is None:
            return self.admin_bootstrap
        return ",".join(f"127.0.0.1:{n.proxy_port}" for n in self.nodes)

    def start(self) -> None:
        """Format and start all nodes, then wait until ready. On any failure, stop what started."""
        began = time.monotonic()
        self.workdir.mkdir(parents=True, exist_ok=True)
        self.mark = procs.run_mark() if self.owned else procs.cluster_mark(self.workdir)
        ports = free_ports(6 * len(NODES) + 1)  # the last two per node for a replication round trip
        self.cluster_id = new_cluster_id()
        self.nodes = [Node(i, ports[4 * k], ports[4 * k + 1], self.workdir / f"node-{i}")
                      for k, i in enumerate(NODES)]
        if self.caps.controller_apart:
            self.controller = Node(CONTROLLER_ID, 0, ports[-1], self.workdir / "controller")
        try:
            if self.caps.shim:
                find_library()  # a missing shim fails before anything starts
            if self.caps.link_mbit > 0:
                self._make_fabric()
            if self.caps.client_rtt_ms > 0:
                for k, node in enumerate(self.nodes):
                    node.client_port, node.proxy_port = ports[4 * k + 2], ports[4 * k + 3]
                self.proxy = LatencyProxy(self.caps.client_rtt_ms, self.workdir / "toxiproxy.log", register=self.owned,
                                          mark=self.mark)
                self.proxy.start({n.proxy_port: f"{n.host}:{n.client_port}" for n in self.nodes
                                  if n.proxy_port and n.client_port})
            if self.caps.replication_rtt_ms > 0:
                self.replication_proxy = replication_rtt.start(
                    self.nodes, ports[4 * len(NODES):-1], self.fabric.host_address if self.fabric else "127.0.0.1",
                    self.caps.replication_rtt_ms, self.workdir, self.owned, self.mark)
            self._write_configs()
            self._format()
            self._launch()
            self.wait_ready()
        except BaseException:
            self.down()
            raise
        self.bringup_s = round(time.monotonic() - began, 2)
        self.save_state()

    def _make_fabric(self) -> None:
        """Each broker in a namespace of its own behind a link capped at caps.link_mbit each way."""
        require_root()
        self.fabric = new_fabric(len(self.nodes))
        if self.owned:
            for argv in self.fabric.removal_argvs():
                procs.on_death(argv)
        self.fabric.create()
        for node in self.nodes:
            node.host = self.fabric.address(node.node_id)
            self.fabric.cap(node.node_id, LinkCap(self.caps.link_mbit))
        if self.controller is not None:  # uncapped, on the host's end of the fabric
            self.controller.host = self.fabric.host_address

    def _all_nodes(self) -> list[Node]:
        """Every JVM of the cluster: the brokers, and the controller apart when there is one."""
        return self.nodes + ([self.controller] if self.controller is not None else [])

    def _write_configs(self) -> None:
        quorum = voters(self.nodes, self.controller)
        for node in self.nodes:
            node.directory.mkdir(parents=True, exist_ok=True)
            node.config.write_text(server_properties(node, quorum, self.overrides, apart=self.controller is not None))
        if self.controller is not None:
            self.controller.directory.mkdir(parents=True, exist_ok=True)
            self.controller.config.write_text(controller_properties(self.controller, quorum, self.overrides))

    def _format(self) -> None:
        """Format all nodes' storage in parallel (one short JVM each)."""
        running = []
        for node in self._all_nodes():
            argv = kafka_dist.java_command(self.libs, STORAGE_CLASS, 256, archived=True) + [
                "format", "-t", self.cluster_id, "-c", str(node.config), "--ignore-formatted"]
            running.append((node, procs.spawn(argv, log=node.directory / "format.log", mark=self.mark)))
        for node, proc in running:
            try:
                code = proc.wait(timeout=120)
            except subprocess.TimeoutExpired:
                procs.stop(proc)
                raise ClusterError(f"formatting node {node.node_id} took over 120 s") from None
            procs.stop(proc)
            if code != 0:
                tail = (node.directory / "format.log").read_text(errors="replace")[-600:]
                raise ClusterError(f"formatting node {node.node_id} failed (exit {code}):\n{tail}")

    def _launch(self, only: list[int] | None = None) -> None:
        for node in self._all_nodes():
            if only is not None and node.node_id not in only:
                continue
            # from a class archive, as the tools: three brokers loading their classes at once on a shared
            # host; 1.6 s of a 20.8 s start here (docs/measurements.md, "Tool start-up")
            argv = kafka_dist.java_command(self.libs, BROKER_CLASS, self.caps.broker_heap_mb, LogRole.BROKER,
                                           self.caps.broker_cpus, archived=True)
            argv.append(str(node.config))
            if self.fabric is not None and node is not self.controller:
                argv = self.fabric.exec_prefix(node.node_id) + argv
            node.log_mark = node.log.stat().st_size if node.log.exists() else 0
            node.proc = procs.spawn(argv, log=node.log, register=self.owned, mark=self.mark,
                                    env=self._broker_env(node))
            node.pid = node.proc.pid

    def _broker_env(self, node: Node) -> dict[str, str]:
        """What a broker JVM adds to its environment: the shim when storage is emulated."""
        if not self.caps.shim:
            return {}
        return broker_env(self.caps.fsync_delay_ms, node.directory / "data", find_library(), self.caps.disk_mb_s)

    def wait_ready(self, timeout: float = READY_TIMEOUT_S) -> None:
        """Ready: every node's process started, all three brokers registered, and a
        replication-factor-3 topic can be created."""
        deadline = time.monotonic() + timeout
        admin = Admin(self.admin_bootstrap)
        while time.monotonic() < deadline:
            dead = self.dead_nodes()
            if dead:
                raise ClusterError(f"node {dead[0]} exited during start-up; see {self.workdir / f'node-{dead[0]}' / 'broker.log'}")
            if all(n.started() for n in self._all_nodes()) and len(admin.broker_ids(timeout=2)) == len(NODES):
                break
            time.sleep(0.5)
        else:
            raise ClusterError(f"brokers not all started and registered after {timeout:.0f}s; logs under {self.workdir}")
        admin.prove_writable(max(deadline - time.monotonic(), 10.0))

    def tool_command(self, main_class: str, args: list[str], files: tuple[Path, ...] = (),
                     jars: tuple[Path, ...] = (), name: str | None = None) -> list[str]:
        return kafka_dist.java_command(self.libs, main_class, self.caps.producer_heap_mb,
                                       cpus=self.caps.producer_cpus, archived=True, jars=jars) + args

    def program_command(self, argv: list[str]) -> list[str]:
        return kafka_dist.pinned(self.caps.producer_cpus) + argv  # on the producer's CPUs, as its JVM runs

    def restart(self, overrides: dict[str, Any]) -> None:
        self._stop_nodes()
        self.overrides = dict(overrides)
        self._write_configs()
        self._launch()
        self.wait_ready()
        self.save_state()

    def dead_nodes(self) -> list[int]:
        return [n.node_id for n in self._all_nodes() if n.pid is None or not procs.pid_alive(n.pid)]

    def heal(self) -> None:
        self._launch(only=self.dead_nodes())
        self.wait_ready()
        self.save_state()

    def kill_broker(self, node_id: int) -> None:
        self._end_node(node_id, None)

    def start_broker(self, node_id: int) -> None:
        """Start one node's broker again with its data, unless it runs, and wait until the controller unfenced it
        (`kcliff cluster broker start`, as a --broker-control start command)."""
        if node_id not in self.dead_nodes():
            return
        self._launch(only=[node_id])
        self.save_state()
        node, deadline = self._node(node_id), time.monotonic() + READY_TIMEOUT_S
        while not node.started():
            if node_id in self.dead_nodes() or time.monotonic() > deadline:
                raise ClusterError(f"node {node_id} did not start; see {node.log}")
            time.sleep(0.2)

    def stop_broker(self, node_id: int, grace_s: float) -> None:
        self._end_node(node_id, grace_s)

    def pause_broker(self, node_id: int) -> None:
        self._signal(node_id, signal.SIGSTOP)

    def resume_broker(self, node_id: int) -> None:
        self._signal(node_id, signal.SIGCONT)

    def _signal(self, node_id: int, signum: signal.Signals) -> None:
        node = self._node(node_id)
        if node.pid is not None and procs.started_with(node.pid, node.config):
            if signum is signal.SIGSTOP and not self.owned:  # kcliff's death must not leave it paused
                procs.on_death(["kill", "-CONT", str(node.pid)])
            os.kill(node.pid, signum)

    def controller_apart(self) -> bool:
        return self.controller is not None

    def _node(self, node_id: int) -> Node:
        return next(n for n in self._all_nodes() if n.node_id == node_id)

    def _end_node(self, node_id: int, grace_s: float | None) -> None:
        """One node's process ended: SIGKILLed at once (grace_s None), else stopped within `grace_s`."""
        node = self._node(node_id)
        if node.pid is not None and procs.started_with(node.pid, node.config):
            if grace_s is None:
                procs.crash(node.pid)
            else:
                procs.stop_pids([node.pid], grace_s)
        if node.proc is not None:
            procs.stop(node.proc, grace_s=0.0)  # reaped and forgotten: its pid may be another's later

    def _stop_nodes(self, grace_s: float = 8.0) -> None:
        """All nodes asked to stop at once: stopped one by one, the last one's broker lost the quorum
        and was killed at the grace's end, and with a long broker.session.timeout.ms its registration
        then outlived its restart (DuplicateBrokerRegistration until the broker gave up, and died)."""
        ours = [n.pid for n in self._all_nodes() if n.pid is not None
                and (n.proc is not None or procs.started_with(n.pid, n.config))]
        procs.stop_pids(ours, grace_s)
        for node in self._all_nodes():
            if node.proc is not None:
                procs.stop(node.proc, grace_s=0.0)  # reaped and forgotten
            node.proc = None
            node.pid = None

    def down(self) -> None:
        # The data is removed below, so a graceful shutdown would protect nothing; it cost 9-15 s,
        # the last broker waiting out its raft client's timeout once the quorum had gone.
        self._stop_nodes(grace_s=0.0)
        for proxy in (self.proxy, self.replication_proxy):
            if proxy is not None:
                proxy.stop()
        if self.fabric is not None:
            self.fabric.delete()
        (self.workdir / STATE_FILE).unlink(missing_ok=True)
        for node in self._all_nodes():
            _remove_tree(node.directory / "data")

    def data_root(self) -> Path | None:
        return self.workdir

    def process_mark(self) -> str | None:
        return self.mark

    def client_rtt_ms(self) -> float | None:
        return self.caps.client_rtt_ms

    def bytes_capped(self) -> bool:
        return self.caps.link_mbit > 0 or self.caps.disk_mb_s > 0

    def usage(self) -> Usage | None:
        if self.fabric is None and self.caps.disk_mb_s <= 0:
            return None
        links = [self.fabric.counters(n.node_id) if self.fabric else (0, 0) for n in self.nodes]
        return Usage(tuple(rx for rx, _ in links), tuple(tx for _, tx in links),
                     tuple(log_bytes(n.directory / "data") for n in self.nodes),
                     self.caps.link_mbit / 8 if self.fabric else None, self.caps.disk_mb_s or None)

    def emulated_fsync_ms(self) -> float:
        return self.caps.fsync_delay_ms

    def describe(self) -> dict[str, Any]:
        return {"backend": self.backend, "caps": vars(self.caps), "bootstrap": self.admin_bootstrap,
                "workdir": str(self.workdir), "broker_jvm_options": list(kafka_dist.BROKER_JVM_OPTIONS)}

    def save_state(self) -> None:
        state = {"backend": "local", "cluster_id": self.cluster_id, "libs": str(self.libs), "caps": vars(self.caps),
                 "overrides": self.overrides, "bringup_s": self.bringup_s, "mark": self.mark,
                 "proxy": {"api_port": self.proxy.api_port, "pid": self.proxy.pid} if self.proxy else None,
                 "replication_proxy": replication_rtt.saved(self.replication_proxy),
                 "fabric": vars(self.fabric) if self.fabric else None,
                 "nodes": [_node_state(n) for n in self.nodes],
                 "controller": _node_state(self.controller) if self.controller else None}
        (self.workdir / STATE_FILE).write_text(json.dumps(state, indent=2))

    @classmethod
    def from_state(cls, workdir: Path) -> LocalCluster | None:
        """The cluster `kcliff cluster up` left running in `workdir`, or None."""
        path = workdir / STATE_FILE
        if not path.is_file():
            return None
        state = json.loads(path.read_text())
        cluster = cls(workdir, Path(state["libs"]), Caps(**state["caps"]), state["overrides"],
                      [_node_of(n) for n in state["nodes"]], state["cluster_id"], owned=False,
                      mark=state.get("mark") or procs.cluster_mark(workdir),
                      controller=_node_of(state["controller"]) if state.get("controller") else None)
        if state.get("proxy"):
            cluster.proxy = LatencyProxy(cluster.caps.client_rtt_ms, workdir / "toxiproxy.log", register=False,
                                         mark=cluster.mark, api_port=state["proxy"]["api_port"],
                                         pid=state["proxy"]["pid"])
        cluster.replication_proxy = replication_rtt.restored(state.get("replication_proxy"),
                                                             cluster.caps.replication_rtt_ms, workdir, cluster.mark)
        if state.get("fabric"):
            cluster.fabric = Fabric(**state["fabric"])
        cluster.bringup_s = state.get("bringup_s")
        return cluster


def _node_state(n: Node) -> dict[str, Any]:
    return {"node_id": n.node_id, "broker_port": n.broker_port, "controller_port": n.controller_port, "host": n.host,
            "client_port": n.client_port, "proxy_port": n.proxy_port, "replication_port": n.replication_port,
            "replication_proxy": n.replication_proxy, "directory": str(n.directory), "pid": n.pid}


def _node_of(n: dict[str, Any]) -> Node:
    return Node(n["node_id"], n["broker_port"], n["controller_port"], Path(n["directory"]), n.get("host", "127.0.0.1"),
                None, n["pid"], n.get("client_port"), n.get("proxy_port"), replication_port=n.get("replication_port"),
                replication_proxy=n.get("replication_proxy"))


def _remove_tree(path: Path) -> None:
    import shutil
    shutil.rmtree(path, ignore_errors=True)


def shared_dir(workdir: Path) -> Path:
    """Where `kcliff cluster up` keeps the cluster it leaves running for later commands."""
    return workdir / "cluster"


def start_local_cluster(workdir: Path, kafka_version: str, caps: Caps | None = None,
                        kafka_home: str | None = None, owned: bool = True) -> LocalCluster:
    """Start a cluster; `owned=False` leaves it running after this process exits (`kcliff cluster up`)."""
    kafka_dist.java_version()
    libs = kafka_dist.ensure(kafka_version, kafka_home)
    cluster = LocalCluster(workdir, libs, caps or Caps(), owned=owned)
    cluster.start()
    return cluster

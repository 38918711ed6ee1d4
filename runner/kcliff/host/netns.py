"""Capped links: every broker in a network namespace of its own, each joined by a veth pair to a
switch namespace holding a bridge, and this host joined to the same bridge.

Why a switch namespace: the bridge lives where no firewall does. In the host's own namespace Docker's
FORWARD policy (DROP) filters bridged traffic once br_netfilter is loaded, so broker-to-broker bytes
were dropped there; a new namespace has its own, empty rules. Each broker's veth carries a tc
token-bucket (tbf) qdisc per direction: the switch's end shapes what reaches the broker (produce and
replication in), the broker's end what it sends (replication out, fetches). So one cap per broker
stands for its NIC, as on a cluster whose brokers each have one. Clients stay in the host's namespace
and reach the brokers through the bridge, uncapped of their own (production has many client hosts).

Everything is named `kcliff-<pid>-<hex>-...` after the kcliff process that made it: deleting the
namespaces removes their links, and what a dead owner left is reaped (`reap`).
"""

from __future__ import annotations

import os
import re
import secrets
import subprocess
from dataclasses import dataclass
from pathlib import Path

from kcliff.errors import ClusterError

PREFIX = "kcliff-"
SUBNET = "10.211"  # /24s of 10.211.N.0 below; N picked free (nothing else here uses 10.211)
NETNS_DIR = Path("/var/run/netns")
_TAG = re.compile(r"kcliff-(?P<pid>\d+)-(?P<hex>[0-9a-f]{6})")
TIMEOUT_S = 20
# tbf's bucket: 1 MiB (the largest request or replica fetch response Kafka sends by default) or 10 ms of
# the rate: a rig's link is tens of times slower than production's, and one request's time must not be;
# sustained load still drains the bucket and is held to the cap (docs/profiles.md)
MIN_BURST_BYTES = 1 << 20
QUEUE_LATENCY_MS = 50


def _ip(*args: str, netns: str | None = None) -> str:
    argv = ["ip", *(["-n", netns] if netns else []), *args]
    return run(argv)


def run(argv: list[str]) -> str:
    """Run one ip, tc or nsenter argv (never a shell): its stdout, or a ClusterError with its stderr."""
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=TIMEOUT_S)
    except FileNotFoundError:
        raise ClusterError(f"{argv[0]} not found: capped links need iproute2 (ip, tc) and util-linux "
                           "(nsenter)") from None
    if done.returncode != 0:
        raise ClusterError(f"{' '.join(argv)} failed: {done.stderr.strip()[-300:]}")
    return done.stdout


def require_root(how: str = "put each broker in a network namespace of its own") -> None:
    """Capped links make namespaces and shape links: root only (a ClusterError, exit 2, otherwise)."""
    if os.geteuid() != 0:
        raise ClusterError(f"capped links (--profile, --link-mbit) {how}: that needs root (CAP_NET_ADMIN); "
                           "run kcliff as root or drop the caps")


@dataclass(frozen=True)
class LinkCap:
    """One broker's NIC: the bandwidth each way, in megabits per second (0: uncapped)."""

    mbit: float

    def burst_bytes(self) -> int:
        return max(MIN_BURST_BYTES, int(self.mbit * 1e6 / 8 * 0.010))


def tbf_qdisc(dev: str, cap: LinkCap) -> list[str]:
    """`tc` arguments (after any namespace option) that hold what leaves `dev` to `cap`: the one rule for
    every capped link kcliff makes, the fabric's and the compose backend's containers' alike."""
    return ["qdisc", "replace", "dev", dev, "root", "tbf", "rate", f"{cap.mbit:g}mbit", "burst",
            str(cap.burst_bytes()), "latency", f"{QUEUE_LATENCY_MS}ms"]


@dataclass
class Fabric:
    """The namespaces and links of one cluster: node k (1-based) at 10.211.<subnet>.<10+k>, this host at .1."""

    tag: str
    subnet: int
    nodes: int

    @property
    def switch(self) -> str:
        return f"{self.tag}-sw"

    def netns(self, node: int) -> str:
        return f"{self.tag}-b{node}"

    def address(self, node: int) -> str:
        return f"{SUBNET}.{self.subnet}.{10 + node}"

    @property
    def host_address(self) -> str:
        """This host's address on the fabric: where brokers reach a process of the host's namespace."""
        return f"{SUBNET}.{self.subnet}.1"

    @property
    def host_link(self) -> str:
        return _host_link(self.tag)

    def exec_prefix(self, node: int) -> list[str]:
        """argv before a command that runs inside node `node`'s namespace (exec'd: the pid is the command's)."""
        return ["ip", "netns", "exec", self.netns(node)]

    def create(self) -> None:
        """Make the switch, this host's link to it and every node's namespace; undone on failure."""
        try:
            _ip("netns", "add", self.switch)
            _ip("link", "add", "br0", "type", "bridge", netns=self.switch)
            _ip("link", "set", "lo", "up", netns=self.switch)
            _ip("link", "set", "br0", "up", netns=self.switch)
            _ip("link", "add", self.host_link, "type", "veth", "peer", "name", "up0", "netns", self.switch)
            _ip("link", "set", "up0", "master", "br0", "up", netns=self.switch)
            _ip("addr", "add", f"{self.host_address}/24", "dev", self.host_link)
            _ip("link", "set", self.host_link, "up")
            for node in range(1, self.nodes + 1):
                self._add_node(node)
        except BaseException:
            self.delete()
            raise

    def _add_node(self, node: int) -> None:
        ns, port = self.netns(node), f"b{node}"
        _ip("netns", "add", ns)
        _ip("link", "add", "eth0", "type", "veth", "peer", "name", port, "netns", self.switch, netns=ns)
        _ip("link", "set", port, "master", "br0", "up", netns=self.switch)
        _ip("addr", "add", f"{self.address(node)}/24", "dev", "eth0", netns=ns)
        _ip("link", "set", "eth0", "up", netns=ns)
        _ip("link", "set", "lo", "up", netns=ns)

    def cap(self, node: int, cap: LinkCap) -> None:
        """Hold node `node`'s traffic to `cap` each way (in: the switch's port; out: the node's eth0)."""
        for netns, dev in ((self.switch, f"b{node}"), (self.netns(node), "eth0")):
            if cap.mbit <= 0:
                continue
            run(["tc", "-n", netns, *tbf_qdisc(dev, cap)])

    def counters(self, node: int) -> tuple[int, int]:
        """Bytes node `node` has received and sent on its link (its eth0's rx and tx counters)."""
        out = run(["ip", "netns", "exec", self.netns(node), "cat", "/sys/class/net/eth0/statistics/rx_bytes",
                   "/sys/class/net/eth0/statistics/tx_bytes"])
        rx, tx = (int(v) for v in out.split())
        return rx, tx

    def delete(self) -> None:
        """Remove every namespace (their links go with them); idempotent."""
        for argv in self.removal_argvs():
            subprocess.run(argv, capture_output=True, timeout=TIMEOUT_S)

    def removal_argvs(self) -> list[list[str]]:
        """The commands that undo this fabric, for the watchdog to run should kcliff be SIGKILLed."""
        names = [self.netns(n) for n in range(1, self.nodes + 1)] + [self.switch]
        return [["ip", "netns", "delete", name] for name in names] + [["ip", "link", "delete", self.host_link]]


def new_fabric(nodes: int) -> Fabric:
    """A fabric named after this process, on a /24 no other fabric of this host uses."""
    used = {int(m) for m in re.findall(rf"inet {re.escape(SUBNET)}\.(\d+)\.", _ip("-4", "addr", "show"))}
    free = next((n for n in range(1, 255) if n not in used), None)
    if free is None:
        raise ClusterError(f"no free {SUBNET}.N.0/24 left for capped links: delete other kcliff fabrics")
    return Fabric(f"{PREFIX}{os.getpid()}-{secrets.token_hex(3)}", free, nodes)


def _host_link(tag: str) -> str:
    """This host's end of a fabric's switch link: a name of at most 15 characters."""
    return "kc" + tag.rsplit("-", 1)[1]


def _pids_inside(netns: str) -> bool:
    done = subprocess.run(["ip", "netns", "pids", netns], capture_output=True, text=True, timeout=TIMEOUT_S)
    return bool(done.stdout.strip())


def reap() -> list[str]:
    """Delete fabrics whose maker is gone and in whose namespaces nothing runs (a `kcliff cluster up`
    cluster outlives its maker, but its brokers run inside); one sentence per fabric removed."""
    if os.geteuid() != 0 or not NETNS_DIR.is_dir():
        return []
    tags: dict[str, list[str]] = {}
    for entry in NETNS_DIR.iterdir():
        found = _TAG.match(entry.name)
        if found:
            tags.setdefault(found.group(0), []).append(entry.name)
    said = []
    for tag, names in sorted(tags.items()):
        pid = int(tag.split("-")[1])
        if Path(f"/proc/{pid}").exists() or any(_pids_inside(n) for n in names):
            continue
        for name in names:
            subprocess.run(["ip", "netns", "delete", name], capture_output=True, timeout=TIMEOUT_S)
        subprocess.run(["ip", "link", "delete", _host_link(tag)], capture_output=True, timeout=TIMEOUT_S)
        said.append(f"removed the network namespaces of a dead kcliff run ({tag})")
    return said

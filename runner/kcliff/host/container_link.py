"""A container's link capped from the host (the compose backend's brokers, issue #42), as host/netns.py
caps a fabric's: a token bucket (netns.tbf_qdisc, the one rule) on each end of the veth pair that joins
the container to its network. The container's end (its eth0, shaped from inside its network namespace
with `nsenter --net`, running this host's tc) holds what it sends; the host's end, found by eth0's link
index, holds what it takes in. One cap per container is its NIC; containers not capped (the producer)
have none of their own.

Nothing here needs undoing: a qdisc lives on its device, and both ends of a container's veth pair go with
the container's network namespace, i.e. when the container stops or is removed (`compose down`, the
watchdog's removal of the project after a SIGKILL, a broker recreated or killed). A container started
again has new links, which its owner caps again.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kcliff.errors import ClusterError
from kcliff.host.netns import LinkCap, run, tbf_qdisc

DEVICE = "eth0"  # a container's one interface on its (compose) network


@dataclass(frozen=True)
class ContainerLink:
    """One container's link: `pid` is any of its processes (its network namespace is the container's),
    `peer` the host's end of its eth0."""

    pid: int
    peer: str

    def cap_argvs(self, cap: LinkCap) -> list[list[str]]:
        """The two tc calls that hold the link to `cap` each way: out on eth0 inside, in on the host's end."""
        return [["nsenter", "--target", str(self.pid), "--net", "tc", *tbf_qdisc(DEVICE, cap)],
                ["tc", *tbf_qdisc(self.peer, cap)]]

    def cap(self, cap: LinkCap) -> None:
        for argv in self.cap_argvs(cap):
            run(argv)

    def counters(self) -> tuple[int, int]:
        """Bytes the container has received and sent on eth0: /proc/<pid>/net/dev is its namespace's
        table, read without a process started (the bottleneck sampler asks every second)."""
        try:
            text = Path(f"/proc/{self.pid}/net/dev").read_text()
        except OSError as exc:  # the container is gone (a broker killed): its window has no link figure
            raise ClusterError(f"the link counters of process {self.pid} are gone: {exc}") from None
        return net_dev_counters(text, DEVICE)


def find(pid: int) -> ContainerLink:
    """The link of the container whose process is `pid` (root: it enters the container's namespace)."""
    inside = json.loads(run(["nsenter", "--target", str(pid), "--net", "ip", "-json", "link", "show", "dev", DEVICE]))
    host = json.loads(run(["ip", "-json", "link", "show"]))
    return ContainerLink(pid, peer_name(inside, host))


def peer_name(inside: list[dict[str, Any]], host: list[dict[str, Any]]) -> str:
    """The host's end of a veth pair, from `ip -json link` of its container's end and of this host: the
    link whose index is the container end's link index and whose own link index is that end's index."""
    end = inside[0]
    for link in host:
        if link.get("ifindex") == end.get("link_index") and link.get("link_index") == end.get("ifindex"):
            return str(link["ifname"])
    raise ClusterError(f"the host's end of a container's {DEVICE} (index {end.get('link_index')}) is not in this "
                       "network namespace: kcliff must run in the Docker engine's namespace to cap its containers")


def net_dev_counters(text: str, device: str) -> tuple[int, int]:
    """`device`'s received and sent bytes in a /proc/net/dev table (the 1st and 9th figures after its name)."""
    for line in text.splitlines():
        name, colon, figures = line.partition(":")
        if colon and name.strip() == device:
            values = figures.split()
            return int(values[0]), int(values[8])
    raise ClusterError(f"no {device} in /proc/net/dev: {text[-300:]!r}")

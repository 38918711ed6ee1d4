"""A replication round trip (cross-zone): followers fetch from their leaders through toxiproxy.

Brokers in different availability zones pay a round trip between zones on every follower fetch, and
an acks=all produce waits for one: the fetch response carrying its batch to a follower, and the next
fetch telling the leader the follower has it. On loopback that costs microseconds. With
--replication-rtt-ms each broker gets a listener of its own for replication (REPLICATION, made
`inter.broker.listener.name`), advertised at a port of a toxiproxy that adds the round trip, its
requests delayed by half of it and its responses by the other half (latency.one_way_ms). Clients,
admin calls and the controller quorum keep their direct listeners: --client-rtt-ms is separate.

The proxy runs in the host's namespace, as the client proxy does. With capped links (host/netns.py)
the brokers reach it at the host's end of the fabric, so a replicated byte still crosses the
leader's capped link out and the follower's in, once each, through the bridge.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Protocol, Sequence

from kcliff.backends.latency import LatencyProxy

LISTENER = "REPLICATION"
LOG = "replication-toxiproxy.log"  # its config beside it (.json) names the process as this cluster's


class Wired(Protocol):
    """What of a broker (local.Node) the wiring reads and sets."""

    host: str
    replication_port: int | None  # the broker's own replication listener
    replication_proxy: str | None  # host:port followers are told: the proxy in front of that listener


def listeners(node: Wired) -> tuple[list[str], list[str], str]:
    """The listeners and advertised listeners a broker adds for replication, and the name of the
    inter-broker listener: PLAINTEXT, as without a round trip, when it has none."""
    if not (node.replication_port and node.replication_proxy):
        return [], [], "PLAINTEXT"
    return ([f"{LISTENER}://{node.host}:{node.replication_port}"], [f"{LISTENER}://{node.replication_proxy}"],
            LISTENER)


def wire(nodes: Sequence[Wired], ports: Sequence[int], proxy_host: str) -> dict[int, str]:
    """Give each broker a replication port and the proxy port in front of it (two of `ports` each, found
    free on this host); the proxy listens on `proxy_host`. Returns its routes: listen port to broker."""
    routes = {}
    for k, node in enumerate(nodes):
        node.replication_port, listen = ports[2 * k], ports[2 * k + 1]
        node.replication_proxy = f"{proxy_host}:{listen}"
        routes[listen] = f"{node.host}:{node.replication_port}"
    return routes


def start(nodes: Sequence[Wired], ports: Sequence[int], proxy_host: str, rtt_ms: int, workdir: Path,
          register: bool, mark: str) -> LatencyProxy:
    """Wire the brokers and start the proxy (a process of this cluster's, stopped by down(), reaped as
    the client proxy is); brokers started after this fetch through it."""
    proxy = LatencyProxy(rtt_ms, workdir / LOG, register=register, mark=mark, listen_host=proxy_host)
    proxy.start(wire(nodes, ports, proxy_host))
    return proxy


def saved(proxy: LatencyProxy | None) -> dict[str, Any] | None:
    """The proxy in a `kcliff cluster up` cluster's state file, for `down` in a later process."""
    return {"api_port": proxy.api_port, "pid": proxy.pid, "listen_host": proxy.listen_host} if proxy else None


def restored(state: dict[str, Any] | None, rtt_ms: int, workdir: Path, mark: str) -> LatencyProxy | None:
    if not state:
        return None
    return LatencyProxy(rtt_ms, workdir / LOG, register=False, mark=mark, api_port=state["api_port"],
                        pid=state["pid"], listen_host=state["listen_host"])

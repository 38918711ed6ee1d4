"""The local cluster's nodes and what each one's server.properties says: three combined-mode nodes
(broker and controller in one JVM), or three brokers beside a controller of their own.

A controller apart is what a fault that takes two brokers at once needs (docs/failover.md, the follower
held behind): with the quorum in the brokers' JVMs, two of three gone is the quorum gone, and no
election at all happens, clean or unclean.
"""

from __future__ import annotations

import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kcliff.backends import replication_rtt
from kcliff.backends.base import STARTED_LINE
from kcliff.scenario import settings

NODES = (1, 2, 3)
CONTROLLER_ID = 4  # the controller apart's node id: never a broker's


@dataclass
class Node:
    node_id: int
    broker_port: int  # 0 for the controller apart, which serves no clients
    controller_port: int
    directory: Path
    host: str = "127.0.0.1"  # its own namespace's address when links are capped
    proc: subprocess.Popen[bytes] | None = None
    pid: int | None = None
    client_port: int | None = None  # the listener behind the latency proxy, when there is one
    proxy_port: int | None = None   # where producers reach this broker through the proxy
    log_mark: int = 0               # broker.log's size when this process was launched
    replication_port: int | None = None  # its replication listener, when followers fetch through a proxy
    replication_proxy: str | None = None  # host:port of that proxy, which other brokers are told

    @property
    def log(self) -> Path:
        return self.directory / "broker.log"

    @property
    def config(self) -> Path:
        return self.directory / "server.properties"

    def started(self) -> bool:
        """This process has logged that it started, which a broker does once the controller unfenced it."""
        with open(self.log, "rb") as log:
            log.seek(self.log_mark)
            return STARTED_LINE.encode() in log.read()


def voters(nodes: list[Node], controller: Node | None) -> str:
    """controller.quorum.voters: the controller apart alone, else every combined node."""
    quorum = [controller] if controller is not None else nodes
    return ",".join(f"{n.node_id}@{n.host}:{n.controller_port}" for n in quorum)


def server_properties(node: Node, quorum: str, overrides: dict[str, Any], apart: bool = False) -> str:
    """A broker's file: combined with a controller unless the quorum is `apart`."""
    listeners = [f"PLAINTEXT://{node.host}:{node.broker_port}"]
    if not apart:
        listeners.append(f"CONTROLLER://{node.host}:{node.controller_port}")
    advertised = [f"PLAINTEXT://{node.host}:{node.broker_port}"]
    if node.proxy_port:
        # producers bootstrap on CLIENT and are told the proxy's address; admin calls stay direct
        listeners.append(f"CLIENT://{node.host}:{node.client_port}")
        advertised.append(f"CLIENT://127.0.0.1:{node.proxy_port}")
    replication, replication_advertised, inter_broker = replication_rtt.listeners(node)
    props = {
        "process.roles": "broker" if apart else "broker,controller",
        "node.id": node.node_id,
        "controller.quorum.voters": quorum,
        "listeners": ",".join(listeners + replication),
        "advertised.listeners": ",".join(advertised + replication_advertised),
        "controller.listener.names": "CONTROLLER",
        "inter.broker.listener.name": inter_broker,
        "listener.security.protocol.map": "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT,CLIENT:PLAINTEXT,"
                                          f"{replication_rtt.LISTENER}:PLAINTEXT",
        "log.dirs": str(node.directory / "data"),
        "offsets.topic.replication.factor": 3,
        "transaction.state.log.replication.factor": 3,
        "transaction.state.log.min.isr": 2,
        "group.initial.rebalance.delay.ms": 0,
        "auto.create.topics.enable": "false",
        **settings.INVARIANTS["broker"],
        **overrides,
    }
    return _text(props)


def controller_properties(node: Node, quorum: str, overrides: dict[str, Any]) -> str:
    """The controller apart's file. It gets the brokers' settings too: the controller is what fences a
    broker (broker.session.timeout.ms) and elects leaders (unclean.leader.election.enable) by them."""
    props = {
        "process.roles": "controller",
        "node.id": node.node_id,
        "controller.quorum.voters": quorum,
        "listeners": f"CONTROLLER://{node.host}:{node.controller_port}",
        "controller.listener.names": "CONTROLLER",
        "listener.security.protocol.map": "CONTROLLER:PLAINTEXT",
        "log.dirs": str(node.directory / "data"),
        **settings.INVARIANTS["broker"],
        **overrides,
    }
    return _text(props)


def _text(props: dict[str, Any]) -> str:
    return "".join(f"{k}={settings.as_kafka_value(v)}\n" for k, v in props.items())

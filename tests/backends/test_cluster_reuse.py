"""Which `kcliff cluster up` cluster a command reuses: one started with another client round trip is not,
since its brokers advertise the proxy (or none) from their start. A check given --client-rtt-ms on a
workdir with such a cluster measured without the round trip, silently, before."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import pytest
from kcliff.backends import open as backend_open
from kcliff.backends.local import Caps
from kcliff.kafka import dist as kafka_dist


@dataclass
class Running:
    """A stand-in for the cluster `kcliff cluster up` left: its caps and jars, all nodes alive."""

    caps: Caps
    libs: Path
    admin_bootstrap: str = "127.0.0.1:9092"
    bringup_s: float = 1.0
    stopped: list[str] = field(default_factory=list)

    def dead_nodes(self) -> list[int]:
        return []

    def emulated_fsync_ms(self) -> float:
        return self.caps.fsync_delay_ms

    def down(self) -> None:
        self.stopped.append("down")


class Said:
    def __init__(self) -> None:
        self.lines: list[str] = []

    def note(self, text: str) -> None:
        self.lines.append(text)

    def warn(self, text: str) -> None:
        self.lines.append(text)

    def phase(self, text: str, seconds: float | None = None) -> None:
        self.lines.append(text)


@pytest.mark.parametrize("running_rtt, wanted_rtt, reused", [(0.0, 20.0, False), (20.0, 0.0, False),
                                                              (20.0, 20.0, True), (0.0, 0.0, True)])
def test_a_cluster_up_with_another_client_round_trip_is_not_reused(monkeypatch, tmp_path: Path, running_rtt: float,
                                                                   wanted_rtt: float, reused: bool):
    libs = kafka_dist.libs_dir("4.2.0", None)
    running = Running(Caps(client_rtt_ms=running_rtt), libs)
    started = Running(Caps(client_rtt_ms=wanted_rtt), libs)
    monkeypatch.setattr(backend_open, "reap_leftovers", lambda: [])
    monkeypatch.setattr(backend_open.LocalCluster, "from_state", staticmethod(lambda _dir: running))
    monkeypatch.setattr(backend_open, "start_local_cluster", lambda *args, **kwargs: started)
    config = backend_open.ClusterConfig("local", None, tmp_path, "4.2.0", None, Caps(client_rtt_ms=wanted_rtt))
    said = Said()
    with backend_open.open_cluster(config, tmp_path / "run", said) as cluster:
        assert cluster is (running if reused else started)
    assert any("started with other client_rtt_ms" in line for line in said.lines) is not reused, said.lines

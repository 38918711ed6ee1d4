"""A client round-trip time: toxiproxy in front of each broker's client listener.

On loopback a produce request costs no network time, so settings that only matter because of round
trips (max.in.flight.requests.per.connection=1 above all) show no cliff there. With --client-rtt-ms
the producer reaches every broker through a toxiproxy latency toxic, half the RTT each way; broker to
broker replication stays direct. toxiproxy delays each chunk from the time it arrived, so requests in
flight still overlap and a pipelining producer keeps its throughput. The local backend runs the
server here (LatencyProxy.start); the compose backend runs the same binary in a container and only
sets the toxics through this module (LatencyProxy.add_latency).
"""

from __future__ import annotations

import json
import shutil
import struct
import subprocess
import sys
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kcliff.backends.base import free_ports
from kcliff.errors import ClusterError
from kcliff.host import procs

BINARY = "toxiproxy-server"
START_TIMEOUT_S = 15.0
PT_INTERP = 3  # the ELF program header naming a dynamic loader


def find_binary() -> str:
    """toxiproxy-server beside kcliff's Python (scripts/setup-toxiproxy.sh puts it there) or on PATH."""
    beside = Path(sys.executable).parent / BINARY
    found = str(beside) if beside.is_file() else shutil.which(BINARY)
    if not found:
        raise ClusterError(f"{BINARY} not found beside {sys.executable} or on PATH: --client-rtt-ms needs it; "
                           "put Shopify's toxiproxy-server (v2.5, built static for the compose backend) on PATH, "
                           "or in a kcliff checkout run scripts/setup-toxiproxy.sh (make setup does)")
    return found


@dataclass
class LatencyProxy:
    """One toxiproxy-server; `routes` maps each listen port to the broker port behind it."""

    rtt_ms: float
    log: Path
    register: bool = True
    mark: str | None = None  # procs.MARK_VAR for the proxy: its cluster's
    api_port: int = 0
    pid: int | None = None
    proc: subprocess.Popen[bytes] | None = field(default=None, repr=False)
    # where the proxies listen: loopback for clients; the host's end of a capped-link fabric when brokers
    # in namespaces of their own must reach it (replication_rtt.py). Its API stays on loopback.
    listen_host: str = "127.0.0.1"

    def start(self, routes: dict[int, str]) -> None:
        """Run toxiproxy-server here, each port on listen_host proxying to the broker address ("host:port")
        behind it."""
        self.api_port = free_ports(1)[0]
        config = self.log.with_suffix(".json")  # also marks the process as this cluster's in its command line
        names = write_config(config, {f"{self.listen_host}:{listen}": upstream
                                      for listen, upstream in routes.items()})
        self.proc = procs.spawn([find_binary(), "-host", "127.0.0.1", "-port", str(self.api_port),
                                 "-config", str(config)], log=self.log, register=self.register,
                                 mark=self.mark)
        self.pid = self.proc.pid
        try:
            self.add_latency(names)
        except BaseException:
            self.stop()
            raise

    def add_latency(self, names: list[str]) -> None:
        """Once the server's API answers on api_port, delay each named proxy by half the round trip
        each way. The compose backend calls this for a server running in a container."""
        self._wait_for_api()
        for name in names:
            self._add_latency(name)

    def _wait_for_api(self) -> None:
        deadline = time.monotonic() + START_TIMEOUT_S
        while time.monotonic() < deadline:
            if self.proc is not None and self.proc.poll() is not None:
                raise ClusterError(f"{BINARY} exited at start (code {self.proc.returncode}); see {self.log}")
            try:
                self._call("GET", "/version")
                return
            except (OSError, urllib.error.URLError):
                time.sleep(0.2)
        raise ClusterError(f"{BINARY} did not answer on port {self.api_port} within {START_TIMEOUT_S:.0f}s; "
                           f"see {self.log}")

    def _add_latency(self, name: str) -> None:
        for stream, ms in zip(("upstream", "downstream"), one_way_ms(self.rtt_ms)):
            self._call("POST", f"/proxies/{name}/toxics",
                       {"name": f"rtt-{stream}", "type": "latency", "stream": stream, "toxicity": 1.0,
                        "attributes": {"latency": ms, "jitter": 0}})

    def _call(self, method: str, path: str, body: dict[str, Any] | None = None) -> bytes:
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(f"http://127.0.0.1:{self.api_port}{path}", data=data, method=method,
                                         headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=5) as response:
                return bytes(response.read())
        except urllib.error.HTTPError as exc:
            raise ClusterError(f"{BINARY} refused {method} {path}: {exc.code} {exc.read()[:200]!r}") from None

    def stop(self) -> None:
        if self.proc is not None:
            procs.stop(self.proc, grace_s=3.0)
        elif self.pid is not None and procs.started_with(self.pid, self.log.with_suffix(".json")):
            procs.stop_pid(self.pid, grace_s=3.0)
        self.proc = self.pid = None


def one_way_ms(rtt_ms: float) -> tuple[int, int]:
    """The delays (upstream: requests, downstream: responses) that add up to the round trip in whole
    ms, toxiproxy's unit: an odd round trip puts the spare millisecond on the requests (rounding each
    half alone made 5 ms a round trip of 4, and 1 ms one of 0)."""
    total = int(round(rtt_ms))
    return total - total // 2, total // 2


def write_config(path: Path, routes: dict[str, str]) -> list[str]:
    """toxiproxy-server's -config file: a proxy per listen address ("host:port") to the upstream
    address behind it, named broker-1, broker-2, ... in order. Returns the names."""
    proxies = [{"name": f"broker-{i}", "listen": listen, "upstream": upstream, "enabled": True}
               for i, (listen, upstream) in enumerate(routes.items(), start=1)]
    path.write_text(json.dumps(proxies))
    return [str(p["name"]) for p in proxies]


def is_static(binary: str) -> bool:
    """Whether an ELF executable needs no dynamic loader (no PT_INTERP program header), so it runs
    in any container whatever its libc."""
    with open(binary, "rb") as f:
        header = f.read(64)
        if header[:4] != b"\x7fELF" or header[4] != 2:  # ELF, 64-bit
            return False
        order = "<" if header[5] == 1 else ">"
        phoff, = struct.unpack_from(order + "Q", header, 32)
        phentsize, phnum = struct.unpack_from(order + "HH", header, 54)
        f.seek(phoff)
        table = f.read(phentsize * phnum)
    return all(struct.unpack_from(order + "I", table, k * phentsize)[0] != PT_INTERP for k in range(phnum))

"""What compose/docker-compose.yml expects of kcliff: its services and ports, the variables it reads
(caps, image, ports, the CLIENT listener's addresses) and the env files that carry them, and the
toxiproxy service that adds the producer's round trip (--client-rtt-ms)."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

from kcliff import resources
from kcliff.backends import latency
from kcliff.errors import InputError

BROKERS = ("kafka-1", "kafka-2", "kafka-3")
INTERNAL_PORT = 19092
CLIENT_PORT = 19094  # the brokers' CLIENT listener, behind the toxiproxy service with --client-rtt-ms
PROXY_SERVICE = "toxiproxy"
PROXY_PORT_BASE = 19190  # the toxiproxy service listens on 19191.. for kafka-1..
# Variables compose/docker-compose.yml reads; kcliff sets every one of them for its own stacks.
COMPOSE_VARIABLES = (
    "KCLIFF_KAFKA_IMAGE", "KCLIFF_KAFKA_VERSION", "KCLIFF_PULL_POLICY", "KCLIFF_CLUSTER_ID",
    "KCLIFF_BROKER_CPUS", "KCLIFF_BROKER_MEMORY", "KCLIFF_BROKER_HEAP_OPTS",
    "KCLIFF_PRODUCER_CPUS", "KCLIFF_PRODUCER_MEMORY", "KCLIFF_PRODUCER_HEAP_OPTS",
    "KCLIFF_HOST_PORT_1", "KCLIFF_HOST_PORT_2", "KCLIFF_HOST_PORT_3", "KCLIFF_BROKER_ENV_FILE",
    "KCLIFF_CLIENT_ADDRESS_1", "KCLIFF_CLIENT_ADDRESS_2", "KCLIFF_CLIENT_ADDRESS_3",
    "KCLIFF_TOXIPROXY_BIN", "KCLIFF_TOXIPROXY_CONFIG", "KCLIFF_TOXIPROXY_API_PORT",
    "KCLIFF_FSYNC_DELAY_LIB", "KCLIFF_FSYNC_DELAY_MS", "KCLIFF_BROKER_PRELOAD", "KCLIFF_LD_PRELOAD",
    "KCLIFF_WRITE_BYTES_PER_S",
)
SHIM_IN_CONTAINER = "/opt/kcliff/libkcliff-fsync-delay.so"  # where the compose file mounts the fsync shim
DATA_IN_CONTAINER = "/var/lib/kafka/data"  # each broker's data volume (KAFKA_LOG_DIRS)
PRELOAD_LABEL = "kcliff.broker-preload"  # an image whose entry point honours KCLIFF_BROKER_PRELOAD
# Where a tool run's own jars (kcliff's load generator) are mounted: not at their host paths, as the
# files a tool reads are, since kcliff's cache is often in a home directory (/root: mode 700) that
# the image's non-root user cannot enter.
JARS_IN_CONTAINER = "/opt/kcliff/jars"


@dataclass(frozen=True)
class ComposeCaps:
    """Container limits (docker's --cpus / --memory) and JVM heaps. The defaults are the published
    study's 2 CPU / 2 GB per broker; KCLIFF_BROKER_CPUS etc. override them (see from_env)."""
    broker_cpus: float = 2.0
    broker_memory_mb: int = 2048
    broker_heap_mb: int = 1024
    producer_cpus: float = 2.0
    producer_memory_mb: int = 2048
    producer_heap_mb: int = 512
    client_rtt_ms: float = 0.0  # producer <-> broker round trip added by the toxiproxy service
    fsync_delay_ms: float = 0.0  # least time of each fsync of the brokers' data (backends/storage.py)
    fsync_delay_given: bool = True  # False: kcliff's default, which an image that cannot preload skips
    shim_libc: str = "glibc"  # the C library the brokers' image loads the shim with (storage.Libc)
    link_mbit: float = 0.0  # each broker container's link, each way (compose_caps.py; 0: uncapped)
    disk_mb_s: float = 0.0  # each broker's writes to its data volume, MB/s (the shim's pacing; 0: uncapped)

    @property
    def shim(self) -> bool:
        """Whether the brokers load the emulated disk's shim: for a slower fsync or a capped disk."""
        return self.fsync_delay_ms > 0 or self.disk_mb_s > 0

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> ComposeCaps:
        env = os.environ if env is None else env
        names = {"broker_cpus": "KCLIFF_BROKER_CPUS", "broker_memory_mb": "KCLIFF_BROKER_MEMORY_MB",
                 "broker_heap_mb": "KCLIFF_BROKER_HEAP_MB", "producer_cpus": "KCLIFF_PRODUCER_CPUS",
                 "producer_memory_mb": "KCLIFF_PRODUCER_MEMORY_MB", "producer_heap_mb": "KCLIFF_PRODUCER_HEAP_MB"}
        values: dict[str, Any] = {}
        for attr, var in names.items():
            if env.get(var):
                kind = float if attr.endswith("cpus") else int
                try:
                    values[attr] = kind(env[var])
                except ValueError:
                    raise InputError(f"{var} must be a number, got {env[var]!r}") from None
                if values[attr] <= 0:
                    raise InputError(f"{var} must be positive, got {env[var]!r}")
        return cls(**values)

    def variables(self) -> dict[str, str]:
        return {
            "KCLIFF_BROKER_CPUS": f"{self.broker_cpus:g}", "KCLIFF_BROKER_MEMORY": f"{self.broker_memory_mb}m",
            "KCLIFF_BROKER_HEAP_OPTS": f"-Xmx{self.broker_heap_mb}m -Xms{self.broker_heap_mb}m",
            "KCLIFF_PRODUCER_CPUS": f"{self.producer_cpus:g}", "KCLIFF_PRODUCER_MEMORY": f"{self.producer_memory_mb}m",
            "KCLIFF_PRODUCER_HEAP_OPTS": f"-Xmx{self.producer_heap_mb}m -Xms{self.producer_heap_mb}m",
        }


def env_name(setting: str) -> str:
    """The apache/kafka image's variable for a server.properties key (the inverse of its mapping:
    '.' <-> '_', '_' <-> '__', '-' <-> '___'): socket.send.buffer.bytes -> KAFKA_SOCKET_SEND_BUFFER_BYTES."""
    return "KAFKA_" + setting.replace("_", "__").replace("-", "___").replace(".", "_").upper()


def default_compose_file() -> Path:
    """compose/docker-compose.yml as kcliff ships it (resources: the checkout's or the installed copy)."""
    return resources.shipped("compose") / "docker-compose.yml"


def proxy_addresses() -> list[str]:
    """Where the producer container reaches each broker through the toxiproxy service."""
    return [f"{PROXY_SERVICE}:{PROXY_PORT_BASE + i}" for i in range(1, len(BROKERS) + 1)]


def client_proxy_routes() -> dict[str, str]:
    """toxiproxy's listen address -> the broker's CLIENT listener behind it, in broker order."""
    return {f"0.0.0.0:{address.rsplit(':', 1)[1]}": f"{name}:{CLIENT_PORT}"
            for address, name in zip(proxy_addresses(), BROKERS)}


def static_toxiproxy() -> str:
    """The toxiproxy-server binary, static: it runs inside a container of the Kafka image, and
    apache/kafka (Alpine, musl) has no glibc loader for a dynamically linked one."""
    binary = latency.find_binary()
    if not latency.is_static(binary):
        raise InputError(f"{binary} is dynamically linked and cannot run in the apache/kafka image: "
                         "rebuild it with scripts/setup-toxiproxy.sh, which builds it static")
    return binary


def env_value(value: str) -> str:
    if "\n" in value or "\r" in value:
        raise InputError(f"a value for an env file cannot contain a line break: {value!r}")
    return value


def compose_environment() -> dict[str, str]:
    """Our environment without the compose file's variables, which would win over the env file."""
    return {k: v for k, v in os.environ.items() if k not in COMPOSE_VARIABLES}


def jar_options(jars: tuple[Path, ...]) -> list[str]:
    """`compose run` options that mount `jars` read-only in the tool container and name them, in
    order, in its CLASSPATH. The image's kafka-run-class.sh puts them ahead of its own Kafka: the
    distribution's (apache/kafka) starts from the caller's CLASSPATH and appends each jar of libs/
    to it, the stand-in's passes `-cp "$CLASSPATH:libs/*"`. One argv element each: no shell."""
    inside = [f"{JARS_IN_CONTAINER}/{i}-{jar.name}" for i, jar in enumerate(jars)]
    mounts = [arg for jar, path in zip(jars, inside) for arg in ("--volume", f"{jar.resolve()}:{path}:ro")]
    return [*mounts, "--env", "CLASSPATH=" + ":".join(inside)] if jars else []

"""An existing cluster given by bootstrap servers: kcliff neither starts nor stops it, and cannot
apply settings that need a broker restart (those scenarios are skipped, and say so)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kcliff.backends.admin import Admin
from kcliff.backends.base import Cluster
from kcliff.errors import ClusterError, InputError
from kcliff.kafka import dist as kafka_dist
from kcliff.kafka.release import KafkaRelease


@dataclass
class ExternalCluster(Cluster):
    bootstrap: str
    libs: Path
    producer_heap_mb: int = 512
    producer_cpus: str | None = None
    backend: str = "external"
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def admin_bootstrap(self) -> str:
        return self.bootstrap

    @property
    def tool_bootstrap(self) -> str:
        return self.bootstrap

    @property
    def release(self) -> KafkaRelease:
        return kafka_dist.release_of(self.libs)

    def tool_command(self, main_class: str, args: list[str], files: tuple[Path, ...] = (),
                     jars: tuple[Path, ...] = (), name: str | None = None) -> list[str]:
        return kafka_dist.java_command(self.libs, main_class, self.producer_heap_mb, cpus=self.producer_cpus,
                                       archived=True, jars=jars) + args

    def program_command(self, argv: list[str]) -> list[str]:
        return kafka_dist.pinned(self.producer_cpus) + argv

    def down(self) -> None:
        """Nothing to stop: the cluster is not ours."""

    def describe(self) -> dict[str, Any]:
        return {"backend": self.backend, "bootstrap": self.bootstrap,
                "caps": {"producer_heap_mb": self.producer_heap_mb, "producer_cpus": self.producer_cpus}}


def connect(bootstrap: str, kafka_version: str, kafka_home: str | None = None, producer_heap_mb: int = 512,
            producer_cpus: str | None = None) -> ExternalCluster:
    """Check the cluster answers and has at least 3 brokers (RF 3 is an invariant)."""
    for server in bootstrap.split(","):
        host, _, port = server.strip().rpartition(":")
        if not host or not port.isdigit():
            raise InputError(f"--bootstrap-servers: expected host:port[,host:port...], got {bootstrap!r}")
    kafka_dist.java_version()
    libs = kafka_dist.ensure(kafka_version, kafka_home)
    brokers = Admin(bootstrap).broker_ids(timeout=15)
    if not brokers:
        raise ClusterError(f"no Kafka broker answered at {bootstrap} within 15 s")
    if len(brokers) < 3:
        raise ClusterError(f"{bootstrap} has {len(brokers)} broker(s); kcliff needs 3 for replication factor 3")
    return ExternalCluster(bootstrap, libs, producer_heap_mb, producer_cpus)

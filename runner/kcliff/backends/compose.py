"""The docker compose backend: compose/docker-compose.yml's three KRaft brokers in containers, each
capped (2 CPU / 2 GB by default), and every perf-tool run in a one-off container of the separately
capped `producer` service. Scenario application and measurement are the runner's, as for the local
backend; only how the cluster starts and where the tools run differ (docs/compose.md).

Every compose call names its project (unique per cluster) and passes its variables through an env
file in the cluster's work directory, so concurrent stacks never collide and the argv alone says
what runs. Read-only broker settings reach the brokers as KAFKA_* variables in a second env file
(the apache/kafka image's convention), applied by recreating the broker containers; their data
volumes survive, so a restart keeps the topics.
"""

from __future__ import annotations

import json
import os
import subprocess
import time
from dataclasses import asdict, dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

from kcliff.backends import compose_projects, latency, storage
from kcliff.backends.admin import Admin
from kcliff.backends.base import STARTED_LINE, Restartable, Usage, free_ports, new_cluster_id
from kcliff.backends.compose_caps import NO_LIBRDKAFKA, CappedBrokers, emulation_caps, require_root, shim_variables
from kcliff.backends.compose_file import (
    BROKERS,
    CLIENT_PORT,
    COMPOSE_VARIABLES,
    INTERNAL_PORT,
    PROXY_SERVICE,
    SHIM_IN_CONTAINER,
    ComposeCaps,
    client_proxy_routes,
    compose_environment,
    default_compose_file,
    env_name,
    env_value,
    jar_options,
    proxy_addresses,
    static_toxiproxy,
)
from kcliff.backends.docker_cli import DOCKER_HINT, choose_image, compose_base_command, docker, tail
from kcliff.errors import ClusterError, InputError
from kcliff.host import procs
from kcliff.kafka import dist as kafka_dist
from kcliff.kafka import release as kafka_release
from kcliff.scenario import settings

READY_TIMEOUT_S = 240.0
COMPOSE_TIMEOUT_S = 600.0


@dataclass
class ComposeCluster(Restartable):
    workdir: Path
    kafka_version: str
    image: str
    pull_policy: str
    caps: ComposeCaps = field(default_factory=ComposeCaps)
    project: str = ""
    compose_file: Path = field(default_factory=default_compose_file)
    ports: list[int] = field(default_factory=list)
    overrides: dict[str, Any] = field(default_factory=dict)
    restarts: list[float] = field(default_factory=list)
    cluster_id: str = ""
    backend: str = "compose"
    _base: list[str] = field(default_factory=list)
    _down: bool = False
    proxy: latency.LatencyProxy | None = None
    capped: CappedBrokers | None = None  # the brokers' capped links and disks, noted at every start

    @property
    def admin_bootstrap(self) -> str:
        return ",".join(f"127.0.0.1:{p}" for p in self.ports)

    @property
    def release(self) -> kafka_release.KafkaRelease:
        return kafka_release.of(self.kafka_version)

    @property
    def tool_bootstrap(self) -> str:
        if self.caps.client_rtt_ms > 0:
            return ",".join(proxy_addresses())
        return ",".join(f"{name}:{INTERNAL_PORT}" for name in BROKERS)

    @property
    def env_file(self) -> Path:
        return self.workdir / "compose.env"

    @property
    def broker_env_file(self) -> Path:
        return self.workdir / "broker-overrides.env"

    # -- compose invocations -------------------------------------------------------------------

    def compose_argv(self, *args: str) -> list[str]:
        return [*self._base, "--project-name", self.project, "--file", str(self.compose_file),
                "--env-file", str(self.env_file), *args]

    def compose(self, *args: str, timeout: float = COMPOSE_TIMEOUT_S, check: bool = True) -> subprocess.CompletedProcess[str]:
        try:
            done = subprocess.run(self.compose_argv(*args), capture_output=True, text=True, timeout=timeout,
                                  env=compose_environment(), stdin=subprocess.DEVNULL)
        except subprocess.TimeoutExpired:
            raise ClusterError(f"docker compose {args[0]} took over {timeout:.0f}s (project {self.project})") from None
        if check and done.returncode != 0:
            raise ClusterError(f"docker compose {args[0]} failed (project {self.project}):\n"
                               f"{tail(done.stderr or done.stdout)}")
        return done

    def write_env(self) -> None:
        variables = {
            "KCLIFF_KAFKA_IMAGE": self.image, "KCLIFF_KAFKA_VERSION": self.kafka_version,
            "KCLIFF_PULL_POLICY": self.pull_policy, "KCLIFF_CLUSTER_ID": self.cluster_id,
            "KCLIFF_BROKER_ENV_FILE": str(self.broker_env_file), **self.caps.variables(),
            **{f"KCLIFF_HOST_PORT_{i}": str(p) for i, p in enumerate(self.ports, start=1)},
            **self._client_proxy_variables(), **shim_variables(self.caps),
        }
        self.env_file.write_text("".join(f"{k}={env_value(v)}\n" for k, v in variables.items()))
        self.write_overrides(self.overrides)

    def write_overrides(self, overrides: dict[str, Any]) -> None:
        lines = [f"{env_name(k)}={env_value(settings.as_kafka_value(v))}\n" for k, v in sorted(overrides.items())]
        self.broker_env_file.write_text("# read-only broker settings, as KAFKA_* variables\n" + "".join(lines))

    # -- life cycle ------------------------------------------------------------------------------

    def start(self, timeout: float = READY_TIMEOUT_S) -> None:
        """Bring the stack up, wait until every broker is healthy and an RF-3 topic can be created;
        on any failure take everything down again before raising."""
        began = time.monotonic()
        try:
            self._prepare_client_proxy()
            self.write_env()
            self._start_client_proxy()
            self._up(timeout)
        except BaseException:
            self.down()
            raise
        self.bringup_s = round(time.monotonic() - began, 2)

    def _check_fsync_shim(self, launched: tuple[str, ...]) -> None:
        """Every broker JVM just started has the shim mapped: a library the container's loader cannot
        load (another libc) is skipped with one line on stderr, and the disk would silently be its own."""
        if not self.caps.shim:
            return
        for name in launched:
            done = self.compose("exec", "-T", name, "grep", "-c", SHIM_IN_CONTAINER, "/proc/1/maps", timeout=60,
                                check=False)
            if done.stdout.strip() in ("", "0"):
                logs = self.compose("logs", "--no-color", name, timeout=60, check=False).stdout
                said = [line for line in logs.splitlines() if "ld.so" in line or "LD_PRELOAD" in line]
                raise ClusterError(f"{name}'s broker JVM did not load the fsync shim "
                                   f"({storage.library_path(storage.Libc(self.caps.shim_libc))}), so "
                                   f"its disk would not be emulated: {' '.join(said[-2:]) or 'no loader message'}; "
                                   f"the shim is built with this host's C library, which {self.image} must share "
                                   "(kcliff's stand-in is Debian bookworm's); --fsync-delay-ms 0 and no disk cap "
                                   "measure on the containers' own disk")

    def _up(self, timeout: float, *extra: str, launching: tuple[str, ...] = BROKERS) -> None:
        """`compose up` and wait until ready; `launching` are the brokers whose containers this starts."""
        since = (datetime.now(timezone.utc) - timedelta(seconds=1)).strftime("%Y-%m-%dT%H:%M:%SZ")
        done = self.compose("up", "--detach", "--wait", "--wait-timeout", str(int(timeout)), *extra, *BROKERS,
                            timeout=timeout + 60, check=False)
        if done.returncode != 0:
            raise ClusterError(f"the compose cluster did not become healthy (project {self.project}): "
                               f"{tail(done.stderr, 5)}\n{self._logtail()}")
        self._cap(launching)
        self.wait_ready(timeout, launching, since)
        self._check_fsync_shim(launching)

    def _cap(self, launched: tuple[str, ...]) -> None:
        """Cap the links of the brokers just started: a new container has new links (compose_caps.py)."""
        if self.capped is None:
            self.capped = CappedBrokers(self.caps)
        if launched and self.capped.capped:  # uncapped: no compose call
            self.capped.started(self.compose("ps", "--quiet", *launched, timeout=60).stdout.split())

    def _started(self, service: str, since: str) -> bool:
        done = self.compose("logs", "--no-color", "--since", since, service, timeout=60, check=False)
        return STARTED_LINE in done.stdout

    def wait_ready(self, timeout: float = READY_TIMEOUT_S, launched: tuple[str, ...] = (), since: str = "") -> None:
        """Ready: every broker in `launched` logged since `since` (when compose started them) that it
        started, all three brokers registered (seen from the host, through the EXTERNAL listener), and
        a replication-factor-3 topic can be created."""
        deadline = time.monotonic() + timeout
        admin = Admin(self.admin_bootstrap)
        waiting = list(launched)
        while waiting or len(admin.broker_ids(timeout=2)) < len(BROKERS):
            waiting = [name for name in waiting if not self._started(name, since)]
            dead = self.dead_nodes()
            if dead:
                raise ClusterError(f"broker {dead[0]} exited during start-up:\n{self._logtail()}")
            if time.monotonic() > deadline:
                raise ClusterError(f"brokers not all started and registered after {timeout:.0f}s:\n{self._logtail()}")
            time.sleep(0.5)
        admin.prove_writable(max(deadline - time.monotonic(), 10.0))

    def _logtail(self, lines: int = 20) -> str:
        done = self.compose("logs", "--no-color", "--tail", str(lines), *BROKERS, timeout=60, check=False)
        return tail(done.stdout, 3 * lines)

    def tool_command(self, main_class: str, args: list[str], files: tuple[Path, ...] = (),
                     jars: tuple[Path, ...] = (), name: str | None = None) -> list[str]:
        """A one-off container of the `producer` service runs the class (its own caps; removed when
        it ends), with `files` mounted read-only at their host paths and `jars` ahead of the image's
        Kafka (compose_file.jar_options). Variables the compose file reads are unset first, so the
        caller's environment cannot change what the env file says."""
        unset = [arg for var in COMPOSE_VARIABLES if var in os.environ for arg in ("-u", var)]
        prefix = ["env", *unset] if unset else []
        mounts = [arg for f in files for arg in ("--volume", f"{f.resolve()}:{f.resolve()}:ro")]
        named = ("--name", name) if name else ()
        return prefix + self.compose_argv("run", "--rm", "--no-TTY", "--no-deps", *named, *mounts, *jar_options(jars),
                                          "producer", "/opt/kafka/bin/kafka-run-class.sh", main_class, *args)

    def program_command(self, argv: list[str]) -> list[str]:
        raise InputError(NO_LIBRDKAFKA)

    def crash_tool(self, pid: int, name: str | None = None) -> None:
        """SIGKILL the tool's container: the `compose run` client kcliff started cannot pass a SIGKILL on, and
        the container would outlive it (docs/failover.md, "The member kill")."""
        if name:
            docker("kill", "--signal", "KILL", name, check=False)
        procs.crash(pid)

    def restart(self, overrides: dict[str, Any]) -> None:
        """Recreate the brokers with `overrides` as KAFKA_* variables (their volumes stay)."""
        began = time.monotonic()
        self.overrides = dict(overrides)
        self.write_overrides(self.overrides)
        self._up(READY_TIMEOUT_S, "--force-recreate")
        self.restarts.append(round(time.monotonic() - began, 2))

    def container_states(self) -> dict[str, str]:
        """Service -> container state (running, exited, ...) of the brokers."""
        done = self.compose("ps", "--all", "--format", "json", *BROKERS, timeout=60)
        states = {}
        for line in done.stdout.splitlines():
            line = line.strip()
            if not line:
                continue
            entries = json.loads(line)
            for entry in entries if isinstance(entries, list) else [entries]:
                states[entry["Service"]] = entry["State"]
        return states

    def dead_nodes(self) -> list[int]:
        if self._down:
            return []
        states = self.container_states()
        return [i for i, name in enumerate(BROKERS, start=1) if states.get(name) != "running"]

    def heal(self) -> None:
        """Start the stopped broker containers again (same containers, same volumes)."""
        dead = tuple(BROKERS[i - 1] for i in self.dead_nodes())
        self._up(READY_TIMEOUT_S, "--no-recreate", launching=dead)

    def kill_broker(self, node_id: int) -> None:
        """Kill one broker's container (SIGKILL), e.g. for fault tests."""
        self.compose("kill", "--signal", "SIGKILL", BROKERS[node_id - 1], timeout=60)

    def stop_broker(self, node_id: int, grace_s: float) -> None:
        """Stop one broker's container (SIGTERM, then SIGKILL after `grace_s`), as a rolling restart does."""
        self.compose("stop", "--timeout", str(max(1, round(grace_s))), BROKERS[node_id - 1], timeout=grace_s + 60)

    def pause_broker(self, node_id: int) -> None:
        self.compose("pause", BROKERS[node_id - 1], timeout=60)

    def resume_broker(self, node_id: int) -> None:
        self.compose("unpause", BROKERS[node_id - 1], timeout=60)

    def container_caps(self) -> dict[str, dict[str, int]]:
        """What docker enforces, per broker container: {'kafka-1': {'nano_cpus': ..., 'memory': ...}}."""
        caps = {}
        for name in BROKERS:
            ids = self.compose("ps", "--all", "--quiet", name, timeout=60).stdout.split()
            if not ids:
                continue
            out = docker("inspect", "-f", "{{.HostConfig.NanoCpus}} {{.HostConfig.Memory}}", ids[0]).stdout.split()
            caps[name] = {"nano_cpus": int(out[0]), "memory": int(out[1])}
        return caps

    def down(self) -> None:
        """Remove the containers (one-off producer runs included), the network and the volumes.
        Idempotent; the brokers' logs are kept in the work directory first."""
        if self._down or not self.project:
            return
        self._down = True
        if self.env_file.exists():
            try:
                logs = self.compose("logs", "--no-color", "--timestamps", timeout=120, check=False)
                (self.workdir / "brokers.log").write_text(logs.stdout)
            except ClusterError:
                pass
        label = f"label=com.docker.compose.project={self.project}"
        oneoffs = docker("ps", "--all", "--quiet", "--filter", label, "--filter",
                         "label=com.docker.compose.oneoff=True", check=False).stdout.split()
        if oneoffs:  # compose down leaves `run` containers behind
            docker("rm", "--force", "--volumes", *oneoffs, timeout=120, check=False)
        if self.env_file.exists():  # the volumes go too: no broker needs its graceful shutdown (local.down)
            self.compose("down", "--volumes", "--remove-orphans", "--timeout", "0", timeout=300, check=False)
        left = docker("ps", "--all", "--quiet", "--filter", label, check=False).stdout.split()
        if left:
            docker("rm", "--force", "--volumes", *left, timeout=120, check=False)
        for kind in ("network", "volume"):
            names = docker(kind, "ls", "--quiet", "--filter", label, check=False).stdout.split()
            if names:
                docker(kind, "rm", *names, timeout=120, check=False)

    def container_ids(self) -> list[str]:
        return str(self.compose("ps", "--all", "--quiet", timeout=60, check=False).stdout).split()

    def emulated_fsync_ms(self) -> float:
        return self.caps.fsync_delay_ms

    def bytes_capped(self) -> bool:
        return self.capped is not None and self.capped.capped

    def usage(self) -> Usage | None:
        return self.capped.usage() if self.capped is not None else None

    def client_rtt_ms(self) -> float | None:
        return self.caps.client_rtt_ms  # plus one host's bridge network: microseconds

    # -- the client round trip (--client-rtt-ms): the toxiproxy service ------------------------------

    def _prepare_client_proxy(self) -> None:
        """With a round trip: the proxy's handle, with a free host port for its API (the env file
        publishes it there)."""
        if self.caps.client_rtt_ms > 0:
            self.proxy = latency.LatencyProxy(self.caps.client_rtt_ms, self.workdir / "toxiproxy.log",
                                              register=False, api_port=free_ports(1)[0])

    def _client_proxy_variables(self) -> dict[str, str]:
        """The compose file's variables for the CLIENT listener: advertised at the proxy with a round
        trip (so a producer that bootstraps there stays behind it), else at the broker itself."""
        if self.proxy is None:
            return {f"KCLIFF_CLIENT_ADDRESS_{i}": f"{name}:{CLIENT_PORT}" for i, name in enumerate(BROKERS, start=1)}
        return {**{f"KCLIFF_CLIENT_ADDRESS_{i}": address for i, address in enumerate(proxy_addresses(), start=1)},
                "KCLIFF_TOXIPROXY_BIN": static_toxiproxy(), "KCLIFF_TOXIPROXY_CONFIG": str(self.proxy.log.with_suffix(".json")),
                "KCLIFF_TOXIPROXY_API_PORT": str(self.proxy.api_port)}

    def _start_client_proxy(self) -> None:
        """Start the toxiproxy service before the brokers and give each proxy its latency. Only
        `start` does this: restart and heal recreate brokers alone, and the proxy's toxics stay."""
        if self.proxy is None:
            return
        names = latency.write_config(self.proxy.log.with_suffix(".json"), client_proxy_routes())
        self.compose("up", "--detach", PROXY_SERVICE, timeout=120)
        try:
            self.proxy.add_latency(names)
        except ClusterError:  # its message points at the proxy's log
            logs = self.compose("logs", "--no-color", PROXY_SERVICE, timeout=60, check=False)
            self.proxy.log.write_text(logs.stdout + logs.stderr)
            raise

    def describe(self) -> dict[str, Any]:
        return {"backend": self.backend, "image": f"{self.image}:{self.kafka_version}",
                "image_id": docker("image", "inspect", "-f", "{{.Id}}", f"{self.image}:{self.kafka_version}",
                                   check=False).stdout.strip() or None,
                "project": self.project, "bootstrap": self.admin_bootstrap,
                "caps": asdict(self.caps), "restarts_s": list(self.restarts), "broker_jvm_options": []}


def start_compose_cluster(workdir: Path, kafka_version: str = kafka_dist.DEFAULT_VERSION, *,
                          image: str | None = None, caps: ComposeCaps | None = None,
                          project: str | None = None, compose_file: Path | None = None,
                          timeout_s: float = READY_TIMEOUT_S) -> ComposeCluster:
    """Start the compose cluster and return it ready (bringup_s set). `workdir` holds the env files
    and, after down(), the brokers' logs. `image` is a repository without tag (the tag is
    `kafka_version`); by default apache/kafka, or the locally built stand-in where only that exists.
    The caller must call down() (also on errors); a failed start has already cleaned up."""
    kafka_dist.check_version(kafka_version)
    if not kafka_release.of(kafka_version).at_least(4, 0):
        raise InputError(f"Kafka {kafka_version}: the compose backend runs Kafka 4.x only (its stand-in image's "
                         "scripts and logging are 4.x's, and no 3.x image was tried); use --backend local")
    caps = caps or ComposeCaps.from_env()
    require_root(caps)
    if caps.client_rtt_ms > 0:
        static_toxiproxy()  # before anything starts
    base = compose_base_command()
    if docker("info", "--format", "{{.ServerVersion}}", check=False, timeout=30).returncode != 0:
        raise InputError(f"no Docker engine answers: {DOCKER_HINT}")
    repository, pull_policy = choose_image(kafka_version, image)
    caps = emulation_caps(caps, f"{repository}:{kafka_version}")
    workdir = Path(workdir).resolve()  # compose resolves relative paths against the compose file
    workdir.mkdir(parents=True, exist_ok=True)
    cluster = ComposeCluster(workdir, kafka_version, repository, pull_policy, caps, project or compose_projects.owned_project_name(),
                             Path(compose_file or os.environ.get("KCLIFF_COMPOSE_FILE") or default_compose_file()),
                             free_ports(len(BROKERS)))
    cluster._base = base
    cluster.cluster_id = new_cluster_id()
    procs.on_death(compose_projects.removal_argv(cluster.project))
    cluster.start(timeout_s)
    return cluster

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
import re
import secrets
import shutil
import subprocess
import time
from dataclasses import asdict, dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any, Mapping

from kcliff import resources
from kcliff.backends import latency
from kcliff.backends.admin import Admin
from kcliff.backends.base import STARTED_LINE, Restartable, free_ports, new_cluster_id
from kcliff.errors import ClusterError, InputError
from kcliff.host import procs
from kcliff.kafka import dist as kafka_dist
from kcliff.kafka import release as kafka_release
from kcliff.scenario import settings

DEFAULT_IMAGE = "apache/kafka"
STANDIN_IMAGE = "kcliff/kafka-standin"  # built by scripts/setup-docker.sh where no registry is reachable
DOCKER_HINT = "install Docker Engine with the compose v2 plugin (in a kcliff checkout: scripts/setup-docker.sh)"
BROKERS = ("kafka-1", "kafka-2", "kafka-3")
INTERNAL_PORT = 19092
CLIENT_PORT = 19094  # the brokers' CLIENT listener, behind the toxiproxy service with --client-rtt-ms
PROXY_SERVICE = "toxiproxy"
PROXY_PORT_BASE = 19190  # the toxiproxy service listens on 19191.. for kafka-1..
READY_TIMEOUT_S = 240.0
COMPOSE_TIMEOUT_S = 600.0
# Variables compose/docker-compose.yml reads; kcliff sets every one of them for its own stacks.
COMPOSE_VARIABLES = (
    "KCLIFF_KAFKA_IMAGE", "KCLIFF_KAFKA_VERSION", "KCLIFF_PULL_POLICY", "KCLIFF_CLUSTER_ID",
    "KCLIFF_BROKER_CPUS", "KCLIFF_BROKER_MEMORY", "KCLIFF_BROKER_HEAP_OPTS",
    "KCLIFF_PRODUCER_CPUS", "KCLIFF_PRODUCER_MEMORY", "KCLIFF_PRODUCER_HEAP_OPTS",
    "KCLIFF_HOST_PORT_1", "KCLIFF_HOST_PORT_2", "KCLIFF_HOST_PORT_3", "KCLIFF_BROKER_ENV_FILE",
    "KCLIFF_CLIENT_ADDRESS_1", "KCLIFF_CLIENT_ADDRESS_2", "KCLIFF_CLIENT_ADDRESS_3",
    "KCLIFF_TOXIPROXY_BIN", "KCLIFF_TOXIPROXY_CONFIG", "KCLIFF_TOXIPROXY_API_PORT",
)


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


def compose_base_command() -> list[str]:
    """The compose v2 binary itself when it can be found (a signal to it reaches the container of a
    `run`; through the docker CLI's plugin shim it does not), else `docker compose`."""
    candidates = [os.environ.get("KCLIFF_DOCKER_COMPOSE"), shutil.which("docker-compose"),
                  str(Path.home() / ".docker/cli-plugins/docker-compose"),
                  "/usr/local/lib/docker/cli-plugins/docker-compose", "/usr/libexec/docker/cli-plugins/docker-compose",
                  "/usr/lib/docker/cli-plugins/docker-compose"]
    for path in candidates:
        if path and os.access(path, os.X_OK) and _is_compose_v2([path]):
            return [path]
    if shutil.which("docker") and _is_compose_v2(["docker", "compose"]):
        return ["docker", "compose"]
    raise InputError(f"docker compose v2 not found: {DOCKER_HINT}")


def _is_compose_v2(base: list[str]) -> bool:
    try:
        done = subprocess.run(base + ["version", "--short"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return done.returncode == 0 and done.stdout.strip().lstrip("v").startswith("2.")


def _docker(*args: str, timeout: float = 60.0, check: bool = True) -> subprocess.CompletedProcess[str]:
    try:
        done = subprocess.run(["docker", *args], capture_output=True, text=True, timeout=timeout,
                              stdin=subprocess.DEVNULL)
    except FileNotFoundError:
        raise InputError(f"docker not found: {DOCKER_HINT}") from None
    except subprocess.TimeoutExpired:
        raise ClusterError(f"docker {' '.join(args[:2])} took over {timeout:.0f}s") from None
    if check and done.returncode != 0:
        raise ClusterError(f"docker {' '.join(args[:2])} failed: {_tail(done.stderr or done.stdout)}")
    return done


def _tail(text: str, lines: int = 15) -> str:
    return "\n".join(text.strip().splitlines()[-lines:])


def image_present(image: str) -> bool:
    return _docker("image", "inspect", "-f", "{{.Id}}", image, check=False).returncode == 0


def choose_image(kafka_version: str, image: str | None = None) -> tuple[str, str]:
    """(repository, pull policy). An explicit image (argument or KCLIFF_KAFKA_IMAGE) wins; otherwise
    apache/kafka when it is present locally, else the stand-in when it is, else apache/kafka pulled
    on first use (GitHub's runners can pull; this machine cannot)."""
    chosen = image or os.environ.get("KCLIFF_KAFKA_IMAGE")
    if not chosen:
        if image_present(f"{DEFAULT_IMAGE}:{kafka_version}"):
            chosen = DEFAULT_IMAGE
        elif image_present(f"{STANDIN_IMAGE}:{kafka_version}"):
            chosen = STANDIN_IMAGE
        else:
            chosen = DEFAULT_IMAGE
    if ":" in chosen.rsplit("/", 1)[-1]:
        raise InputError(f"give the image without a tag ({chosen!r}): the tag is the Kafka version")
    present = image_present(f"{chosen}:{kafka_version}")
    if not present and chosen == STANDIN_IMAGE:
        raise InputError(f"{STANDIN_IMAGE}:{kafka_version} is not built: run scripts/setup-docker.sh")
    return chosen, "never" if present else "missing"


def default_compose_file() -> Path:
    """compose/docker-compose.yml as kcliff ships it (resources: the checkout's or the installed copy)."""
    return resources.shipped("compose") / "docker-compose.yml"


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
                                  env=_compose_environment(), stdin=subprocess.DEVNULL)
        except subprocess.TimeoutExpired:
            raise ClusterError(f"docker compose {args[0]} took over {timeout:.0f}s (project {self.project})") from None
        if check and done.returncode != 0:
            raise ClusterError(f"docker compose {args[0]} failed (project {self.project}):\n"
                               f"{_tail(done.stderr or done.stdout)}")
        return done

    def write_env(self) -> None:
        variables = {
            "KCLIFF_KAFKA_IMAGE": self.image, "KCLIFF_KAFKA_VERSION": self.kafka_version,
            "KCLIFF_PULL_POLICY": self.pull_policy, "KCLIFF_CLUSTER_ID": self.cluster_id,
            "KCLIFF_BROKER_ENV_FILE": str(self.broker_env_file), **self.caps.variables(),
            **{f"KCLIFF_HOST_PORT_{i}": str(p) for i, p in enumerate(self.ports, start=1)},
            **self._client_proxy_variables(),
        }
        self.env_file.write_text("".join(f"{k}={_env_value(v)}\n" for k, v in variables.items()))
        self.write_overrides(self.overrides)

    def write_overrides(self, overrides: dict[str, Any]) -> None:
        lines = [f"{env_name(k)}={_env_value(settings.as_kafka_value(v))}\n" for k, v in sorted(overrides.items())]
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

    def _up(self, timeout: float, *extra: str, launching: tuple[str, ...] = BROKERS) -> None:
        """`compose up` and wait until ready; `launching` are the brokers whose containers this starts."""
        since = (datetime.now(timezone.utc) - timedelta(seconds=1)).strftime("%Y-%m-%dT%H:%M:%SZ")
        done = self.compose("up", "--detach", "--wait", "--wait-timeout", str(int(timeout)), *extra, *BROKERS,
                            timeout=timeout + 60, check=False)
        if done.returncode != 0:
            raise ClusterError(f"the compose cluster did not become healthy (project {self.project}): "
                               f"{_tail(done.stderr, 5)}\n{self._log_tail()}")
        self.wait_ready(timeout, launching, since)

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
                raise ClusterError(f"broker {dead[0]} exited during start-up:\n{self._log_tail()}")
            if time.monotonic() > deadline:
                raise ClusterError(f"brokers not all started and registered after {timeout:.0f}s:\n{self._log_tail()}")
            time.sleep(0.5)
        admin.prove_writable(max(deadline - time.monotonic(), 10.0))

    def _log_tail(self, lines: int = 20) -> str:
        done = self.compose("logs", "--no-color", "--tail", str(lines), *BROKERS, timeout=60, check=False)
        return _tail(done.stdout, 3 * lines)

    def tool_command(self, main_class: str, args: list[str], files: tuple[Path, ...] = ()) -> list[str]:
        """A one-off container of the `producer` service runs the class (its own caps; removed when
        it ends), with `files` mounted read-only at their host paths. Variables the compose file
        reads are unset first, so the caller's environment cannot change what the env file says."""
        unset = [arg for var in COMPOSE_VARIABLES if var in os.environ for arg in ("-u", var)]
        prefix = ["env", *unset] if unset else []
        mounts = [arg for f in files for arg in ("--volume", f"{f.resolve()}:{f.resolve()}:ro")]
        return prefix + self.compose_argv("run", "--rm", "--no-TTY", "--no-deps", *mounts, "producer",
                                          "/opt/kafka/bin/kafka-run-class.sh", main_class, *args)

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

    def container_caps(self) -> dict[str, dict[str, int]]:
        """What docker enforces, per broker container: {'kafka-1': {'nano_cpus': ..., 'memory': ...}}."""
        caps = {}
        for name in BROKERS:
            ids = self.compose("ps", "--all", "--quiet", name, timeout=60).stdout.split()
            if not ids:
                continue
            out = _docker("inspect", "-f", "{{.HostConfig.NanoCpus}} {{.HostConfig.Memory}}", ids[0]).stdout.split()
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
        oneoffs = _docker("ps", "--all", "--quiet", "--filter", label, "--filter",
                          "label=com.docker.compose.oneoff=True", check=False).stdout.split()
        if oneoffs:  # compose down leaves `run` containers behind
            _docker("rm", "--force", "--volumes", *oneoffs, timeout=120, check=False)
        if self.env_file.exists():  # the volumes go too: no broker needs its graceful shutdown (local.down)
            self.compose("down", "--volumes", "--remove-orphans", "--timeout", "0", timeout=300, check=False)
        left = _docker("ps", "--all", "--quiet", "--filter", label, check=False).stdout.split()
        if left:
            _docker("rm", "--force", "--volumes", *left, timeout=120, check=False)
        for kind in ("network", "volume"):
            names = _docker(kind, "ls", "--quiet", "--filter", label, check=False).stdout.split()
            if names:
                _docker(kind, "rm", *names, timeout=120, check=False)

    def container_ids(self) -> list[str]:
        return str(self.compose("ps", "--all", "--quiet", timeout=60, check=False).stdout).split()

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
                "image_id": _docker("image", "inspect", "-f", "{{.Id}}", f"{self.image}:{self.kafka_version}",
                                    check=False).stdout.strip() or None,
                "project": self.project, "bootstrap": self.admin_bootstrap,
                "caps": asdict(self.caps), "restarts_s": list(self.restarts)}


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


def _env_value(value: str) -> str:
    if "\n" in value or "\r" in value:
        raise InputError(f"a value for an env file cannot contain a line break: {value!r}")
    return value


def _compose_environment() -> dict[str, str]:
    """Our environment without the compose file's variables, which would win over the env file."""
    return {k: v for k, v in os.environ.items() if k not in COMPOSE_VARIABLES}


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
    if caps.client_rtt_ms > 0:
        static_toxiproxy()  # before anything starts
    base = compose_base_command()
    if _docker("info", "--format", "{{.ServerVersion}}", check=False, timeout=30).returncode != 0:
        raise InputError(f"no Docker engine answers: {DOCKER_HINT}")
    repository, pull_policy = choose_image(kafka_version, image)
    workdir = Path(workdir).resolve()  # compose resolves relative paths against the compose file
    workdir.mkdir(parents=True, exist_ok=True)
    cluster = ComposeCluster(workdir, kafka_version, repository, pull_policy, caps, project or owned_project_name(),
                             Path(compose_file or os.environ.get("KCLIFF_COMPOSE_FILE") or default_compose_file()),
                             free_ports(len(BROKERS)))
    cluster._base = base
    cluster.cluster_id = new_cluster_id()
    procs.watch_compose(cluster.project)
    cluster.start(timeout_s)
    return cluster


# -- lifetime: compose stacks live in dockerd, out of reach of kcliff's parent-death signal --------
# A project named by owned_project_name carries its owner (this process's pid and start time), so a
# later kcliff can tell a stack whose kcliff died (kcliff.leftovers) from one still in use.
_OWNED_PROJECT = re.compile(r"^kcliff-(\d+)-(\d+)-[0-9a-f]{6}$")


def owned_project_name() -> str:
    return f"kcliff-{os.getpid()}-{procs.process_start(os.getpid())}-{secrets.token_hex(3)}"


def project_owner(project: str) -> Any:
    """The kcliff process (a leftovers.Owner) that started `project`, None for projects not named so."""
    from kcliff.host.leftovers import Owner
    match = _OWNED_PROJECT.match(project)
    return Owner("run", int(match[1]), match[2]) if match else None


def owned_projects() -> list[str]:
    """Compose projects on this Docker engine named by owned_project_name; none without Docker."""
    if shutil.which("docker") is None:
        return []
    try:
        done = _docker("ps", "--all", "--filter", "label=com.docker.compose.project",
                       "--format", '{{.Label "com.docker.compose.project"}}', timeout=20, check=False)
    except ClusterError:
        return []
    return sorted({p for p in done.stdout.split() if _OWNED_PROJECT.match(p)})


def remove_project(project: str) -> bool:
    """Remove every container (one-off producer runs included), network and volume of `project`
    without the compose file, whose env files may be gone with the run. True if anything was there."""
    label = f"label=com.docker.compose.project={project}"
    found = False
    for kind, listing, removal in (("container", ["ps", "--all", "--quiet"], ["rm", "--force", "--volumes"]),
                                   ("network", ["network", "ls", "--quiet"], ["network", "rm"]),
                                   ("volume", ["volume", "ls", "--quiet"], ["volume", "rm", "--force"])):
        try:
            ids = _docker(*listing, "--filter", label, timeout=60, check=False).stdout.split()
            if ids:
                found = True
                _docker(*removal, *ids, timeout=180, check=False)
        except (ClusterError, InputError):
            return found
    return found

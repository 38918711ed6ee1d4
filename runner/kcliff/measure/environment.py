"""What a run ran on, recorded in every results file so results from different machines never mix
silently."""

from __future__ import annotations

import hashlib
import importlib.metadata
import json
import os
import platform
import socket
import subprocess
import time
from pathlib import Path
from typing import Any, TypedDict

from kcliff import __version__, resources
from kcliff.backends.base import Cluster
from kcliff.host import leftovers, load
from kcliff.kafka import dist as kafka_dist


def now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def memory_gb() -> float:
    try:
        pages = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError):
        return 0.0
    return round(pages / 2 ** 30, 1)


def runner_class(backend: str) -> str:
    """Baselines are keyed by this; KCLIFF_RUNNER_CLASS names a runner pool explicitly."""
    return os.environ.get("KCLIFF_RUNNER_CLASS") or f"{backend}-{os.cpu_count()}c-{round(memory_gb())}g"


MACHINE_ID_FILES = (Path("/etc/machine-id"), Path("/var/lib/dbus/machine-id"))


def cpu_model() -> str:
    """The CPU's model name as the kernel reports it ('' where it does not)."""
    try:
        lines = Path("/proc/cpuinfo").read_text().splitlines()
    except OSError:
        return platform.processor()
    return next((line.split(":", 1)[1].strip() for line in lines if line.startswith("model name")), "")


def host_id(machine_id_files: tuple[Path, ...] = MACHINE_ID_FILES) -> str:
    """A stable, non-secret name of this machine: a hash of its machine id and CPU model (hostname and
    CPU model where it has no machine id). Baselines record it per source run, so a run can tell its
    own host's figures from another host's of the same runner class (results/baseline_host.py).
    Hashed with kcliff's own prefix, as machine-id(5) asks: the id itself is never written anywhere."""
    machine = ""
    for path in machine_id_files:
        try:
            machine = path.read_text().strip()
        except OSError:
            continue
        if machine:
            break
    named = f"machine-id:{machine}" if machine else f"hostname:{socket.gethostname()}"
    return hashlib.sha256(f"kcliff host\0{named}\0{cpu_model()}".encode()).hexdigest()[:16]


def git_revision() -> str:
    """The kcliff commit that runs: its checkout's HEAD; installed, the commit the installer recorded."""
    repo = resources.checkout()
    if repo is None:  # never git in whatever directory a wheel was installed under
        return installed_commit() or "unknown"
    try:
        done = subprocess.run(["git", "-C", str(repo), "rev-parse", "HEAD"], capture_output=True, text=True,
                              timeout=10)
    except (OSError, subprocess.TimeoutExpired):
        return "unknown"
    return done.stdout.strip() if done.returncode == 0 else "unknown"


def installed_commit() -> str | None:
    """The commit of an install from a git URL (pip/pipx/uv install git+https://...@sha): installers
    record it in the distribution's direct_url.json (PEP 610). None for a wheel or directory install."""
    try:
        text = importlib.metadata.distribution("kcliff").read_text("direct_url.json")
        commit = json.loads(text or "{}").get("vcs_info", {}).get("commit_id")
    except (importlib.metadata.PackageNotFoundError, ValueError, AttributeError):
        return None
    return commit if isinstance(commit, str) else None


FSYNC_FREE_US = 20.0  # below this an fsync cannot be reaching a disk (tmpfs, a write-back cached VM disk)


def filesystem_of(path: Path) -> str:
    """The type of the filesystem `path` lives on, from the longest matching mount point."""
    best, kind = "", "unknown"
    try:
        lines = Path("/proc/self/mounts").read_text().splitlines()
    except OSError:
        return kind
    target = str(path.resolve())
    for line in lines:
        fields = line.split()
        if len(fields) < 3:
            continue
        mount = fields[1].replace("\\040", " ")
        inside = target == mount or target.startswith(mount.rstrip("/") + "/")
        if inside and len(mount) > len(best):
            best, kind = mount, fields[2]
    return kind


def fsync_us(directory: Path, samples: int = 50) -> float:
    """Median time of an fsync after a 4 KB append in `directory`, in microseconds. The flush
    canary's cliff is made of these waits: where they are nearly free it cannot show."""
    directory.mkdir(parents=True, exist_ok=True)
    probe = directory / f".kcliff-fsync-probe-{os.getpid()}"
    times = []
    fd = os.open(probe, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    try:
        for _ in range(samples):
            os.write(fd, b"\0" * 4096)
            began = time.perf_counter()
            os.fsync(fd)
            times.append(time.perf_counter() - began)
    finally:
        os.close(fd)
        probe.unlink(missing_ok=True)
    return round(sorted(times)[len(times) // 2] * 1e6, 1)


class Storage(TypedDict):
    path: str
    filesystem: str
    fsync_us: float  # the disk's own, probed from kcliff's process, which the shim never delays
    emulated_fsync_ms: float  # --fsync-delay-ms: the least each broker fsync of data took; 0: none


def storage(directory: Path | None, emulated_fsync_ms: float = 0.0) -> Storage | None:
    """Where the brokers' logs are, what an fsync costs there, and the delay the brokers' fsyncs
    were held to on top (backends/storage.py); None when the logs are not on this host."""
    if directory is None:
        return None
    return {"path": str(directory), "filesystem": filesystem_of(directory), "fsync_us": fsync_us(directory),
            "emulated_fsync_ms": emulated_fsync_ms}


def fsync_is_free(env: dict[str, Any]) -> bool:
    """Whether the brokers' fsyncs reached no disk and cost nothing, so fsync cliffs cannot show. An
    emulated delay stands in for the disk: then they cost at least that."""
    probe = env.get("storage")  # JSON from a results file; None or absent: nothing was probed
    if not probe or probe.get("emulated_fsync_ms"):  # absent in files written before the emulation
        return False
    fsync: float = probe["fsync_us"]
    return fsync < FSYNC_FREE_US


def collect(cluster: Cluster, kafka_version: str) -> dict[str, Any]:
    described = cluster.describe()
    return {
        "kafka_version": kafka_version,
        "java": kafka_dist.java_version(),
        "cores": os.cpu_count(),
        "memory_gb": memory_gb(),
        "os": platform.platform(),
        "backend": cluster.backend,
        "runner_class": runner_class(cluster.backend),
        "caps": described.get("caps"),
        "broker_jvm_options": described.get("broker_jvm_options"),  # None: brokers kcliff did not start
        "kcliff_version": __version__,
        "kcliff_revision": git_revision(),
        "hostname": socket.gethostname(),
        "host_id": host_id(),
        "started": now(),
        "ended": None,
        "cluster_bringup_s": cluster.bringup_s,
        "storage": storage(cluster.data_root(), cluster.emulated_fsync_ms()),
        "emulated_fsync_ms": cluster.emulated_fsync_ms(),  # compose's data is in volumes: no storage probe
        "load": load.survey(load.own_marks_of(cluster.process_mark()), cluster.container_ids(), leftovers.reaped()),
    }


def load_warning(env: dict[str, Any]) -> str | None:
    """What else was running when the run began (environment.load), when it matters; None otherwise
    and for results written before kcliff looked."""
    return (env.get("load") or {}).get("warning")


def busy_note(env: dict[str, Any]) -> str | None:
    """The sentence a run table and a check's notes carry when the run began on a busy machine."""
    busy = load_warning(env)
    return f"measured on a busy machine: {busy}" if busy else None

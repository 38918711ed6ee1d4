"""Storage emulation (--fsync-delay-ms): every fsync of the brokers' data takes at least N ms; and
(--disk-mb-s, or a rig profile) their writes pass no faster than a disk's write throughput.

The flush cliffs (log.flush.interval.messages=1) are made of fsync waits, and a development disk
syncs in about a millisecond where a production disk may take ten or more, so on a fast disk the
flush canary hid behind the shared CPUs. The local backend preloads a small shim of our own
(data/fsync-delay.c, built into the cache on first use) into the broker JVMs only, never into
the perf tool or kcliff: fsync() and fdatasync() of a file under that broker's log dir sleep out
the rest of the delay after the real call. The JVM's FileChannel.force(true/false) reaches exactly
these two (seen with strace); the index files' MappedByteBuffer.force (msync) is left to the real
disk, so each flush of a batch waits at least N ms once, as on a disk whose sync costs N ms.

The KRaft metadata log lives in the same log dir in combined mode; it is left out (the shim's
KCLIFF_FSYNC_DELAY_EXCEPT): its fsyncs are the controller's, on a path no produce request waits
on, and production clusters that care put the controllers on disks of their own. What is
emulated is the brokers' data path, the one the flush cliffs are about.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
from enum import StrEnum
from pathlib import Path

from kcliff.errors import ClusterError
from kcliff.resources import DATA

SOURCE = DATA / "fsync-delay.c"
LIBRARY = "libkcliff-fsync-delay.so"
BUILD_TIMEOUT_S = 120
METADATA_LOG = "__cluster_metadata-0"  # KRaft's metadata log partition, inside log.dirs in combined mode
# The emulated disk kcliff measures on unless told otherwise (run, check, cluster up, make run): the
# one place this default is set. 20 ms per fsync stands for a production disk's sync: default checks
# measured flush-1 at 0.02-0.04x of the reference against its 0.65 bound, where this machine's own
# ~1 ms disk gave 0.29-0.65x (docs/gate.md: The rig; benchmarks/data/self-test-*.txt).
DEFAULT_FSYNC_DELAY_MS = 20.0
WRITE_RATE_VAR = "KCLIFF_WRITE_BYTES_PER_S"  # the shim's write cap, bytes per second (0 or unset: none)


def cache_dir() -> Path:
    """Where what kcliff builds is cached, once per machine (as scripts/setup-*.sh cache theirs)."""
    return Path(os.environ.get("KCLIFF_CACHE") or Path.home() / ".cache" / "kcliff")


class Libc(StrEnum):
    """The C library a shim is built for: this host's (glibc: the local backend, kcliff's stand-in image)
    or musl (apache/kafka's Alpine image, whose loader cannot load a glibc build)."""

    GLIBC = "glibc"
    MUSL = "musl"

    @property
    def compiler(self) -> str:
        return (os.environ.get("CC") or "gcc") if self is Libc.GLIBC else "musl-gcc"

    @property
    def install(self) -> str:
        return "install gcc, or set CC" if self is Libc.GLIBC else "install musl-tools (Debian) for musl-gcc"


def library_path(libc: Libc = Libc.GLIBC) -> Path:
    """Where the shim built from the current source goes (keyed by its hash, so a shim built from an
    older source is never used)."""
    digest = hashlib.sha256(SOURCE.read_bytes()).hexdigest()[:16]
    return cache_dir() / f"fsync-delay-{digest}" / (LIBRARY if libc is Libc.GLIBC else f"musl-{LIBRARY}")


def find_library(libc: Libc = Libc.GLIBC) -> Path:
    """The shim built from the current source, built on first use: one C compiler call (under a
    second), so an installed kcliff needs no setup script. A ClusterError (exit 2) without a compiler."""
    path = library_path(libc)
    if path.is_file():
        return path
    cc = libc.compiler
    if shutil.which(cc) is None:
        raise ClusterError(f"the fsync-delay shim for {libc} is not built ({path}) and there is no C compiler ({cc}) "
                           f"to build it: the emulated disk needs one ({libc.install})")
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(f"{path.name}.{os.getpid()}.tmp")  # runs building at once each rename a whole one
    argv = [cc, "-O2", "-fPIC", "-shared", "-Wall", "-Wextra", "-Werror", "-o", str(partial), str(SOURCE),
            *(["-ldl"] if libc is Libc.GLIBC else [])]
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=BUILD_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        done = subprocess.CompletedProcess(argv, 1, "", f"timed out after {BUILD_TIMEOUT_S}s")
    if done.returncode != 0:
        partial.unlink(missing_ok=True)
        raise ClusterError(f"building the fsync-delay shim failed ({' '.join(argv)}):\n"
                           f"{done.stderr.strip()[-800:]}")
    os.replace(partial, path)
    return path


def broker_env(delay_ms: float, data_dir: Path, library: Path, write_mb_s: float = 0.0) -> dict[str, str]:
    """Environment for one broker JVM whose fsyncs under `data_dir` (its log.dirs, minus the
    metadata log) take at least `delay_ms`, and whose writes there pass at most `write_mb_s` MB/s
    (10^6 bytes; 0: uncapped). Paths are resolved: the shim compares them with the resolved paths of
    /proc/self/fd."""
    data = data_dir.resolve()
    preload = " ".join(p for p in (str(library), os.environ.get("LD_PRELOAD", "")) if p)
    env = {"LD_PRELOAD": preload, "KCLIFF_FSYNC_DELAY_MS": f"{delay_ms:g}",
           "KCLIFF_FSYNC_DELAY_DIRS": str(data), "KCLIFF_FSYNC_DELAY_EXCEPT": str(data / METADATA_LOG)}
    return env | write_pacing(write_mb_s)


def write_pacing(write_mb_s: float) -> dict[str, str]:
    """The shim's variable that holds writes under the data directory to `write_mb_s` MB/s (10^6 bytes):
    the local brokers' environment and the compose brokers' alike; none when uncapped."""
    return {WRITE_RATE_VAR: f"{write_mb_s * 1e6:.0f}"} if write_mb_s > 0 else {}


def log_bytes(data_dir: Path) -> int:
    """Bytes the broker's partition logs hold now (the metadata log left out): their growth over a run
    is what reached this broker's disk."""
    total = 0
    for path in data_dir.glob("*/*.log"):
        if path.parent.name != METADATA_LOG:
            try:
                total += path.stat().st_size
            except OSError:  # a segment deleted under us
                pass
    return total

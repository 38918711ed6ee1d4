"""Class-data-sharing archives (Java's AppCDS) for the client tools' JVMs, and the local brokers' and
storage formatter's.

Every perf-tool run starts a fresh JVM, and about 0.45 s of its start is loading Kafka's client
classes, which a JVM mapping an archive of them skips (docs/measurements.md, "Tool start-up"). What
the tools measure excludes their own start, so their figures are unchanged.

A tool's first run without an archive lists the classes it loads (-XX:DumpLoadedClassList); before
the next run a JVM of its own builds the archive from that list (-Xshare:dump, about 3 s, once per
machine), so no run a tool measures ever writes an archive or fails for one. An archive is built
under a temporary name and renamed only when complete: one cut short crashes the JVM mapping it.
An archive is keyed on everything a JVM is started with, so each checkout builds its own; one that no
run has used for UNUSED_DAYS is removed when another is built.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import time
import uuid
from pathlib import Path

from kcliff.host import procs

# The JVM says nothing of archives (one it cannot use, classes it leaves out) and its errors go
# to stderr: the tools' stdout is parsed.
QUIET = ["-Xlog:disable", "-Xlog:all=error:stderr"]
BUILD_TIMEOUT_S = 120.0
UNUSED_DAYS = 14  # about 42 MB each: a checkout or JDK gone for two weeks no longer needs its archives
_tried: set[Path] = set()  # archives this process has already had a run list the classes for


def jvm_options(directory: Path, jvm: list[str], classpath: str, main_class: str) -> list[str]:
    """Options for `java *jvm -cp classpath main_class` to start from its archive in `directory`,
    or to list the classes it loads when there is none yet; none when `directory` cannot be written."""
    archive = archive_path(directory, jvm, classpath, main_class)
    if not archive.exists():
        build_from_lists(archive, jvm, classpath)
    if archive.exists():
        _mark_used(archive)
        return [f"-XX:SharedArchiveFile={archive}", *QUIET]
    if archive in _tried or not _writable(directory):
        return []
    _tried.add(archive)
    return [f"-XX:DumpLoadedClassList={archive.with_name(f'{archive.name}.{os.getpid()}.classes')}", *QUIET]


def archive_path(directory: Path, jvm: list[str], classpath: str, main_class: str) -> Path:
    """One archive per JVM binary, options, classpath and main class: an archive is only usable by
    a JVM started exactly as the one it was built for."""
    real = os.path.realpath(shutil.which("java") or "java")
    stamp = str(os.stat(real).st_mtime_ns) if os.path.exists(real) else ""
    key = hashlib.sha256("\0".join([real, stamp, *jvm, classpath, main_class]).encode()).hexdigest()[:16]
    return directory / f"{main_class.rsplit('.', 1)[-1]}-{key}.jsa"


def build_from_lists(archive: Path, jvm: list[str], classpath: str) -> None:
    """Build `archive` from a class list a finished run left (this process's, or a dead one's);
    the lists are removed whatever the build's outcome, so a list that cannot build is tried once."""
    for classes in sorted(archive.parent.glob(f"{archive.name}.*.classes")):
        writer = classes.name[len(archive.name) + 1:-len(".classes")]
        if writer.isdigit() and int(writer) != os.getpid() and procs.pid_alive(int(writer)):
            continue  # another kcliff's run may still be writing it
        if not archive.exists():
            _build(archive, classes, jvm, classpath)
        classes.unlink(missing_ok=True)


def _build(archive: Path, classes: Path, jvm: list[str], classpath: str) -> None:
    part = archive.with_name(f"{archive.name}.{uuid.uuid4().hex[:8]}.part")
    argv = ["java", "-Xshare:dump", f"-XX:SharedClassListFile={classes}", f"-XX:SharedArchiveFile={part}",
            *jvm, "-cp", classpath]
    try:
        if subprocess.run(argv, capture_output=True, timeout=BUILD_TIMEOUT_S).returncode == 0:
            os.replace(part, archive)
            remove_unused(archive.parent)
    except (OSError, subprocess.TimeoutExpired):
        pass  # the tools start as they did without one
    finally:
        part.unlink(missing_ok=True)


def remove_unused(directory: Path, days: float = UNUSED_DAYS) -> None:
    """Remove the archives (and lists, parts) in `directory` nothing has used for `days`. A JVM that
    has one mapped keeps it; one about to map it starts without it, as on a machine with none."""
    cutoff = time.time() - days * 86400
    for path in directory.iterdir():
        try:
            if path.stat().st_mtime < cutoff:
                path.unlink()
        except OSError:
            pass  # gone already, or another user's


def _mark_used(archive: Path) -> None:
    try:
        os.utime(archive)  # its mtime says when a run last used it (remove_unused)
    except OSError:
        pass  # a cache shared with another user: it may be removed while still in use, and rebuilt


def _writable(directory: Path) -> bool:
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError:
        return False
    return os.access(directory, os.W_OK)

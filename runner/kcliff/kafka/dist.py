"""Kafka's jars: fetched once from Maven Central into a cache, or taken from an existing distribution."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

from kcliff.errors import InputError
from kcliff.host import class_archive
from kcliff.kafka import release as kafka_release
from kcliff.kafka.release import KafkaRelease, LogRole
from kcliff.resources import DATA

DEFAULT_VERSION = "4.2.0"
_VERSION = re.compile(r"^\d+\.\d+\.\d+$")
FETCH_TIMEOUT_S = 900
# The brokers' JIT stops at C1: with C2 a broker kept speeding up for minutes after priming (2.3 to
# 8 MB/s over 12 runs, CV 0.30-0.39), with C1 alone it is steady from the first run (CV 0.08-0.10), and
# a check's rounds go as the square of that scatter (docs/measurements.md, "The brokers' JIT"). The
# local brokers only, so far: compose's run the image's default JIT.
BROKER_JVM_OPTIONS = ("-XX:TieredStopAtLevel=1",)


def cache_dir() -> Path:
    base = os.environ.get("KCLIFF_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "kcliff")
    return Path(base)


def check_version(version: str) -> str:
    if not _VERSION.match(version):
        raise InputError(f"Kafka version must look like 4.2.0, got {version!r}")
    why = kafka_release.measurable(version)
    if why is not None:
        raise InputError(why)
    return version


def release_of(libs: Path) -> KafkaRelease:
    """The release whose jars `libs` holds (a distribution's libs/, or the cache's)."""
    found = kafka_release.of_libs(libs)
    if found is None:
        raise InputError(f"no kafka-clients jar in {libs}: cannot tell which Kafka release it is")
    why = kafka_release.measurable(found.version)
    if why is not None:
        raise InputError(f"{why} ({libs})")
    return found


def libs_dir(version: str, kafka_home: str | None = None) -> Path:
    """Where the jars are: `kafka_home`/libs of a distribution, else the Maven cache for `version`."""
    home = kafka_home or os.environ.get("KCLIFF_KAFKA_HOME")
    if home:
        libs = Path(home) / "libs"
        if not any(libs.glob("kafka_*.jar")):
            raise InputError(f"no Kafka distribution at {home}: expected kafka_*.jar under {libs}")
        release_of(libs)
        return libs
    return cache_dir() / f"kafka-{check_version(version)}" / "libs"


def ensure(version: str = DEFAULT_VERSION, kafka_home: str | None = None) -> Path:
    """Return the jars directory, fetching the jars with Maven first if they are not cached yet."""
    libs = libs_dir(version, kafka_home)
    if kafka_home or os.environ.get("KCLIFF_KAFKA_HOME") or (libs / ".complete").exists():
        return libs
    if shutil.which("mvn") is None:
        raise InputError("Maven (mvn) is needed to fetch Kafka's jars; install it or pass --kafka-home")
    libs.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=libs.parent) as tmp:
        logging = kafka_release.of(version).logging.value
        argv = ["mvn", "-q", "-B", "-f", str(DATA / "kafka-pom.xml"), "dependency:copy-dependencies",
                f"-Dkafka.version={version}", f"-Dkcliff.logging={logging}", f"-DoutputDirectory={tmp}/libs",
                "-Dmdep.includeScope=runtime"]
        try:
            done = subprocess.run(argv, capture_output=True, text=True, timeout=FETCH_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            raise InputError(f"fetching Kafka {version} jars with Maven took over {FETCH_TIMEOUT_S}s") from None
        if done.returncode != 0:
            tail = "\n".join((done.stdout + done.stderr).strip().splitlines()[-5:])
            raise InputError(f"could not fetch Kafka {version} jars from Maven Central:\n{tail}")
        (Path(tmp) / "libs" / ".complete").touch()
        if libs.exists():
            shutil.rmtree(libs)
        os.replace(Path(tmp) / "libs", libs)
    return libs


def classpath(libs: Path) -> str:
    jars = sorted(str(p) for p in libs.glob("*.jar"))
    if not jars:
        raise InputError(f"no jars in {libs}")
    return os.pathsep.join(jars)


def java_version() -> str:
    """The `java` on PATH's version; Kafka 4 needs 17+."""
    java = shutil.which("java")
    if java is None:
        raise InputError("java not found on PATH: Kafka 4 needs Java 17 or newer")
    out = subprocess.run([java, "-version"], capture_output=True, text=True, timeout=30).stderr
    match = re.search(r'version "([^"]+)"', out)
    version = match.group(1) if match else "unknown"
    major = int(version.split(".")[0]) if version[:2].isdigit() else 0
    if major < 17:
        raise InputError(f"Java {version} found; Kafka 4 needs Java 17 or newer")
    return version


def pinned(cpus: str | None) -> list[str]:
    """The argv prefix that keeps a process on `cpus` (taskset), where they are given and taskset is there."""
    return ["taskset", "-c", cpus] if cpus and shutil.which("taskset") else []


def java_command(libs: Path, main_class: str, heap_mb: int, role: LogRole = LogRole.TOOLS,
                 cpus: str | None = None, archived: bool = False, jars: tuple[Path, ...] = ()) -> list[str]:
    """argv for one JVM running `main_class`, logging as `role` in the way its release does (a broker
    with BROKER_JVM_OPTIONS); optionally pinned to `cpus` with taskset, and `archived`: started from an
    archive of its classes (class_archive.py; the client tools, the local brokers and formatter).
    `jars` go ahead of the release's (kcliff's load generator and what it brings)."""
    argv = pinned(cpus)
    jvm = [f"-Xms{min(heap_mb, 512)}m", f"-Xmx{heap_mb}m", "-XX:+UseG1GC", "-Djava.awt.headless=true",
           release_of(libs).log_option(role), *(BROKER_JVM_OPTIONS if role is LogRole.BROKER else ())]
    path = os.pathsep.join([*(str(j) for j in jars), classpath(libs)])
    if archived:
        jvm = class_archive.jvm_options(cache_dir() / "class-archives", jvm, path, main_class) + jvm
    return argv + ["java", *jvm, "-cp", path, main_class]

"""kcliff's own open-loop load generator (loadgen/, docs/loadgen.md): built with Maven into the cache
beside Kafka's jars, once per source tree (keyed on the sources' hash, so an edit rebuilds and an
unchanged tree costs nothing), and run with the measured release's libs on its classpath."""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

from kcliff import resources
from kcliff.errors import InputError
from kcliff.kafka import dist

MAIN_CLASS = "dev.kcliff.loadgen.LoadGen"
BUILD_TIMEOUT_S = 900.0  # a first build downloads Maven's plugins; later ones take seconds
JAR = "kcliff-loadgen.jar"


def source_dir() -> Path:
    return resources.shipped("loadgen")


def sources(root: Path) -> list[Path]:
    """What the build reads: the pom and the Java sources (never a build's target/)."""
    return [root / "pom.xml", *sorted((root / "src").rglob("*.java"))]


def source_hash(root: Path) -> str:
    digest = hashlib.sha256()
    for path in sources(root):
        digest.update(path.relative_to(root).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()[:16]


def built_dir(root: Path | None = None) -> Path:
    root = root or source_dir()
    return dist.cache_dir() / f"loadgen-{source_hash(root)}"


def jars(directory: Path) -> tuple[Path, ...]:
    """The program's jar first, then what it brings (HdrHistogram), ahead of the release's jars."""
    return (directory / JAR, *sorted((directory / "lib").glob("*.jar")))


def ensure(root: Path | None = None) -> tuple[Path, ...]:
    """The load generator's jars, built first when this source tree has not been built yet."""
    root = root or source_dir()
    done = built_dir(root)
    if (done / ".complete").exists():
        return jars(done)
    if shutil.which("mvn") is None:
        raise InputError("Maven (mvn) is needed to build kcliff's load generator (loadgen/): install it")
    done.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=done.parent, prefix=".loadgen-") as tmp:
        work = Path(tmp) / "src"
        for path in sources(root):  # built from a copy: a checkout or an installed package stays clean
            target = work / path.relative_to(root)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, target)
        argv = ["mvn", "-q", "-B", "-Dstyle.color=never", "-f", str(work / "pom.xml"), "package"]
        try:
            built = subprocess.run(argv, capture_output=True, text=True, timeout=BUILD_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            raise InputError(f"building kcliff's load generator with Maven took over {BUILD_TIMEOUT_S:.0f}s") from None
        if built.returncode != 0:
            raise InputError(f"could not build kcliff's load generator ({root}) with Maven: "
                             f"{_first_error(built.stdout + built.stderr)}")
        out = Path(tmp) / "out"
        (out / "lib").mkdir(parents=True)
        shutil.copyfile(work / "target" / JAR, out / JAR)
        for lib in (work / "target" / "lib").glob("*.jar"):
            shutil.copyfile(lib, out / "lib" / lib.name)
        (out / ".complete").touch()
        try:
            os.replace(out, done)
        except OSError:
            if not (done / ".complete").exists():  # not another kcliff's build of the same sources
                raise
    return jars(done)


def _first_error(output: str) -> str:
    """What went wrong, from Maven's output: the compiler's first error on a source, else its last
    words (a plugin it could not download, say)."""
    lines = [line.strip() for line in output.splitlines() if line.strip()]
    on_source = [line for line in lines if ".java:" in line]
    return on_source[0] if on_source else " ".join(lines[-3:])

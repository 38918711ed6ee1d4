"""Which librdkafka the librdkafka load generator runs on (docs/librdkafka.md, "Which librdkafka").

By default the one bundled by the confluent-kafka kcliff itself installed (a project dependency, so
`scripts/setup.sh` is all a user runs). A service on another release names its confluent-kafka release
(`KCLIFF_CONFLUENT_KAFKA=2.6.1`): kcliff then keeps a venv of its own per release under
~/.cache/kcliff/confluent-kafka-<release>/, holding only that confluent-kafka (whose wheel bundles its
librdkafka) and hdrhistogram, installed once with pip from PyPI and reused as it is after that."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
from importlib import metadata
from pathlib import Path

import kcliff
from kcliff.errors import InputError
from kcliff.kafka import dist

MODULE = "kcliff.kafka.rdkafka_loadgen"
RELEASE_VAR = "KCLIFF_CONFLUENT_KAFKA"
INSTALL_TIMEOUT_S = 600.0
_RELEASE = re.compile(r"^[0-9]+\.[0-9]+\.[0-9]+(\.post[0-9]+)?$")


def wanted() -> str | None:
    """The confluent-kafka release asked for (None: the installed one)."""
    return os.environ.get(RELEASE_VAR) or None


def installed() -> tuple[str, str]:
    """The installed confluent-kafka's release and its librdkafka's."""
    import confluent_kafka
    ours = confluent_kafka.version()  # a str, where the bindings' docs say a (str, int) tuple
    return ours[0] if isinstance(ours, tuple) else ours, confluent_kafka.libversion()[0]


def venv_dir(release: str) -> Path:
    return dist.cache_dir() / f"confluent-kafka-{release}"


def ensure_venv(release: str) -> Path:
    """The python of a venv holding confluent-kafka `release`; made once (a minute), at once after that."""
    if not _RELEASE.match(release):
        raise InputError(f"{RELEASE_VAR}={release!r}: expected a confluent-kafka release such as 2.6.1")
    done = venv_dir(release)
    python = done / "bin" / "python"
    if (done / ".complete").exists():
        return python
    done.parent.mkdir(parents=True, exist_ok=True)
    hdrh_version = metadata.version("hdrhistogram")  # the one kcliff reads the histograms with
    with tempfile.TemporaryDirectory(dir=done.parent, prefix=".confluent-kafka-") as tmp:
        # made where it stays (a venv's scripts name their own path), then marked complete
        steps = [[sys.executable, "-m", "venv", str(done)],
                 [str(python), "-m", "pip", "install", "-q", "--disable-pip-version-check", "--only-binary", ":all:",
                  f"confluent-kafka=={release}", f"hdrhistogram=={hdrh_version}"]]
        for argv in steps:
            try:
                ran = subprocess.run(argv, capture_output=True, text=True, timeout=INSTALL_TIMEOUT_S, cwd=tmp)
            except subprocess.TimeoutExpired:
                raise InputError(f"installing confluent-kafka {release} took over {INSTALL_TIMEOUT_S:.0f}s") from None
            if ran.returncode != 0:
                said = " ".join((ran.stderr or ran.stdout).strip().splitlines()[-2:])
                raise InputError(f"{RELEASE_VAR}={release}: could not install confluent-kafka {release} from PyPI "
                                 f"into {done}: {said}")
    (done / ".complete").touch()
    return python


def command() -> list[str]:
    """argv that runs the librdkafka load generator (its own arguments follow) on the wanted release."""
    release = wanted()
    if release is None or release == installed()[0]:
        return [sys.executable, "-m", MODULE]
    runner = Path(kcliff.__file__).resolve().parent.parent  # the generator itself comes from this kcliff
    return ["env", f"PYTHONPATH={runner}", str(ensure_venv(release)), "-m", MODULE]


def describe() -> str:
    """What the generator runs on, for a run's notes: 'confluent-kafka 2.16.1 (librdkafka 2.16.0)'."""
    release = wanted()
    if release is None or release == installed()[0]:
        ours, lib = installed()
        return f"confluent-kafka {ours} (librdkafka {lib})"
    return f"confluent-kafka {release}"

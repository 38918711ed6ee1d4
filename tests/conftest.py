import json
import os
import re
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import NamedTuple

import pytest

ROOT = Path(__file__).resolve().parents[1]
KCLIFF = [sys.executable, "-m", "kcliff.cli"]


def pytest_configure(config) -> None:
    # beside pyproject's markers: make test runs these on the shared cores, make unit leaves them out
    config.addinivalue_line("markers", "jars: runs Kafka's jars (make setup fetched them) in a JVM, starts no cluster, "
                                       "measures nothing")


def run_kcliff(*args: str, cwd: Path = ROOT, timeout: float = 900, env: dict | None = None
               ) -> subprocess.CompletedProcess:
    """The real CLI in a subprocess, as a user or CI calls it."""
    return subprocess.run([*KCLIFF, *args], cwd=cwd, capture_output=True, text=True, timeout=timeout,
                          env={**os.environ, **(env or {})})


class TimedProcess(subprocess.CompletedProcess):
    """A finished process and when each of its output lines arrived, from its start (seconds)."""

    def __init__(self, args, returncode: int, stdout: str, stderr: str, arrivals: list[float], ran_s: float):
        super().__init__(args, returncode, stdout, stderr)
        self.arrivals = arrivals
        self.ran_s = ran_s

    def longest_silence(self) -> float:
        """The longest a reader waited for a line: from the start, between lines, to the exit."""
        marks = [0.0, *sorted(self.arrivals), self.ran_s]
        return max(b - a for a, b in zip(marks, marks[1:]))


def run_kcliff_timed(*args: str, cwd: Path = ROOT, timeout: float = 900) -> TimedProcess:
    """run_kcliff, noting when each line of stdout and stderr arrived (both are pipes, as in CI)."""
    command = [*KCLIFF, *args]
    began = time.monotonic()
    proc = subprocess.Popen(command, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    texts: dict[str, list[str]] = {"out": [], "err": []}
    arrivals: list[float] = []

    def read(stream, into: list[str]) -> None:
        for line in stream:
            arrivals.append(time.monotonic() - began)
            into.append(line)
    readers = [threading.Thread(target=read, args=(proc.stdout, texts["out"])),
               threading.Thread(target=read, args=(proc.stderr, texts["err"]))]
    for reader in readers:
        reader.start()
    try:
        proc.wait(timeout=timeout)
    finally:
        if proc.poll() is None:
            proc.kill()
        for reader in readers:
            reader.join()
    return TimedProcess(command, proc.returncode, "".join(texts["out"]), "".join(texts["err"]), arrivals,
                        time.monotonic() - began)


def wait_for(predicate, timeout: float, what: str):
    """predicate's first truthy value, polled every 0.5 s; fails the test after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.5)
    raise AssertionError(f"timed out waiting for {what}")


@pytest.fixture
def kcliff():
    return run_kcliff


SHARED = "shared_cluster"
_shared_work: list[Path] = []  # the shared cluster's workdir while it is up


def _uses_shared(item: pytest.Item | None) -> bool:
    return item is not None and SHARED in getattr(item, "fixturenames", ())


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The tests on the shared cluster run one after another, where the first of them stood: its three
    brokers idled beside every later test (in CI, the act workflows' compose clusters warned of them)."""
    first = next((i for i, item in enumerate(items) if _uses_shared(item)), None)
    if first is None:
        return
    users = [item for item in items if _uses_shared(item)]
    rest = [item for item in items[first:] if not _uses_shared(item)]
    items[first:] = users + rest


def _stop_shared_cluster() -> None:
    while _shared_work:
        work = _shared_work.pop()
        down = run_kcliff("cluster", "down", "--workdir", str(work), timeout=120)
        assert down.returncode == 0, down.stderr


@pytest.hookimpl(trylast=True)
def pytest_runtest_teardown(item: pytest.Item, nextitem: pytest.Item | None) -> None:
    # the block's last test stops the cluster; the session's end would be too late
    if _uses_shared(item) and not _uses_shared(nextitem):
        _stop_shared_cluster()


@pytest.fixture(scope="session")
def shared_cluster(tmp_path_factory) -> Path:
    """A workdir whose local cluster (`kcliff cluster up`) serves every test that only measures;
    `kcliff run --workdir` uses it. Tests about bring-up and teardown start their own. Its users
    run as one block (pytest_collection_modifyitems), and the last of them stops it."""
    work = tmp_path_factory.mktemp("shared") / "w"
    up = run_kcliff("cluster", "up", "--workdir", str(work), timeout=300)
    assert up.returncode == 0, up.stderr[-2000:]
    _shared_work.append(work)
    yield work
    _stop_shared_cluster()


def _makefile_default(name: str) -> str:
    """What the Makefile's `NAME ?= value` line gives NAME (empty: left unset)."""
    found = re.search(rf"^{name} \?=(.*)$", (ROOT / "Makefile").read_text(), re.MULTILINE)
    assert found, f"the Makefile has no {name} default"
    return found.group(1).strip()


def make_run_rtt_ms() -> int:
    """The producer-broker round trip `make run` adds (the Makefile's RTT_MS default)."""
    return int(_makefile_default("RTT_MS"))


def make_run_fsync_ms() -> float:
    """The per-fsync delay `make run` gives the brokers: the Makefile leaves FSYNC_MS unset, so
    kcliff's default applies, the one every check measures with."""
    assert not _makefile_default("FSYNC_MS"), "the Makefile sets its own FSYNC_MS default"
    from kcliff.backends.storage import DEFAULT_FSYNC_DELAY_MS
    return DEFAULT_FSYNC_DELAY_MS


class CanariesRun(NamedTuple):
    """One finished `kcliff run` of the canaries suite: the process, its results document, and the
    folder its workdir lives under (for checks that nothing of it is left running)."""
    done: TimedProcess
    doc: dict
    folder: Path


@pytest.fixture(scope="session")
def emulated_disk_canaries(tmp_path_factory) -> CanariesRun:
    """The canaries as `make run` measures them (the Makefile's emulated fsync delay, no round trip
    added), on a cluster of their own: measured once for every test that reads this run's results
    (the canaries' cliffs in tests/backends/test_local_cluster.py, the in-flight canary skipped for want
    of a round trip in tests/backends/test_client_rtt.py)."""
    folder = tmp_path_factory.mktemp("canaries")
    out = folder / "results.json"
    done = run_kcliff_timed("run", "--suite", "canaries", "--records", "30000", "--repeats", "2", "--prime", "20",
                            "--fsync-delay-ms", f"{make_run_fsync_ms():g}", "--workdir", str(folder / "w"),
                            "--out", str(out), timeout=900)
    assert out.exists(), done.stderr[-3000:]
    return CanariesRun(done, json.loads(out.read_text()), folder)


@pytest.fixture(scope="session")
def docker_engine():
    """A Docker engine that answers, for every test that needs one. At the end of the session the
    engine scripts/setup-docker.sh started is stopped again (scripts/stop-docker.sh;
    KCLIFF_KEEP_DOCKER=1 keeps it): once, so no later module finds it stopped."""
    done = subprocess.run(["docker", "info", "--format", "{{.ServerVersion}}"], capture_output=True, text=True)
    if done.returncode != 0:
        reason = f"no Docker engine answers ({done.stderr.strip()[:200]})"
        if os.environ.get("KCLIFF_REQUIRE_DOCKER") == "1":
            pytest.fail(f"Docker is required here (KCLIFF_REQUIRE_DOCKER=1) but {reason}")
        pytest.skip(f"SKIPPED, Docker unavailable: {reason} (scripts/setup-docker.sh sets it up)")
    yield done.stdout.strip()
    if os.environ.get("KCLIFF_KEEP_DOCKER") != "1":
        subprocess.run([str(ROOT / "scripts" / "stop-docker.sh")], check=False)

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
KCLIFF = [sys.executable, "-m", "kcliff.cli"]


def run_kcliff(*args: str, cwd: Path = ROOT, timeout: float = 900, env: dict | None = None
               ) -> subprocess.CompletedProcess:
    """The real CLI in a subprocess, as a user or CI calls it."""
    return subprocess.run([*KCLIFF, *args], cwd=cwd, capture_output=True, text=True, timeout=timeout,
                          env={**os.environ, **(env or {})})


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


@pytest.fixture(scope="session")
def shared_cluster(tmp_path_factory) -> Path:
    """A workdir whose local cluster (`kcliff cluster up`) serves every test that only measures;
    `kcliff run --workdir` uses it. Tests about bring-up and teardown start their own."""
    work = tmp_path_factory.mktemp("shared") / "w"
    up = run_kcliff("cluster", "up", "--workdir", str(work), timeout=300)
    assert up.returncode == 0, up.stderr[-2000:]
    yield work
    down = run_kcliff("cluster", "down", "--workdir", str(work), timeout=120)
    assert down.returncode == 0, down.stderr

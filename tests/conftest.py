import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
KCLIFF = [sys.executable, "-m", "kcliff.cli"]


def run_kcliff(*args: str, cwd: Path = ROOT, timeout: float = 900, env: dict | None = None
               ) -> subprocess.CompletedProcess:
    """The real CLI in a subprocess, as a user or CI calls it."""
    return subprocess.run([*KCLIFF, *args], cwd=cwd, capture_output=True, text=True, timeout=timeout,
                          env={**os.environ, **(env or {})})


@pytest.fixture
def kcliff():
    return run_kcliff

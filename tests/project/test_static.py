"""Undefined names and unused imports in the package and the tests (a NameError on a path only a
fault reaches would otherwise surface in the middle of someone's nightly run)."""

import subprocess
import sys

from conftest import ROOT


def test_pyflakes_finds_nothing():
    done = subprocess.run([sys.executable, "-m", "pyflakes", "runner/kcliff", "tests", "benchmarks"],
                          cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr

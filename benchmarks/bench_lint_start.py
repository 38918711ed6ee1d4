"""How long `kcliff lint examples/config-repo` takes from the shell, start to exit, against the floor
of the same machine: `python -c pass` timed in the same rounds, so a slow stretch of a shared
machine falls on both and the ratio still reads. --rev REV also times that older revision's kcliff
(`git archive REV`, run from its own runner/ ahead of the installed one) in the same rounds: the
before and after of a change. The order within a round rotates.

Each figure twice, since the bytecode cache is half the story. "as-is" runs in this environment
unchanged: on the development machine PYTHONDONTWRITEBYTECODE=1 is set and uv installs without
compiling, so kcliff and its libraries are compiled from source on every run. "cached" writes and
reads .pyc (as after pip install, or any second run elsewhere) in a temporary PYTHONPYCACHEPREFIX,
so neither the checkout nor the venv is written. Each command runs once unmeasured first. The CPU
seconds (user + system) of each run are printed too: on a loaded machine they move less than wall time.

    .venv/bin/python benchmarks/bench_lint_start.py [--runs 10] [--rev REV] [PATH]
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
KCLIFF = Path(sys.executable).parent / "kcliff"  # the console script, as a user or CI runs it
TREE = ("pyproject.toml", "runner", "scenarios", "compose", "reports", "baselines")  # what kcliff reads of a checkout
BYTECODE = ("PYTHONDONTWRITEBYTECODE", "PYTHONPYCACHEPREFIX")


def timed(argv: list[str], env: dict[str, str], cwd: Path) -> tuple[float, float]:
    """Wall and CPU seconds (user + system) of one run of argv."""
    cpu = resource.getrusage(resource.RUSAGE_CHILDREN)
    began = time.perf_counter()
    done = subprocess.run(argv, env=env, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    took = time.perf_counter() - began
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode not in (0, 1):  # 1: the config matched a cliff rule, which is still a lint
        raise SystemExit(f"{' '.join(argv)} exited {done.returncode}: {done.stderr}")
    return took, (after.ru_utime - cpu.ru_utime) + (after.ru_stime - cpu.ru_stime)


def spread(values: list[float]) -> str:
    return f"{statistics.median(values):.3f} s ({min(values):.3f}-{max(values):.3f})"


def extract(rev: str, into: Path) -> None:
    into.mkdir()
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", rev, *TREE], capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("path", nargs="?", default=str(ROOT / "examples" / "config-repo"))
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--rev", help="also time this git revision's kcliff, in the same rounds")
    args = parser.parse_args()
    lint = [str(KCLIFF), "lint", str(Path(args.path).resolve())]
    with tempfile.TemporaryDirectory(prefix="bench-lint-start-") as tmp:
        # (label, argv, extra environment, working directory): kcliff reads its rules from the tree it runs from
        subjects = [("python -c pass", [sys.executable, "-c", "pass"], {}, ROOT), ("kcliff lint", lint, {}, ROOT)]
        if args.rev:
            extract(args.rev, Path(tmp) / "rev")
            subjects.append((f"lint at {args.rev}", lint, {"PYTHONPATH": str(Path(tmp) / "rev" / "runner")},
                             Path(tmp) / "rev"))
        print(f"{' '.join(lint[1:])}: {args.runs} runs of each per mode; load average {os.getloadavg()[0]:.1f} at "
              f"the start on {os.cpu_count()} cores; PYTHONDONTWRITEBYTECODE={os.environ.get(BYTECODE[0], '')!r}")
        for mode in ("as-is", "cached"):
            env = dict(os.environ)
            if mode == "cached":
                env = {k: v for k, v in env.items() if k not in BYTECODE} | {BYTECODE[1]: str(Path(tmp) / "pycache")}
            times: dict[str, list[tuple[float, float]]] = {label: [] for label, *_ in subjects}
            for label, argv, extra, cwd in subjects:
                timed(argv, env | extra, cwd)  # unmeasured: writes the cache where one is written
            for i in range(args.runs):
                for label, argv, extra, cwd in subjects[i % len(subjects):] + subjects[:i % len(subjects)]:
                    times[label].append(timed(argv, env | extra, cwd))
            floor = statistics.median(wall for wall, _ in times[subjects[0][0]])
            print(f"  {mode}: wall median (range), its ratio to the floor's, CPU median")
            for label, runs in times.items():
                wall = [w for w, _ in runs]
                print(f"    {label:18} {spread(wall):26} {statistics.median(wall) / floor:6.1f}x   "
                      f"CPU {statistics.median(c for _, c in runs):.3f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())

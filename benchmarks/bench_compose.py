"""The compose backend against the local backend, in one run on one machine: Docker setup time
(warm), compose bring-up, and each scenario's wall, measured and overhead time and MB/s on both
backends, measured back to back with the same parameters.

    .venv/bin/python benchmarks/bench_compose.py [--records 20000] [--repeats 2] [--suite canaries]
        [--bringups 3]

Cold Docker setup (a machine without Docker) cannot be repeated here without uninstalling it; its
figure comes from the first run of scripts/setup-docker.sh (docs/compose.md).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from kcliff.backends.compose import start_compose_cluster

ROOT = Path(__file__).resolve().parents[1]
KCLIFF = [sys.executable, "-m", "kcliff.cli"]


def load() -> str:
    return ", ".join(f"{x:.1f}" for x in os.getloadavg())


def timed(argv: list[str]) -> float:
    began = time.monotonic()
    subprocess.run(argv, check=True, capture_output=True)
    return time.monotonic() - began


def bringups(work: Path, count: int) -> list[float]:
    """Full start-to-ready times (compose up --wait + all brokers registered + an RF-3 topic)."""
    times = []
    for i in range(count):
        cluster = start_compose_cluster(work / f"bringup-{i}")
        try:
            times.append(cluster.bringup_s or 0.0)
        finally:
            cluster.down()
    return times


def suite(work: Path, backend: str, args: argparse.Namespace) -> dict:
    out = work / f"{backend}.json"
    subprocess.run([*KCLIFF, "run", "--backend", backend, "--suite", args.suite, "--records", str(args.records),
                    "--repeats", str(args.repeats), "--workdir", str(work / backend), "--out", str(out), "--quiet"],
                   check=False)
    return json.loads(out.read_text())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=20000)
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--suite", default="canaries")
    parser.add_argument("--bringups", type=int, default=3)
    args = parser.parse_args()

    setup = [str(ROOT / "scripts" / "setup-docker.sh")]
    subprocess.run(setup, check=True, capture_output=True)
    warm = [timed(setup) for _ in range(3)]
    print(f"docker setup, warm (engine running): {', '.join(f'{t:.2f}s' for t in warm)}   load {load()}")

    with tempfile.TemporaryDirectory(prefix="kcliff-bench-compose-") as tmp:
        work = Path(tmp)
        times = bringups(work, args.bringups)
        print(f"compose bring-up to ready: {', '.join(f'{t:.1f}s' for t in times)}   load {load()}")

        docs = {backend: suite(work, backend, args) for backend in ("local", "compose")}
        print(f"\n{args.suite}, {args.repeats} x {args.records} records; bring-up local "
              f"{docs['local']['environment']['cluster_bringup_s']}s, compose "
              f"{docs['compose']['environment']['cluster_bringup_s']}s   load {load()}")
        print(f"{'scenario':<14}{'backend':<9}{'wall s':>8}{'measured s':>12}{'overhead s':>12}{'MB/s':>8}{'p99 ms':>9}")
        for entry in docs["local"]["scenarios"]:
            for backend, doc in docs.items():
                e = next((x for x in doc["scenarios"] if x["id"] == entry["id"]), None)
                if e is None:
                    continue
                s = e.get("summary") or {}
                mbps = (s.get("mb_per_sec") or {}).get("median")
                p99 = (s.get("p99_ms") or {}).get("median")
                print(f"{e['id']:<14}{backend:<9}{e['wall_s']:>8.1f}{e['measured_s']:>12.1f}"
                      f"{e.get('overhead_s', 0):>12.1f}{mbps if mbps is not None else '-':>8}"
                      f"{p99 if p99 is not None else '-':>9}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Early cliff stop on vs off: the same suites measured both ways on one real cluster, in one run.

Prints each scenario's wall time and tier both ways, whether the verdicts agree, the suite totals,
and the slowest cliff scenario against the median healthy one (target: cliff <= healthy).

    .venv/bin/python benchmarks/bench_early_stop.py [--records 100000] [--repeats 3] [--client-rtt-ms 20]
                                                    [--suite pairwise ...] [--keep DIR]
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from kcliff import results, table
from kcliff.scenario import REFERENCE_ID

KCLIFF = [sys.executable, "-m", "kcliff.cli"]


def kcliff(*args: str) -> None:
    subprocess.run([*KCLIFF, *args], check=False)


def measure(work: Path, out: Path, suites: list[str], records: int, repeats: int, early: bool) -> float:
    argv = ["run", "--workdir", str(work), "--out", str(out), "--records", str(records), "--repeats", str(repeats),
            "--quiet", *[x for s in suites for x in ("--suite", s)]]
    began = time.monotonic()
    kcliff(*argv, *([] if early else ["--no-early-stop"]))
    return time.monotonic() - began


def tiers(doc: dict) -> dict[str, tuple[str | None, float]]:
    """Each scenario's tier and the seconds its own perf runs took (warm-up included): the
    reference and canaries share one interleaved group's wall time, so that is what tells them apart."""
    ref = results.median(results.scenario_entry(doc, REFERENCE_ID), "mb_per_sec")
    threshold = doc["parameters"]["cliff_threshold"]
    return {e["id"]: (table.tier(e, ref, threshold), _perf_seconds(e)) for e in doc["scenarios"]}


def _perf_seconds(entry: dict) -> float:
    return sum(r["elapsed_s"] for r in [entry["warmup"] or {"elapsed_s": 0.0}, *entry["runs"]])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--suite", action="append", default=[])
    parser.add_argument("--records", type=int, default=100_000, help="as kcliff run --records")
    parser.add_argument("--repeats", type=int, default=3, help="as kcliff run --repeats")
    parser.add_argument("--keep", type=Path, help="copy both results files here")
    parser.add_argument("--client-rtt-ms", default="20", help="as make run: inflight-1 needs a round trip to show")
    args = parser.parse_args()
    suites = args.suite or ["pairwise", "canaries"]
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp) / "w"
        kcliff("cluster", "up", "--workdir", str(work), "--client-rtt-ms", args.client_rtt_ms)
        try:
            total_off = measure(work, Path(tmp) / "off.json", suites, args.records, args.repeats, early=False)
            total_on = measure(work, Path(tmp) / "on.json", suites, args.records, args.repeats, early=True)
            on, off = (tiers(json.loads((Path(tmp) / f"{k}.json").read_text())) for k in ("on", "off"))
            if args.keep:
                args.keep.mkdir(parents=True, exist_ok=True)
                for k in ("on", "off"):
                    shutil.copy(Path(tmp) / f"{k}.json", args.keep / f"early-stop-{k}.json")
        finally:
            kcliff("cluster", "down", "--workdir", str(work))
    print(f"{'scenario':14} {'tier off':9} {'tier on':9} {'perf s off':>10} {'perf s on':>10}  agree")
    for sid in off:
        t_off, w_off = off[sid]
        t_on, w_on = on.get(sid, (None, float("nan")))
        print(f"{sid:14} {str(t_off):9} {str(t_on):9} {w_off:10.1f} {w_on:10.1f}  {'yes' if t_on == t_off else 'NO'}")
    agree = sum(on.get(s, (None,))[0] == off[s][0] for s in off)
    print(f"\nverdicts agree: {agree}/{len(off)}")
    print(f"suite wall time: early stop off {total_off:.0f}s, on {total_on:.0f}s ({total_on / total_off:.2f}x)")
    healthy = [w for t, w in on.values() if t == "healthy"]
    cliffs = [w for t, w in on.values() if t == "cliff"]
    if healthy and cliffs:
        print(f"with early stop (perf-tool seconds, warm-up included): slowest cliff scenario {max(cliffs):.1f}s, median healthy scenario "
              f"{statistics.median(healthy):.1f}s (ratio {max(cliffs) / statistics.median(healthy):.2f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())

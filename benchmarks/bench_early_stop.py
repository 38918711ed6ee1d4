"""Early cliff stop on vs off: the same suites measured both ways on one real cluster, in one run.

Prints each scenario's wall time and tier both ways, whether the verdicts agree, the suite totals,
and the slowest cliff scenario against the median healthy one (target: cliff <= healthy).

    .venv/bin/python benchmarks/bench_early_stop.py [--records 30000] [--repeats 3] [--client-rtt-ms 20]
                                                    [--suite pairwise ...]
"""

from __future__ import annotations

import argparse
import json
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
    ref = results.median(results.scenario_entry(doc, REFERENCE_ID), "mb_per_sec")
    threshold = doc["parameters"]["cliff_threshold"]
    return {e["id"]: (table.tier(e, ref, threshold), e["wall_s"]) for e in doc["scenarios"]}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--suite", action="append", default=[])
    parser.add_argument("--records", type=int, default=30000)
    parser.add_argument("--repeats", type=int, default=3)
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
        finally:
            kcliff("cluster", "down", "--workdir", str(work))
    print(f"{'scenario':14} {'tier off':9} {'tier on':9} {'wall off s':>10} {'wall on s':>10}  agree")
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
        print(f"with early stop: slowest cliff scenario {max(cliffs):.1f}s, median healthy scenario "
              f"{statistics.median(healthy):.1f}s (ratio {max(cliffs) / statistics.median(healthy):.2f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Early cliff stop on vs off: the same suites measured both ways on one real cluster, in one run.

Prints each scenario's wall time and tier both ways, whether the verdicts agree, the suite totals,
and the slowest cliff scenario against the median healthy one (target: cliff <= healthy).

    .venv/bin/python benchmarks/bench_early_stop.py [--records 100000] [--repeats 3] [--client-rtt-ms 20]
                                                    [--suite pairwise ...] [--keep DIR]
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from kcliff.results import model
from kcliff.results.metrics import THROUGHPUT
from kcliff.results.model import Entry, ResultsDoc, Status

KCLIFF = [sys.executable, "-m", "kcliff.cli"]


def kcliff(*args: str) -> None:
    subprocess.run([*KCLIFF, *args], check=False)


def measure(work: Path, out: Path, suites: list[str], records: int, repeats: int, early: bool) -> float:
    argv = ["run", "--workdir", str(work), "--out", str(out), "--records", str(records), "--repeats", str(repeats),
            "--quiet", *[x for s in suites for x in ("--suite", s)]]
    began = time.monotonic()
    kcliff(*argv, *([] if early else ["--no-early-stop"]))
    return time.monotonic() - began


def side(entry: Entry, reference_mb: float | None, threshold: float) -> str | None:
    """'cliff' when stopped on a cliff or below threshold x the reference's MB/s, else 'healthy'."""
    if entry.status is Status.CLIFF:
        return "cliff"
    mb = entry.median(THROUGHPUT)
    if mb is None or not reference_mb:
        return None
    return "cliff" if mb < threshold * reference_mb else "healthy"


def tiers(doc: ResultsDoc) -> dict[str, dict]:
    """Each scenario's tier, ratio to the reference, stopped attempts, and the seconds its own perf
    runs took (warm-up included): the reference and canaries share one interleaved group's wall
    time, so that is what tells them apart."""
    reference = doc.reference()
    ref = reference.median(THROUGHPUT) if reference else None
    threshold = doc.parameters["cliff_threshold"]
    out = {}
    for e in doc.scenarios:
        mb = e.median(THROUGHPUT)
        runs = e.attempts()
        out[e.id] = {"tier": side(e, ref, threshold), "ratio": mb / ref if mb and ref else float("nan"),
                     "stopped": sum(r.stopped_early for r in runs), "seconds": sum(r.elapsed_s for r in runs)}
    return out


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
            on, off = (tiers(model.load(Path(tmp) / f"{k}.json")) for k in ("on", "off"))
            if args.keep:
                args.keep.mkdir(parents=True, exist_ok=True)
                for k in ("on", "off"):
                    shutil.copy(Path(tmp) / f"{k}.json", args.keep / f"early-stop-{k}.json")
        finally:
            kcliff("cluster", "down", "--workdir", str(work))
    print(f"{'scenario':14} {'tier off':9} {'tier on':9} {'x ref off':>9} {'x ref on':>8} {'stopped':>7} "
          f"{'perf s off':>10} {'perf s on':>10}  agree")
    missing = {"tier": None, "ratio": float("nan"), "stopped": 0, "seconds": float("nan")}
    for sid, a in off.items():
        b = on.get(sid, missing)
        print(f"{sid:14} {str(a['tier']):9} {str(b['tier']):9} {a['ratio']:9.2f} {b['ratio']:8.2f} {b['stopped']:7d} "
              f"{a['seconds']:10.1f} {b['seconds']:10.1f}  {'yes' if a['tier'] == b['tier'] else 'NO'}")
    differ = [s for s in off if on.get(s, missing)["tier"] != off[s]["tier"]]
    print(f"\nverdicts agree: {len(off) - len(differ)}/{len(off)}")
    if differ:
        untouched = [s for s in differ if not on.get(s, missing)["stopped"]]
        print(f"  of the {len(differ)} that differ, {len(untouched)} had no run stopped early (the two measurements "
              f"differ, not the early stop): {', '.join(untouched) or '-'}")
    print(f"suite wall time: early stop off {total_off:.0f}s, on {total_on:.0f}s ({total_on / total_off:.2f}x)")
    healthy = [v["seconds"] for v in on.values() if v["tier"] == "healthy"]
    cliffs = [v["seconds"] for v in on.values() if v["tier"] == "cliff"]
    if healthy and cliffs:
        print(f"with early stop (perf-tool seconds, warm-up included): slowest cliff scenario {max(cliffs):.1f}s, median healthy scenario "
              f"{statistics.median(healthy):.1f}s (ratio {max(cliffs) / statistics.median(healthy):.2f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())

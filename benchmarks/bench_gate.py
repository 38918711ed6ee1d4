"""The gate's false-alarm and detection rates on a real cluster, and the time one check takes.

Each check measures two sides interleaved (A B A B ...) on one local cluster, exactly as
`kcliff check` does, and judges them with kcliff.verdict:
  A/A  - the reference config on both sides: any regression or cliff verdict is a false alarm;
  A/B  - B is the same config with the producer capped at 80% of A's measured unthrottled rate
         (the perf tool's --throughput): a regression verdict is a detection of a 20% drop.
Targets: at most 1 false alarm in 50 A/A checks; at least 19 detections in 20 A/B checks.

    .venv/bin/python benchmarks/bench_gate.py [--aa 50] [--ab 20] [--rounds 5] [--records 20000] [--run-seconds 8]
"""

from __future__ import annotations

import argparse
import dataclasses
import statistics
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from kcliff import procs, verdict
from kcliff.backends.local import start_local_cluster
from kcliff.progress import Progress
from kcliff.scenario import load_suites
from kcliff.suite import Options, SuiteRunner, new_document


def check(runner: SuiteRunner, base, head, rounds: int) -> tuple[str, float]:
    began = time.monotonic()
    a, b = runner.measure_interleaved([base, head], rounds)
    sides = [{m: [r.get(f) for r in e["runs"]] for m, f in verdict.RESULT_FIELD.items()} for e in (a, b)]
    judged = verdict.compare_scenario("head", sides[0], sides[1])
    runner.doc["scenarios"].clear()  # keep the results document small over a long benchmark
    return judged.verdict, time.monotonic() - began


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--aa", type=int, default=50)
    parser.add_argument("--ab", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=5, help="as kcliff check --rounds")
    parser.add_argument("--records", type=int, default=20000)
    parser.add_argument("--run-seconds", type=float, default=8.0, help="as kcliff check --run-seconds")
    args = parser.parse_args()
    procs.install_handlers()
    reference = load_suites([])[0]
    with tempfile.TemporaryDirectory() as tmp:
        cluster = start_local_cluster(Path(tmp) / "cluster", "4.2.0")
        try:
            opts = Options(args.records, None, 5, 900.0, early_stop=False, run_s=args.run_seconds)
            doc = new_document(cluster, opts, ["bench-gate"], "4.2.0")
            runner = SuiteRunner(cluster, opts, doc, Path(tmp) / "results.json", Path(tmp) / "perf",
                                 Progress(quiet=True))
            runner.prime()
            unthrottled = runner.measure_scenario(reference)
            rate = statistics.median(r["records_per_sec"] for r in unthrottled["runs"])
            capped = dataclasses.replace(reference, id="throttled", throughput_limit=int(0.8 * rate))
            twin = dataclasses.replace(reference, id="reference-b")
            aa = [check(runner, reference, twin, args.rounds) for _ in range(args.aa)]
            ab = [check(runner, reference, capped, args.rounds) for _ in range(args.ab)]
        finally:
            cluster.down()
    aa_counts, ab_counts = Counter(v for v, _ in aa), Counter(v for v, _ in ab)
    false_alarms = aa_counts["regression"] + aa_counts["cliff"]
    detected = ab_counts["regression"] + ab_counts["cliff"]
    times = [t for _, t in aa + ab]
    print(f"unthrottled reference: {rate:.0f} records/s; throttle at {int(0.8 * rate)} records/s (80%)")
    print(f"A/A: {false_alarms}/{len(aa)} false alarms  verdicts {dict(aa_counts)}   (target <= 1 in 50)")
    print(f"A/B: {detected}/{len(ab)} detections of a 20% drop  verdicts {dict(ab_counts)}   (target >= 19 of 20)")
    print(f"time per check ({args.rounds} rounds x 2 sides x ~{args.run_seconds:g}s runs + 2 warm-ups): "
          f"median {statistics.median(times):.0f}s, max {max(times):.0f}s")
    return 0


if __name__ == "__main__":
    sys.exit(main())

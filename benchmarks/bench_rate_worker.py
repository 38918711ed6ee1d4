"""Runs at rate in a JVM each against runs served by one kept load generator (--serve, RateWorker):
wall time per run from start to figures, and the figures, on one local cluster with the default
emulated disk. The runs are a check's: 1,445 records/s (a tenth of the example repo's peak) for 3.46 s
after a 1 s warm-up, json-events-sized 1 KiB letters, the two ways alternating which goes first.

    .venv/bin/python benchmarks/bench_rate_worker.py [pairs] [--save FILE.json]

Measured November 28 (benchmarks/data/rate-worker-local-2c.json; docs/loadgen.md, "One JVM a side")."""

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path

from kcliff.backends import storage
from kcliff.backends.admin import Admin
from kcliff.backends.local import Caps, start_local_cluster
from kcliff.host import procs
from kcliff.kafka import dist as kafka_dist
from kcliff.measure import at_rate, producer
from kcliff.scenario.settings import INVARIANTS

RATE, DURATION_S, WARMUP_S = 1445, 3.46, 1.0
PRODUCER = {"batch.size": 65536, "linger.ms": 5, "compression.type": "lz4", **INVARIANTS["producer"]}
MODES = ("own JVM", "served")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("pairs", type=int, nargs="?", default=8)
    parser.add_argument("--save", type=Path)
    args = parser.parse_args()
    procs.install_handlers()
    work = Path(tempfile.mkdtemp(prefix="kcliff-rate-worker-"))
    logs = work / "perf"
    logs.mkdir()
    cluster = start_local_cluster(work / "c", kafka_dist.DEFAULT_VERSION,
                                  Caps(fsync_delay_ms=storage.DEFAULT_FSYNC_DELAY_MS))
    worker = at_rate.RateWorker(cluster, logs)
    out: dict[str, list[dict[str, float | int | None]]] = {mode: [] for mode in MODES}
    try:
        Admin(cluster.admin_bootstrap).create_topic("t", 6, 3, {"min.insync.replicas": "2"})
        producer.perf_run(cluster, "t", 600_000, PRODUCER, time.monotonic() + 180, work / "prime.log")
        for i in range(args.pairs):
            for mode in (MODES if i % 2 else MODES[::-1]):
                began = time.monotonic()
                ran = at_rate.rate_run(cluster, "t", RATE, DURATION_S, WARMUP_S, PRODUCER, {}, logs / f"r{i}-{mode[0]}.log",
                                       worker=worker if mode == "served" else None)
                s = ran.summary
                row = {"wall_s": round(time.monotonic() - began, 2), "acked": s.acked if s else None,
                       "unconsumed": s.unconsumed if s else None, "p50_ms": s.produce.p50_ms if s else None,
                       "p99_ms": s.produce.p99_ms if s else None,
                       "e2e_p99_ms": s.end_to_end.p99_ms if s and s.end_to_end else None}
                out[mode].append(row)
                print(i, mode, row, flush=True)
    finally:
        worker.end()
        cluster.down()
    for mode, rows in out.items():
        walls = [r["wall_s"] for r in rows if r["wall_s"] is not None]
        p50s = [r["p50_ms"] for r in rows if r["p50_ms"] is not None]
        print(f"{mode}: wall s median {statistics.median(walls):.2f} ({min(walls):.2f}-{max(walls):.2f}), "
              f"produce p50 ms median {statistics.median(p50s):.1f}")
    if args.save:
        args.save.write_text(json.dumps(out, indent=1) + "\n")


if __name__ == "__main__":
    main()

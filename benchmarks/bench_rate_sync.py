"""Does writing out the page cache (os.sync) before a fixed-rate run steady its p99? One local cluster
on the default emulated disk; eight pairs of (flat-out run, fixed-rate run at 1,126 records/s for 5 s),
each pair once with a sync before the fixed-rate run and once without, alternating which comes first.

    .venv/bin/python benchmarks/bench_rate_sync.py [pairs]

Measured November 2026 (benchmarks/data/rate-sync-local-2c.json): worse with it (docs/gate.md,
"Latency at rate"), so kcliff does not sync."""

import json
import os
import statistics
import sys
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

procs.install_handlers()
work = Path(tempfile.mkdtemp(prefix="kcliff-rate-sync-"))
prod = {"batch.size": 65536, "linger.ms": 5, "compression.type": "lz4", **INVARIANTS["producer"]}
cluster = start_local_cluster(work / "c", kafka_dist.DEFAULT_VERSION, Caps(fsync_delay_ms=storage.DEFAULT_FSYNC_DELAY_MS))
out = {"sync": [], "nosync": []}
try:
    admin = Admin(cluster.admin_bootstrap)
    admin.create_topic("t", 12, 3, {})
    for i in range(int(sys.argv[1]) if len(sys.argv) > 1 else 8):
        for mode in (("sync", "nosync") if i % 2 else ("nosync", "sync")):
            producer.perf_run(cluster, "t", 250_000, prod, time.monotonic() + 120, work / f"p{i}{mode}.log")
            t = time.monotonic()
            if mode == "sync":
                os.sync()
            took = time.monotonic() - t
            r = at_rate.rate_run(cluster, "t", 1126, 5.0, 1.5, prod, {"group.id": "x"}, work / f"r{i}{mode}.log")
            s = r.summary
            out[mode].append((round(s.produce.p99_ms, 1), round(s.end_to_end.p99_ms, 1), round(took, 2)))
            print(i, mode, out[mode][-1], flush=True)
finally:
    cluster.down()
for mode, v in out.items():
    p = [x[0] for x in v]
    print(mode, "p99 median", statistics.median(p), "range", min(p), max(p), "sync s", statistics.median([x[2] for x in v]))
print(json.dumps(out))

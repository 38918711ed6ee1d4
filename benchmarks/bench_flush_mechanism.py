"""Which flush and roll settings make the brokers fsync, counted rather than inferred from MB/s:
the fsync and fdatasync calls of one broker JVM (Linux perf, the syscall tracepoints) over a fixed
window while a rate-limited producer writes the same load in every case. Throughput on a 2-core rig
cannot tell an inert setting from one whose fsyncs run off the append path; the count can. Evidence
for the time-based flush and segment roll rules in scenarios/cliffs.yaml (docs/canaries.md, "Rules
measured once").

    .venv/bin/python benchmarks/bench_flush_mechanism.py [--seconds 10] [--repeats 2]

Needs `perf` with access to the syscalls tracepoints (root, or perf_event_paranoid <= -1). Starts its
own local cluster (no fsync delay, no proxy) and stops it at the end.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from kcliff.backends.admin import Admin
from kcliff.backends.local import LocalCluster, start_local_cluster
from kcliff.host import procs
from kcliff.kafka import dist as kafka_dist

RATE = 2000  # records/s of 1 KB: well under what the rig sustains, so every case carries the same load
SYSCALLS = ("fsync", "fdatasync")
INITIAL_TASK_DELAY_S = 30  # log.initial.task.delay.ms: the log flusher's first run after a broker starts


@dataclass(frozen=True)
class Case:
    id: str
    what: str
    restart: dict[str, object] = field(default_factory=dict)  # read-only broker settings
    dynamic: dict[str, str] = field(default_factory=dict)  # cluster-wide dynamic broker settings
    topic: dict[str, str] = field(default_factory=dict)


CASES = (
    Case("default", "Kafka's defaults"),
    Case("topic-flush-ms-1", "topic flush.ms=1 alone", topic={"flush.ms": "1"}),
    Case("log-flush-ms-1", "broker log.flush.interval.ms=1 alone", dynamic={"log.flush.interval.ms": "1"}),
    Case("segment-ms-100", "topic segment.ms=100", topic={"segment.ms": "100"}),
    Case("segment-bytes-1m", "topic segment.bytes=1048576", topic={"segment.bytes": "1048576"}),
    Case("scheduler-1", "log.flush.scheduler.interval.ms=1 (log.flush.interval.ms unset)",
         restart={"log.flush.scheduler.interval.ms": 1}),
    Case("scheduler-1-flush-60s", "log.flush.scheduler.interval.ms=1, log.flush.interval.ms=60000",
         restart={"log.flush.scheduler.interval.ms": 1}, dynamic={"log.flush.interval.ms": "60000"}),
    Case("scheduler-1-topic-flush-ms-1", "log.flush.scheduler.interval.ms=1, log.flush.interval.ms=60000, "
         "topic flush.ms=1", restart={"log.flush.scheduler.interval.ms": 1},
         dynamic={"log.flush.interval.ms": "60000"}, topic={"flush.ms": "1"}),
    Case("scheduler-1000", "log.flush.scheduler.interval.ms=1000, log.flush.interval.ms=1000",
         restart={"log.flush.scheduler.interval.ms": 1000}, dynamic={"log.flush.interval.ms": "1000"}),
)


def count_syncs(pid: int, seconds: float) -> dict[str, int]:
    """fsync/fdatasync calls of every thread of `pid` over `seconds` (perf stat -p)."""
    events = ",".join(f"syscalls:sys_enter_{s}" for s in SYSCALLS)
    done = subprocess.run(["perf", "stat", "-x", ",", "-e", events, "-p", str(pid), "--", "sleep", str(seconds)],
                          capture_output=True, text=True, timeout=seconds + 30)
    counts: dict[str, int] = {}
    for line in done.stderr.splitlines():
        parts = line.split(",")
        for name in SYSCALLS:
            if len(parts) > 2 and parts[2].endswith(f"sys_enter_{name}"):
                counts[name] = int(parts[0]) if parts[0].isdigit() else -1
    if len(counts) != len(SYSCALLS):
        sys.exit(f"perf stat gave no syscall counts (exit {done.returncode}): {done.stderr.strip()[-400:]}")
    return counts


def measure(cluster: LocalCluster, case: Case, seconds: float, index: int) -> dict[str, int]:
    if case.restart != cluster.overrides:
        cluster.restart(dict(case.restart))
        # the log flusher's first run waits log.initial.task.delay.ms (30 s) after every start: counted
        # sooner, a restarted broker's flusher has not run yet, whatever its interval
        time.sleep(INITIAL_TASK_DELAY_S + 5)
    admin = Admin(cluster.admin_bootstrap)
    ids = [n.node_id for n in cluster.nodes]
    changes: dict[str, str | None] = {**{k: None for k in admin.broker_dynamic(ids[0])}, **case.dynamic}
    if changes:
        admin.alter_broker_configs(ids, changes)
    topic = f"mech-{case.id}-{index}"
    admin.create_topic(topic, 6, 3, case.topic)
    records = int(RATE * (seconds + 15))
    argv = cluster.tool_command("org.apache.kafka.tools.ProducerPerformance", [
        "--topic", topic, "--num-records", str(records), "--record-size", "1024", "--throughput", str(RATE),
        "--producer-props", f"bootstrap.servers={cluster.tool_bootstrap}", "acks=all"])
    producer = procs.spawn(argv, log=cluster.workdir / f"{topic}.log", mark=cluster.mark)
    try:
        time.sleep(8)  # the producer's JVM start and the first segments
        pid = cluster.nodes[0].pid
        assert pid is not None
        return count_syncs(pid, seconds)
    finally:
        procs.stop(producer)
        admin.delete_topic(topic)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--kafka-version", default=kafka_dist.DEFAULT_VERSION)
    args = parser.parse_args()
    found: dict[str, list[int]] = {c.id: [] for c in CASES}
    with tempfile.TemporaryDirectory(prefix="kcliff-mech-") as work:
        cluster = start_local_cluster(Path(work) / "cluster", args.kafka_version)
        try:
            time.sleep(INITIAL_TASK_DELAY_S + 5)  # past the flusher's first run (at its default interval, its only one)
            for index in range(args.repeats):
                # restart cases last within a pass, so a pass restarts the brokers only where it must
                for case in sorted(CASES, key=lambda c: bool(c.restart)):
                    counts = measure(cluster, case, args.seconds, index)
                    found[case.id].append(sum(counts.values()))
                    print(f"pass {index + 1} {case.id}: {counts}", flush=True)
        finally:
            cluster.down()
    print(f"\nfsync+fdatasync calls per second of broker 1 at {RATE} records/s of 1 KB, RF 3, 6 partitions:")
    for case in CASES:
        per_s = [round(n / args.seconds, 1) for n in found[case.id]]
        print(f"  {case.id:30} {statistics.median(per_s):8.1f}  {per_s}  {case.what}")


if __name__ == "__main__":
    main()

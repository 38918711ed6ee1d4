"""How far each codec Kafka's producer has compresses kcliff's payloads: the json-events payload
(scenario/json_events.py, 700 B median) against the perf tool's random letters (1 KiB), issue #29.

Two measurements:
- codecs: the Python codec packages (cramjam: gzip level 6, snappy, lz4 frame, zstd level 3, Kafka's
  defaults) on batches of 16 KiB and 64 KiB of records drawn at random, as the producer draws them;
  no cluster. `pip install -e ".[bench]"` (cramjam) first.
- producer (`--cluster`): a local 3-broker cluster, and Kafka's own producer's compression-rate-avg
  (kcliff records 1 / it as `compression_ratio`) in kafka-producer-perf-test flat out (batch.size 16 KiB,
  the default, and 64 KiB; linger.ms 5) and in kcliff's load generator at 1 MB/s, for each codec.
  The producer fills a batch to batch.size of *compressed* bytes (it estimates the ratio as it goes),
  so its batches hold more records than the codec rows' and compress further.

    .venv/bin/python benchmarks/bench_payload_compression.py [--cluster] [--records N]

Writes benchmarks/data/payload-compression[-local-2c].json; docs/measurements.md, "Payloads", has the figures.
Measure with the cluster under the measuring lock: flock /tmp/kcliff-measure.lock .venv/bin/python ...
"""

import argparse
import gzip
import json
import random
import tempfile
import time
from pathlib import Path

import cramjam

from kcliff.scenario import json_events
from kcliff.scenario.payload import JSON_EVENTS_MEDIAN, Payload
from kcliff.scenario.settings import INVARIANTS, RECORD_SIZE

CODECS = ("gzip", "snappy", "lz4", "zstd")
BATCHES = (16_384, 65_536)
DATA = Path(__file__).parent / "data"


def letters(count: int, size: int = RECORD_SIZE) -> list[bytes]:
    rng = random.Random(0)
    return [bytes(rng.choices(b"ABCDEFGHIJKLMNOPQRSTUVWXYZ", k=size)) for _ in range(count)]


def compressed(codec: str, batch: bytes) -> int:
    if codec == "gzip":
        return len(gzip.compress(batch, 6))
    if codec == "snappy":
        return len(cramjam.snappy.compress(batch))
    if codec == "lz4":
        return len(cramjam.lz4.compress(batch))
    return len(cramjam.zstd.compress(batch, level=3))


def codec_ratios(records: list[bytes], batch_bytes: int, batches: int = 200) -> dict[str, float]:
    rng = random.Random(1)
    drawn = []
    for _ in range(batches):
        batch = bytearray()
        while len(batch) < batch_bytes:
            batch += records[rng.randrange(len(records))]
        drawn.append(bytes(batch))
    total = sum(map(len, drawn))
    return {codec: round(total / sum(compressed(codec, b) for b in drawn), 2) for codec in CODECS}


def codecs_only() -> dict[str, dict[str, dict[str, float]]]:
    payloads = {"json-events": json_events.generate(JSON_EVENTS_MEDIAN), "random": letters(2000)}
    return {name: {f"{size // 1024}KiB": codec_ratios(records, size) for size in BATCHES}
            for name, records in payloads.items()}


def with_producer(records: int) -> dict[str, object]:
    from kcliff.backends.admin import Admin
    from kcliff.backends.local import Caps, start_local_cluster
    from kcliff.host import procs
    from kcliff.kafka import dist as kafka_dist
    from kcliff.measure import at_rate, producer
    from kcliff.scenario import payload_files

    procs.install_handlers()
    work = Path(tempfile.mkdtemp(prefix="kcliff-payload-bench-"))
    events = payload_files.prepare(Payload.json_events(), JSON_EVENTS_MEDIAN, 1_000_000)
    assert events is not None
    cluster = start_local_cluster(work / "c", kafka_dist.DEFAULT_VERSION, Caps())
    out: dict[str, object] = {"perf": [], "loadgen": [], "logs": str(work)}
    try:
        admin = Admin(cluster.admin_bootstrap)
        topic_configs = {"min.insync.replicas": str(INVARIANTS["topic"]["min.insync.replicas"])}
        for i, codec in enumerate(("none", *CODECS)):
            for batch in (16_384, 65_536):
                for name, payload in (("json-events", events), ("random", None)):
                    topic = f"t{i}-{batch}-{name}"
                    admin.create_topic(topic, 6, 3, topic_configs)
                    prod = {**INVARIANTS["producer"], "compression.type": codec, "batch.size": batch, "linger.ms": 5}
                    run = producer.perf_run(cluster, topic, records, prod, time.monotonic() + 300,
                                            work / f"perf-{topic}.log", quiet=records // 5, payload=payload)
                    row = {"payload": name, "codec": codec, "batch_size": batch, "mb_per_sec": run.mb_per_sec,
                           "records_per_sec": run.records_per_sec, "compression_ratio": run.compression_ratio}
                    out["perf"].append(row)  # type: ignore[attr-defined]
                    print(row, flush=True)
                    admin.delete_topic(topic, missing_ok=True)
            for name, payload in (("json-events", events), ("random", None)):
                topic = f"r{i}-{name}"
                admin.create_topic(topic, 6, 3, topic_configs)
                size = round(events.mean_bytes) if payload else RECORD_SIZE
                prod = {**INVARIANTS["producer"], "compression.type": codec}
                ran = at_rate.rate_run(cluster, topic, 2 ** 20 / size, 5.0, 1.0, prod, None, work / f"rate-{topic}.log",
                                       payload=payload)
                row = {"payload": name, "codec": codec, "rate_mb_per_sec": 1.0,
                       "compression_ratio": ran.summary.compression_ratio if ran.summary else None}
                out["loadgen"].append(row)  # type: ignore[attr-defined]
                print(row, flush=True)
                admin.delete_topic(topic, missing_ok=True)
    finally:
        cluster.down()
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cluster", action="store_true", help="also measure the real producer (local cluster)")
    parser.add_argument("--records", type=int, default=100_000, help="records per perf-tool run")
    args = parser.parse_args()
    result: dict[str, object] = {"json_events_median": JSON_EVENTS_MEDIAN, "random_record_size": RECORD_SIZE,
                                 "codecs": codecs_only()}
    print(json.dumps(result["codecs"], indent=1), flush=True)
    if args.cluster:
        result["producer"] = with_producer(args.records)
    name = "payload-compression-local-2c.json" if args.cluster else "payload-compression.json"
    DATA.mkdir(exist_ok=True)
    (DATA / name).write_text(json.dumps(result, indent=1) + "\n")
    print(f"wrote {DATA / name}")


if __name__ == "__main__":
    main()

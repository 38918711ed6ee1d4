"""Payloads on the real cluster (issue #29): kafka-producer-perf-test flat out and kcliff's load
generator at a rate send kcliff's json-events and a small keyed samples file with compression.type=zstd,
count the real bytes, and record the compression their producers achieved. Random letters beside them.
The keyed samples go flat out through the load generator too (the perf tool has no keys), and the
records read back from both topics carry the samples' keys.

Margins from three runs of this file on the 2-core machine (2026-11-27, Kafka 4.2.0, the shared
cluster, 30,000 records flat out, batch.size and linger.ms at their defaults; run 1 / run 2 / run 3):
- json-events with zstd: flat out 3.05 / 2.98 / 2.99x, at 1 MB/s 2.77 / 2.79 / 2.78x (batches fill less
  at a rate; asserted > 2 for both); bytes per record from the perf tool's MB/s 794.6 / 794.1 / 796.9
  against the file's mean 797.7 (asserted within 3%).
- random letters with zstd: 1.65 / 1.65 / 1.65x (asserted < 2), 1023.1 / 1024.2 / 1024.8 bytes a record.
- the 40 keyed samples (77 B): flat out 10.5 / 11.6 / 11.6x (few distinct records repeat in a batch),
  at 1,000 records/s 2.88 / 3.01 / 2.81x; 77.1 / 77.0 / 77.0 bytes a record against a mean of 76.8.
  Flat out through the load generator with their keys (one run, same day): 10.9x, 1.42 MB/s over the
  24,000 steady-state records, 76.7 bytes a record; the keys read back: some of order-0..6, no record without.
The whole file: 92 / 89 / 85 s with the shared cluster's start, run alone.
"""

import time
import uuid
from pathlib import Path

import pytest
from confluent_kafka import Consumer
from kcliff.backends.admin import Admin
from kcliff.backends.local import LocalCluster, shared_dir
from kcliff.kafka import loadgen
from kcliff.measure import producer, rate_side
from kcliff.results.model import Run
from kcliff.scenario.payload import Payload
from kcliff.scenario.rate import Rate, RateUnit
from kcliff.scenario.suites import Scenario

pytestmark = pytest.mark.kafka

RECORDS = 30_000
ZSTD = {"compression.type": "zstd"}
KEYED = "".join(f'{{"key": "order-{i % 7}", "value": {{"order_id": {i}, "status": "paid", '
                f'"note": "left with the neighbour at number {i * 3}"}}}}\n' for i in range(40))


@pytest.fixture(scope="module")
def cluster(shared_cluster) -> LocalCluster:
    found = LocalCluster.from_state(shared_dir(shared_cluster))
    assert found is not None
    return found


def _topic(cluster: LocalCluster) -> str:
    name = f"kcliff-payload-{uuid.uuid4().hex[:8]}"
    Admin(cluster.admin_bootstrap).create_topic(name, 6, 3, {"min.insync.replicas": "2"})
    return name


def _flat_out(cluster: LocalCluster, sc: Scenario, log: Path) -> tuple[str, Run]:
    topic = _topic(cluster)
    run = producer.perf_run(cluster, topic, RECORDS, sc.as_applied()["producer"], time.monotonic() + 180, log,
                            quiet=RECORDS // 5, record_size=sc.record_size, payload=sc.prepared_payload())
    return topic, run


def _bytes_per_record(run: Run) -> float:
    assert run.mb_per_sec is not None and run.records_per_sec
    return run.mb_per_sec * 2 ** 20 / run.records_per_sec


def test_json_events_flat_out_and_at_rate_count_their_bytes_and_compress_with_zstd(cluster, tmp_path):
    sc = Scenario("events", "", producer=ZSTD, payload=Payload.json_events(), record_size=700)
    prepared = sc.prepared_payload()
    assert prepared is not None
    topic, run = _flat_out(cluster, sc, tmp_path / "events.log")
    try:
        at_rate = rate_side.rate_run(cluster, sc, topic, Rate(1, RateUnit.MB_PER_S), tmp_path / "events-rate.log", 60)
    finally:
        Admin(cluster.admin_bootstrap).delete_topic(topic, missing_ok=True)
    assert run.complete, run.stop_reason
    # the tool counts each record's own bytes: 24,000 drawn at random from the file average its mean
    # (and the perf tool prints MB/s to 2 places: up to 0.5% off at ~1-3 MB/s)
    assert _bytes_per_record(run) == pytest.approx(prepared.mean_bytes, rel=0.03)
    assert run.compression_ratio is not None and run.compression_ratio > 2
    assert at_rate.complete and at_rate.rate_held, at_rate.stop_reason
    assert at_rate.rate_target_per_s == pytest.approx(2 ** 20 / sc.bytes_per_record(), rel=1e-4)  # printed to 6 figures
    assert at_rate.compression_ratio is not None and at_rate.compression_ratio > 2


def test_random_letters_barely_compress_with_zstd(cluster, tmp_path):
    sc = Scenario("letters", "", producer=ZSTD)
    topic, run = _flat_out(cluster, sc, tmp_path / "letters.log")
    Admin(cluster.admin_bootstrap).delete_topic(topic, missing_ok=True)
    assert run.complete, run.stop_reason
    assert _bytes_per_record(run) == pytest.approx(1024, rel=0.01)
    assert run.compression_ratio is not None and 1 < run.compression_ratio < 2


def test_a_keyed_samples_file_reaches_the_topic_with_its_keys_flat_out_and_at_a_rate(cluster, tmp_path):
    (tmp_path / "orders.jsonl").write_text(KEYED)
    sc = Scenario("samples", "", producer=ZSTD, payload=Payload.samples(str(tmp_path / "orders.jsonl")))
    prepared = sc.prepared_payload()
    assert prepared is not None and prepared.keyed and prepared.records == 40
    topic, run = _flat_out(cluster, sc, tmp_path / "samples.log")
    rate_topic = _topic(cluster)
    try:
        at_rate = rate_side.rate_run(cluster, sc, rate_topic, Rate(1000, RateUnit.RECORDS_PER_S),
                                     tmp_path / "samples-rate.log", 60)
        flat_keys, flat_values = _read(cluster, topic, 200)
        rate_keys, rate_values = _read(cluster, rate_topic, 200)
    finally:
        for name in (topic, rate_topic):
            Admin(cluster.admin_bootstrap).delete_topic(name, missing_ok=True)
    values = set(prepared.values_file.read_bytes().split(prepared.delimiter.encode()))
    keys = {f"order-{i}".encode() for i in range(7)}
    # flat out, the load generator in place of the perf tool (which has no key option), read as its output
    assert loadgen.MAIN_CLASS in (tmp_path / "samples.log").read_text().splitlines()[0]
    assert run.complete and run.records == RECORDS - RECORDS // 5 and run.p99_ms is not None, run.stop_reason
    assert _bytes_per_record(run) == pytest.approx(prepared.mean_bytes, rel=0.05)  # values' bytes, as the perf tool
    # keys hash to partitions, and the first records read come from a few of them: some of the keys
    assert flat_keys and flat_keys <= keys and flat_values <= values
    assert at_rate.complete and at_rate.rate_held, at_rate.stop_reason
    assert rate_keys and rate_keys <= keys and rate_values <= values
    assert run.compression_ratio is not None and at_rate.compression_ratio is not None


def _read(cluster: LocalCluster, topic: str, count: int) -> tuple[set[bytes | None], set[bytes]]:
    """The keys and values of the first `count` records of `topic`."""
    consumer = Consumer({"bootstrap.servers": cluster.admin_bootstrap, "group.id": f"t-{uuid.uuid4().hex[:6]}",
                         "auto.offset.reset": "earliest", "enable.auto.commit": False})
    keys: set[bytes | None] = set()
    values: set[bytes] = set()
    try:
        consumer.subscribe([topic])
        deadline, seen = time.monotonic() + 30, 0
        while seen < count and time.monotonic() < deadline:
            for message in consumer.consume(count - seen, timeout=1.0):
                if message.error() is None:
                    keys.add(message.key())
                    values.add(message.value())
                    seen += 1
    finally:
        consumer.close()
    assert seen >= count, f"read {seen} of {count} records of {topic}"
    return keys, values

"""Latency at a fixed rate, open loop, on the real cluster (kcliff.measure.at_rate, docs/loadgen.md):
1 KB records on 6-partition topics with replication factor 3, min.insync.replicas 2 and acks=all.

Three runs at 100 records/s, where batches never fill, share points (a), (b) and (c); point (d) has a
run of its own. Margins from three runs of this file on the 2-core machine (2026-11-25, Kafka 4.2.0,
nothing else measuring), each figure as run 1 / run 2 / run 3:
(a) linger.ms=5: achieved 100.0 / 100.0 / 100.0 records/s of 100 (held: >= 95); nothing unsent,
    unacknowledged or unconsumed.
(b) produce p50, linger.ms=5 -> 100: 11.3 -> 57.4, 12.6 -> 57.6, 12.3 -> 57.4 ms (+46.1 / +45.0 / +45.1;
    a fourth run: 25.2 -> 59.8, +34.6, the linger.ms=5 side the noisier; asserted >= +20).
(c) end-to-end p50, consumer defaults -> fetch.min.bytes=1048576, fetch.max.wait.ms=500: 11.4 -> 255.5,
    12.9 -> 261.2, 12.4 -> 260.9 ms (+244 / +248 / +248; asserted >= +150); its p99 507 / 509 / 514 ms
    (asserted >= 400); its produce p50 7.7 / 9.0 / 9.0 ms (asserted < 100).
(d) batch.size=0, no warm-up: at 2,000 records/s it achieved 504 / 576 / 595 records/s alone, but held
    2,000 in a whole make test, where the shared cluster was warm (batching-off reached 2.9 MB/s there).
    At 10,000/s (OVERLOAD): 495 records/s achieved, 28,470 never acknowledged within the 2 s drain, the
    per-second produce p50 657 -> 5,370 ms over six intervals (8x; asserted > 2x); passed in 3 runs.
The whole file: 45 / 42 / 41 s (46 s with (d) as it is now) with the cluster's start (about 10 s), run alone.
"""

import uuid
from pathlib import Path

import pytest
from kcliff.backends.admin import Admin
from kcliff.backends.local import LocalCluster, shared_dir
from kcliff.measure.at_rate import RateRun, rate_run
from kcliff.scenario.settings import INVARIANTS

pytestmark = pytest.mark.kafka

LOW_RATE = 100  # 1 KB records: 5 ms of them never fill a 16 KB batch, nor do 100 ms
WARMUP_S, DURATION_S = 2.0, 4.0
PRODUCER = {**INVARIANTS["producer"], "linger.ms": 5, "batch.size": 16384}
QUIET_TOPIC_CONSUMER = {"fetch.min.bytes": 1048576, "fetch.max.wait.ms": 500}
# batch.size=0 flat out reached 0.5-2.9 MB/s here (up to about 2,900 records/s on a cluster warmed by the
# tests before it): 2,000/s was held once in a whole make test, so the overload asks several times more
OVERLOAD = 10_000


def measure(cluster_dir: Path, log: Path, rate: float, producer: dict, consumer: dict | None,
            topic: str | None = None, drain_s: float = 10.0, warmup_s: float = WARMUP_S) -> RateRun:
    """One run on a topic of its own (kcliff's invariants), removed afterwards."""
    cluster = LocalCluster.from_state(shared_dir(cluster_dir))
    assert cluster is not None
    admin = Admin(cluster.admin_bootstrap)
    name = topic or f"kcliff-rate-{uuid.uuid4().hex[:8]}"
    if topic is None:
        admin.create_topic(name, 6, INVARIANTS["topic"]["replication.factor"],
                           {"min.insync.replicas": str(INVARIANTS["topic"]["min.insync.replicas"])})
    try:
        return rate_run(cluster, name, rate, DURATION_S, warmup_s, producer, consumer, log, drain_s=drain_s)
    finally:
        if topic is None:
            admin.delete_topic(name, missing_ok=True)


@pytest.fixture(scope="module")
def low_rate(shared_cluster, tmp_path_factory) -> dict[str, RateRun]:
    logs = tmp_path_factory.mktemp("at-rate")
    return {
        "linger5": measure(shared_cluster, logs / "linger5.log", LOW_RATE, PRODUCER, {}),
        "linger100": measure(shared_cluster, logs / "linger100.log", LOW_RATE, {**PRODUCER, "linger.ms": 100}, None),
        "fetch_wait": measure(shared_cluster, logs / "fetch-wait.log", LOW_RATE, PRODUCER, QUIET_TOPIC_CONSUMER),
    }


def test_a_rate_well_below_capacity_is_held_and_every_record_is_counted(low_rate):
    s = low_rate["linger5"].summary
    assert s is not None, low_rate["linger5"].failure
    print(f"(a) achieved {s.achieved_rate} of {s.target_rate}")
    assert s.held_rate, s
    assert (s.scheduled, s.unsent, s.unacked, s.errors, s.unconsumed) == (LOW_RATE * DURATION_S, 0, 0, 0, 0)
    assert s.produce.count == s.end_to_end.count == s.scheduled


def test_linger_raises_produce_latency_at_a_rate_whose_batches_do_not_fill(low_rate):
    short, long = (low_rate[k].summary for k in ("linger5", "linger100"))
    assert short is not None and long is not None
    assert long.end_to_end is None  # run without a consumer: produce latency only
    print(f"(b) produce p50 {short.produce.p50_ms} -> {long.produce.p50_ms} ms")
    # a record waits for its batch's linger: half of 100 ms on the median, against half of 5
    assert long.produce.p50_ms - short.produce.p50_ms >= 20, (short.produce, long.produce)


def test_a_consumer_waiting_for_full_fetches_raises_end_to_end_latency_toward_its_wait(low_rate):
    plain, waiting = (low_rate[k].summary for k in ("linger5", "fetch_wait"))
    assert plain is not None and waiting is not None
    print(f"(c) end-to-end p50 {plain.end_to_end.p50_ms} -> {waiting.end_to_end.p50_ms} ms, "
          f"p99 {waiting.end_to_end.p99_ms} ms, produce p50 {waiting.produce.p50_ms} ms")
    # 100 KB/s never reaches fetch.min.bytes: every fetch waits its 500 ms; the produce side is untouched
    assert waiting.end_to_end.p50_ms - plain.end_to_end.p50_ms >= 150, (plain.end_to_end, waiting.end_to_end)
    assert waiting.end_to_end.p99_ms >= 400
    assert waiting.produce.p50_ms < 100


def test_a_rate_the_cluster_cannot_take_is_not_held_and_its_latency_grows(shared_cluster, tmp_path):
    # no warm-up: the measured records queue from the first on, so every interval has acknowledgements
    run = measure(shared_cluster, tmp_path / "batch0.log", OVERLOAD, {**PRODUCER, "batch.size": 0}, None, drain_s=2,
                  warmup_s=0)
    s = run.summary
    assert s is not None, run.failure
    waits = [p.produce.p50_ms for p in run.progress if p.produce.p50_ms is not None]
    print(f"(d) achieved {s.achieved_rate} of {s.target_rate}, unacked {s.unacked}, interval p50s {waits} ms")
    assert not s.held_rate
    assert s.unacked > 0 and s.acked + s.unacked + s.errors + s.unsent == s.scheduled  # none vanish
    # timed from when each was due, records queue behind the backlog: later intervals wait longer
    assert len(waits) >= 3 and waits[-1] > 2 * waits[0], waits


def test_a_topic_that_does_not_exist_is_a_failed_run_not_a_figure(shared_cluster, tmp_path):
    run = measure(shared_cluster, tmp_path / "missing.log", LOW_RATE, PRODUCER, None, topic="kcliff-no-such-topic")
    assert run.summary is None and run.exit_code == 1
    assert "could not reach the cluster or the topic" in (run.failure or "")

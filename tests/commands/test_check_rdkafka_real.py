"""`kcliff check` of a librdkafka service on a real cluster (issue #44): the producer file of
tests/data/rdkafka-service (a Go service's librdkafka settings, dozens of keys) with queue.buffering.max.ms
5 -> 100 is measured with kcliff's librdkafka load generator on both sides, flat out and at the 1,000
records/s its kcliff.yaml gives, and fails on latency at rate, annotated on that line."""

import json
import shutil
from pathlib import Path

import pytest
from conftest import ROOT, run_kcliff

SERVICE = ROOT / "tests" / "data" / "rdkafka-service"
CONF = Path("ingest") / "producer.conf"
# The least that shows it: one reference and the batching-off canary for the self-test, 4 rounds (the fewest
# whose t-test has 3 degrees of freedom) of 3-second runs. Measured 2026-11-30 on the shared 2-core machine at
# these settings: p50 at rate 12.99x (p = 1.1e-7) and p99 at rate 6.98x in a 5-round check of 124 s; at 4
# rounds this test passed five times in 109-116 s, p50 at rate 14.28x, 12.78x and 12.24x (p <= 6.7e-6 against
# the 0.0042 it is held to) in the three kept (docs/librdkafka.md). The median record waits about half the
# 100 ms linger for its batch at one record a millisecond, so 5x is a wide margin.
QUICK = ["--records", "20000", "--repeats", "1", "--prime", "5", "--canaries", "batching-off", "--rounds", "4",
         "--run-seconds", "3", "--profile", "cpu-bound", "--format", "github"]
MIN_P50_RATIO = 5.0


@pytest.mark.kafka
def test_a_librdkafka_linger_head_fails_on_latency_at_rate_measured_with_librdkafka(shared_cluster, tmp_path):
    base, head = tmp_path / "base", tmp_path / "head"
    shutil.copytree(SERVICE, base)
    shutil.copytree(SERVICE, head)
    conf = head / CONF
    conf.write_text(conf.read_text().replace("queue.buffering.max.ms = 5\n", "queue.buffering.max.ms = 100\n"))
    out = tmp_path / "verdict.json"
    done = run_kcliff("check", "--base", str(base), "--head", str(head), *QUICK, "--json", str(out),
                      "--workdir", str(shared_cluster), timeout=900)
    result = json.loads(out.read_text())
    assert (done.returncode, result["verdict"]) == (1, "regression"), (result["reasons"], done.stderr[-3000:])
    decisions = {d["metric"]: d for d in result["scenarios"][0]["decisions"]}
    assert decisions["p50_at_rate"]["outcome"] == "regression", decisions["p50_at_rate"]
    assert decisions["p50_at_rate"]["ratio"] >= MIN_P50_RATIO, decisions["p50_at_rate"]
    line = next(i for i, t in enumerate(conf.read_text().splitlines(), 1) if t.startswith("queue.buffering.max.ms"))
    prefix = f"::error file={conf},line={line},title=kcliff%3A measured regression::"
    errors = [a for a in done.stdout.splitlines() if a.startswith("::error")]
    assert len(errors) == 1 and errors[0].startswith(prefix) and "p50_at_rate" in errors[0], done.stdout
    assert any(n.startswith("producer measured with librdkafka: confluent-kafka") for n in result["notes"])
    assert not any("kcliff does not measure" in n for n in result["notes"])
    # both sides' runs were the librdkafka generator's, with the file's settings as written
    runs = sorted(shared_cluster.glob("runs/*/perf/head-rateround1.librdkafka.conf"))[-1]
    assert "queue.buffering.max.ms=100\n" in runs.read_text() and "ssl.ca.location" not in runs.read_text()

"""`kcliff check` end to end on a real cluster, on a temporary copy of the example config repo:
a head that sets flush=1 and a one-byte fetch fails with an annotation on each line, a head that
moves linger.ms from 5 to 100 (no rule knows it) fails on latency at rate annotated on that line, a
consumer head with a 1 MiB fetch.min.bytes and a 500 ms fetch.max.wait.ms fails on end-to-end latency at
rate and on nothing of the producer's, a head with a typo'd key exits 2 naming the line. The benign head
of this example (delivery.timeout.ms and max.poll.records) is measured through the reusable workflow at
the profile its kcliff.yaml declares (tests/workflows/test_workflow_config_check.py)."""

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import ROOT, run_kcliff
from kcliff.judge import sequential

EXAMPLE = ROOT / "examples" / "config-repo"
PRODUCER = Path("producers") / "app-producer.properties"
BROKER = Path("brokers") / "server.properties"
CONSUMER = Path("consumers") / "app-consumer.properties"
# A benign head where bytes bind: each broker's disk at 2.33 MB/s and link at 22 Mbit/s (the aws-m5.xlarge-gp3
# profile's caps on this machine, given by hand so that no calibration runs). There a round's ratios
# scatter 2-6% and the first look is round 4 (sequential.FIRST_LOOK_WHERE_BYTES_BIND), so 4 rounds decide
# the pass of a change measured flat out and at rate: 27 A/A checks at the profile replayed at 4 rounds
# all passed. kcliff's own ci.yml runs `make test` as a GitHub runner's user, and capped links need root:
# there these skip. The self-test's canary is flush-1: at these caps batching-off read 0.73-0.81x of the
# reference in six checks of 2026-11-30 (at this session's code and at the one before), around its 0.75
# bound where bytes bind, and failed the self-test in five; flush-1 read 0.42x of its 0.65 (two checks).
NEEDS_ROOT = pytest.mark.skipif(os.geteuid() != 0, reason="capped links need root (network namespaces)")
CAPPED = ["--link-mbit", "22", "--disk-mb-s", "2.33", "--repeats", "1", "--prime", "5", "--canaries", "flush-1",
          "--rounds", "4", "--format", "github"]
# linger.ms 5 -> 100 at rate: 4.99x p99 at rate over 15 rounds of a default check (throughput 1.02x). At
# these settings p99 at rate read 3.31x, 2.79x and 2.33x in three checks and was certain in only one (a
# stall of the machine sets a 3-second run's p99 now and then); its median at rate, 5-6x with the base's
# rounds at 4.0-5.1 ms, is what the test asserts: three more checks read 4.69x [4.38-5.03], 3.23x
# [3.11-3.35] and 3.34x [3.16-3.54], each p < 1e-6 against the 0.0042 it is held to (148-160 s each) in 5
# rounds. At 4 (one look, with 3 degrees of freedom) it read 3.16x at p = 1.7e-4: 25x inside the bound, too
# little for the noise CI has shown, for the 30 s a round saves.
LINGER = ["--records", "20000", "--repeats", "1", "--prime", "5", "--canaries", "batching-off", "--rounds", "5",
          "--run-seconds", "3", "--format", "github"]
# The slow-fetch head, consumer only: its self-test is the read and latency canaries, and its rounds read and
# run at rate without flat-out runs once the topic holds what the reads read. Three checks at these settings
# read e2e_p50_at_rate 37.9x, 44.1x and 37.7x at p = 1.7e-7 to 1.4e-6 against the 0.0083 it is held to, in
# 93-96 s each; 4 rounds are the fewest at which the fixed rule's t-test has 3 degrees of freedom.
SLOW_FETCH = ["--records", "20000", "--repeats", "1", "--prime", "5", "--rounds", "4", "--run-seconds", "3",
              "--format", "github"]
# The flush=1 head fails on its cliff rule whatever the figures say; measured briefly all the same,
# flat out only (the linger test below measures at rate), 3,000 records at least: the head sends about a
# tenth as fast on the emulated disk.
BRIEF = ["--records", "3000", "--repeats", "1", "--rounds", "2", "--run-seconds", "2", "--prime", "5", "--no-rate",
         "--format", "github"]


@pytest.fixture
def repos(tmp_path: Path) -> tuple[Path, Path]:
    base, head = tmp_path / "base", tmp_path / "head"
    shutil.copytree(EXAMPLE, base)
    shutil.copytree(EXAMPLE, head)
    return base, head


def line_of(path: Path, text: str) -> int:
    return next(i for i, line in enumerate(path.read_text().splitlines(), 1) if line.startswith(text))


def test_typo_in_head_exits_2_naming_the_line(repos, tmp_path):
    base, head = repos
    producer = head / PRODUCER
    producer.write_text(producer.read_text().replace("linger.ms=5", "linger.msec=10"))
    done = run_kcliff("check", "--base", str(base), "--head", str(head), "--workdir", str(tmp_path / "w"),
                      timeout=120)
    assert done.returncode == 2, done.stderr
    assert f"{producer}:{line_of(producer, 'linger.msec')}:" in done.stderr
    assert "linger.ms" in done.stderr and "Traceback" not in done.stderr
    assert not (tmp_path / "w" / "runs").exists()  # refused before any cluster was started


@pytest.mark.kafka
def test_flush_1_and_a_one_byte_fetch_fail_each_on_its_line_and_the_consumer_is_measured(repos, shared_cluster,
                                                                                          tmp_path):
    """flush=1 on the brokers and fetch.max.bytes=1 in the consumer: each cliff rule annotates its own
    line, and the consumer change brings the read side into the check (its canary in the self-test,
    a consumer run per round on both sides)."""
    base, head = repos
    broker, consumer = head / BROKER, head / CONSUMER
    broker.write_text(broker.read_text() + "log.flush.interval.messages=1\n")
    consumer.write_text(consumer.read_text().replace("fetch.max.bytes=52428800", "fetch.max.bytes=1"))
    out = tmp_path / "verdict.json"
    done = run_kcliff("check", "--base", str(base), "--head", str(head), *BRIEF, "--json", str(out),
                      "--workdir", str(shared_cluster), timeout=900)
    assert done.returncode == 1, done.stderr[-3000:]
    for path, setting, rule in ((broker, "log.flush.interval.messages", "flush-every-message"),
                                (consumer, "fetch.max.bytes", "consumer-fetch-one-batch")):
        # the rule's annotation, once (a measured cliff of the head adds its own on the same line)
        prefix = f"::error file={path},line={line_of(path, setting)},title=kcliff%3A {rule}::"
        assert len([a for a in done.stdout.splitlines() if a.startswith(prefix)]) == 1, done.stdout
    result = json.loads(out.read_text())
    assert result["verdict"] == "cliff"
    assert "consumed" in {d["metric"] for d in result["scenarios"][0]["decisions"]}
    assert any(c["id"] == "consumer-fetch-1" for c in result["canaries"])


@pytest.mark.kafka
def test_a_linger_head_no_rule_knows_fails_on_latency_at_rate_on_its_line(repos, shared_cluster, tmp_path):
    """linger.ms 5 -> 100: flat out the batches fill first and nothing changes; at the service's rate
    (a tenth of the base's peak) every record waits for its batch. The check fails it on latency at
    rate, annotated on that line, and its self-test shows the latency canary."""
    base, head = repos
    producer = head / PRODUCER
    producer.write_text(producer.read_text().replace("linger.ms=5", "linger.ms=100"))
    # linger.ms trades CPU against bytes: with no profile a check measures a byte-bound rig too (issue #42);
    # this test is about latency at rate on the shared, CPU-bound cluster
    done, result, decisions = regressed_check(base, head, shared_cluster, tmp_path, *LINGER, "--profile", "cpu-bound")
    assert decisions["p50_at_rate"]["outcome"] == "regression", decisions["p50_at_rate"]
    prefix = f"::error file={producer},line={line_of(producer, 'linger.ms')},title=kcliff%3A measured regression::"
    errors = [a for a in done.stdout.splitlines() if a.startswith("::error")]
    assert len(errors) == 1 and errors[0].startswith(prefix) and "p50_at_rate" in errors[0], done.stdout
    assert {c["id"]: c["shows_cliff"] for c in result["canaries"]}.get("linger-500") is True, result["canaries"]


@pytest.mark.kafka
def test_a_slow_fetch_consumer_head_fails_on_end_to_end_latency_at_rate_not_on_the_producer(repos, shared_cluster,
                                                                                             tmp_path):
    """fetch.min.bytes 1 MiB with a 500 ms fetch.max.wait.ms: a quiet topic's every record waits for its
    fetch. A consumer-only change: the check fails it on end-to-end latency at rate, annotated on the
    lines it added, and judges nothing the producer alone measures."""
    base, head = repos
    consumer = head / CONSUMER
    consumer.write_text(consumer.read_text().replace(
        "max.poll.records=500", "max.poll.records=500\nfetch.min.bytes=1048576\nfetch.max.wait.ms=500"))
    done, result, decisions = regressed_check(base, head, shared_cluster, tmp_path, *SLOW_FETCH)
    assert decisions["e2e_p50_at_rate"]["outcome"] == "regression", decisions["e2e_p50_at_rate"]
    assert {decisions[m]["outcome"] for m in ("throughput", "p99", "p50_at_rate", "p99_at_rate")} == {"not judged"}
    errors = [a for a in done.stdout.splitlines() if a.startswith("::error")]
    for setting in ("fetch.min.bytes", "fetch.max.wait.ms"):
        prefix = f"::error file={consumer},line={line_of(consumer, setting)},title=kcliff%3A measured regression::"
        assert [a for a in errors if a.startswith(prefix) and "e2e_p50_at_rate" in a], done.stdout
    assert len(errors) == 2, done.stdout
    assert {c["id"] for c in result["canaries"]} == {"consumer-fetch-1", "linger-500"}, result["canaries"]


def regressed_check(base: Path, head: Path, workdir: Path, tmp_path: Path, *args: str
                    ) -> tuple[subprocess.CompletedProcess, dict, dict[str, dict]]:
    """`kcliff check` (with `args`) of a head that must fail as a measured regression: the finished
    process, the verdict JSON and its decisions by metric."""
    out = tmp_path / "verdict.json"
    done = run_kcliff("check", "--base", str(base), "--head", str(head), *args, "--json", str(out),
                      "--workdir", str(workdir), timeout=900)
    result = json.loads(out.read_text())
    assert (done.returncode, result["verdict"]) == (1, "regression"), (result["reasons"], done.stderr[-3000:])
    return done, result, {d["metric"]: d for d in result["scenarios"][0]["decisions"]}


def capped_benign_check(base: Path, head: Path, tmp_path: Path, *extra: str) -> tuple[subprocess.CompletedProcess, dict]:
    """`kcliff check` (CAPPED, then `extra`) of a head that must pass, on a cluster of its own behind
    capped links and disks (caps are set when brokers start): a pass, exit 0, every canary seen, no error
    annotation, throughput paired over the 4 rounds, the disk bound. Returns the process and the verdict."""
    out = tmp_path / "verdict.json"
    done = run_kcliff("check", "--base", str(base), "--head", str(head), *CAPPED, *extra, "--json", str(out),
                      "--workdir", str(tmp_path / "w"), timeout=900)
    result = json.loads(out.read_text())
    assert (done.returncode, result["verdict"]) == (0, "pass"), (result["reasons"], result["scenarios"],
                                                                 done.stderr[-3000:])
    assert all(c["shows_cliff"] for c in result["canaries"]), result["canaries"]
    assert "::error" not in done.stdout
    throughput = {d["metric"]: d for d in result["scenarios"][0]["decisions"]}["throughput"]
    assert (throughput["method"], throughput["n_pairs"]) == ("paired", sequential.FIRST_LOOK_WHERE_BYTES_BIND), throughput
    assert json.loads(Path(result_file(done)).read_text())["environment"]["rig"]["binds"] == "disk"
    return done, result


def result_file(done: subprocess.CompletedProcess) -> str:
    """The results file `kcliff check` names on stderr."""
    return next(line.split("results: ", 1)[1] for line in done.stderr.splitlines() if line.startswith("results: "))

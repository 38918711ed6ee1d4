"""kcliff's librdkafka load generator (kafka/rdkafka_loadgen.py, issue #44) as kcliff runs and reads it:
its recorded real output (confluent-kafka 2.16.1, librdkafka 2.16.0, Kafka 4.2.0, the local cluster)
parses unchanged with the perf tool's parser flat out and the Java load generator's at rate; perf_run and
rate_run start it through the cluster's program_command with librdkafka's settings in a file, as
written; the compose backend refuses it; a setting librdkafka refuses is exit 2 naming it."""

import subprocess
import sys
import time
from pathlib import Path

import pytest
from kcliff.backends.base import Cluster
from kcliff.backends.compose import ComposeCluster
from kcliff.errors import InputError
from kcliff.kafka import rdkafka_release
from kcliff.kafka.clients import Client
from kcliff.kafka.rdkafka_client import client_config
from kcliff.measure import at_rate, perf_output, rate_output
from kcliff.measure import producer as measure

DATA = Path(__file__).parents[1] / "data" / "rdkafka-loadgen"
FLAT = DATA / "flat-out-zstd.txt"  # 200,000 records of 700 letters, 40,000 kept quiet, zstd, linger 5 ms
RATE_5 = DATA / "rate-zstd-linger-5.jsonl"  # 1,000 records/s of 1 KiB letters for 5 s after 2 s, linger 5 ms
RATE_100 = DATA / "rate-none-linger-100.jsonl"  # the same with queue.buffering.max.ms=100, no compression
SETTINGS = {"queue.buffering.max.ms": 5, "compression.codec": "zstd", "enable.idempotence": True,
            "partitioner": "murmur2_random", "acks": "all"}


class Started(Cluster):
    """Notes each program it was asked to start; runs `script` (Python) in its place."""
    backend = "stand-in"
    admin_bootstrap = tool_bootstrap = "127.0.0.1:9092"

    def __init__(self, script: str = "") -> None:
        self.script = script
        self.started: list[list[str]] = []

    def tool_command(self, main_class: str, args: list[str], files: tuple[Path, ...] = (),
                     jars: tuple[Path, ...] = (), name: str | None = None) -> list[str]:
        raise AssertionError("a librdkafka client never runs a Java tool")

    def program_command(self, argv: list[str]) -> list[str]:
        self.started.append(argv)
        return [sys.executable, "-c", self.script]

    def down(self) -> None:
        pass


def _replaying(path: Path) -> str:
    return f"import sys; sys.stdout.write(open({str(path)!r}).read())"


def _arg(argv: list[str], flag: str) -> str:
    return argv[argv.index(flag) + 1]


def test_its_flat_out_output_reads_as_the_perf_tools():
    lines = FLAT.read_text().splitlines()
    interim = [p for p in map(perf_output.parse_line, lines) if p is not None and not p.is_summary]
    assert [p.records for p in interim] == [63995, 73501] and interim[1].mb_per_sec == 49.07
    steady = perf_output.summary(lines)
    assert steady is not None and steady.steady_state and steady.records == 160_000
    assert (steady.p50_ms, steady.p95_ms, steady.p99_ms, steady.p999_ms) == (33, 84, 146, 273)
    assert perf_output.compression_ratio(lines) == pytest.approx(1 / 0.622, abs=1e-3)


def test_its_rate_output_reads_as_the_java_load_generators_and_its_histograms_merge():
    fast, slow = (rate_output.parse(p.read_text().splitlines()) for p in (RATE_5, RATE_100))
    assert fast.summary is not None and slow.summary is not None
    assert len(fast.progress) == 7 and fast.summary.held_rate and slow.summary.held_rate
    assert (fast.summary.scheduled, fast.summary.acked, fast.summary.unsent) == (5000, 5000, 0)
    assert fast.summary.end_to_end is None and fast.summary.consumed is None  # no consumer on librdkafka
    assert fast.summary.produce.decoded().get_total_count() == 5000
    # waiting up to 100 ms for a batch at 1 record/ms: the median record waits about half of it
    assert fast.summary.produce.p50_ms < 10 < 50 < slow.summary.produce.p50_ms < 60
    assert fast.summary.compression_ratio == 1.573 and slow.summary.compression_ratio == 0.99
    both = rate_output.merged([fast.summary.produce, slow.summary.produce])
    assert both.count == 10_000 and both.p50_ms is not None and fast.summary.produce.p99_ms < both.p99_ms


def test_perf_run_starts_it_through_the_cluster_with_librdkafkas_settings_as_written(tmp_path: Path):
    cluster = Started(_replaying(FLAT))
    run = measure.perf_run(cluster, "t", 200_000, SETTINGS, time.monotonic() + 60, tmp_path / "run.log",
                           record_size=700, client=Client.LIBRDKAFKA)
    assert run.complete and run.records == 160_000 and run.p99_ms == 146 and run.compression_ratio == 1.608
    argv = cluster.started[0]
    assert argv[:3] == [sys.executable, "-m", "kcliff.kafka.rdkafka_loadgen"]
    settings = tmp_path / "run.librdkafka.conf"
    assert _arg(argv, "--producer-config") == str(settings.resolve())
    assert (_arg(argv, "--num-records"), _arg(argv, "--warmup-records"), _arg(argv, "--record-size")) == (
        "200000", "40000", "700")
    assert settings.read_text() == ("queue.buffering.max.ms=5\ncompression.codec=zstd\nenable.idempotence=true\n"
                                    "partitioner=murmur2_random\nacks=all\n")  # a file, never a shell


def test_rate_run_starts_it_at_the_rate_and_reads_its_summary(tmp_path: Path):
    cluster = Started(_replaying(RATE_100))
    ran = at_rate.rate_run(cluster, "t", 1000, 5, 2, SETTINGS, {"fetch.max.wait.ms": 500}, tmp_path / "r.log",
                           client=Client.LIBRDKAFKA)
    assert ran.summary is not None and ran.summary.produce.p50_ms == 55.295 and ran.failure is None
    argv = cluster.started[0]
    assert (_arg(argv, "--rate"), _arg(argv, "--duration-s"), _arg(argv, "--warmup-s")) == ("1000", "5", "2")
    assert "--consumer-config" not in argv and not list(tmp_path.glob("*.consumer.properties"))


def test_the_compose_backend_refuses_it_naming_why():
    with pytest.raises(InputError, match="compose backend cannot measure a librdkafka client: .*no Python"):
        ComposeCluster.program_command(None, ["python"])  # type: ignore[arg-type]


def test_the_generator_reaches_the_measured_cluster_and_asks_for_every_delivery_report():
    config = client_config({"bootstrap.servers": "kafka-0:9093", "metadata.broker.list": "k:9092",
                            "security.protocol": "ssl", "ssl.ca.location": "/etc/ca.crt", "sasl.mechanisms": "PLAIN",
                            "queue.buffering.max.ms": "5", "delivery.report.only.error": "true"}, "127.0.0.1:9092")
    assert config == {"queue.buffering.max.ms": "5", "statistics.interval.ms": "1000",
                      "bootstrap.servers": "127.0.0.1:9092", "delivery.report.only.error": False}


def test_a_setting_librdkafka_refuses_is_exit_2_with_librdkafkas_words(tmp_path: Path):
    conf = tmp_path / "p.conf"
    conf.write_text("# a service's file\nqueue.buffering.max.ms = soon\n")
    done = subprocess.run([sys.executable, "-m", "kcliff.kafka.rdkafka_loadgen", "--bootstrap-servers", "127.0.0.1:1",
                           "--topic", "t", "--producer-config", str(conf), "--rate", "10"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and "queue.buffering.max.ms" in done.stderr and "Traceback" not in done.stderr


def test_the_installed_confluent_kafka_runs_it_unless_another_release_is_asked_for(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.delenv(rdkafka_release.RELEASE_VAR, raising=False)
    assert rdkafka_release.command() == [sys.executable, "-m", "kcliff.kafka.rdkafka_loadgen"]
    assert rdkafka_release.describe().startswith("confluent-kafka 2.")
    monkeypatch.setenv(rdkafka_release.RELEASE_VAR, "2.6; rm -rf ~")
    with pytest.raises(InputError, match="expected a confluent-kafka release such as 2.6.1"):
        rdkafka_release.command()

"""Flat out with a keyed payload (issue #29): the perf tool has no option for keys, so measure.perf_run
starts kcliff's load generator with --num-records in its place, which prints the perf tool's lines.
Unkeyed payloads and random letters keep the perf tool's argv as it was."""

import sys
import time
from pathlib import Path

import pytest
from kcliff.backends.base import Cluster
from kcliff.kafka import loadgen
from kcliff.kafka import release as kafka_release
from kcliff.measure import producer as measure
from kcliff.scenario.payload import PayloadKind
from kcliff.scenario.payload_files import PreparedPayload

JARS = (Path("/jars/kcliff-loadgen.jar"),)
RECORDED = Path(__file__).parents[1] / "data" / "perf" / "loadgen-flat-out-keyed-zstd.txt"


class Started(Cluster):
    """Notes what each tool command was asked for; runs `script` (Python) in its place."""
    backend = "stand-in"
    admin_bootstrap = tool_bootstrap = "127.0.0.1:9092"

    def __init__(self, version: str = "4.2.0", script: str = "") -> None:
        self.version, self.script = version, script
        self.started: list[tuple[str, list[str], tuple[Path, ...], tuple[Path, ...]]] = []

    @property
    def release(self) -> kafka_release.KafkaRelease:
        return kafka_release.of(self.version)

    def tool_command(self, main_class: str, args: list[str], files: tuple[Path, ...] = (),
                     jars: tuple[Path, ...] = ()) -> list[str]:
        self.started.append((main_class, args, files, jars))
        return [sys.executable, "-c", self.script] if self.script else [main_class, *args]

    def down(self) -> None:
        pass


def _payload(tmp_path: Path, keyed: bool) -> PreparedPayload:
    return PreparedPayload(PayloadKind.SAMPLES, "0" * 64, 40, keyed, 70, 77.0, 76.8, 84,
                           tmp_path / "values; rm -rf ~", "\n", tmp_path / "records $(reboot).b64")


def _arg(args: list[str], flag: str) -> str:
    return args[args.index(flag) + 1]


@pytest.fixture(autouse=True)
def _built(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(measure.loadgen, "ensure", lambda: JARS)  # built by setup; not needed for an argv


def test_a_keyed_payload_goes_to_the_load_generator_flat_out_with_its_records_file(tmp_path: Path):
    cluster = Started()
    payload = _payload(tmp_path, keyed=True)
    producer = {"acks": "all", "compression.type": "zstd", "linger.ms": 5}
    argv = measure.tool_argv(cluster, "t", 50_000, producer, tmp_path / "run.log", throughput=None, quiet=10_000,
                             record_size=77, payload=payload)
    main_class, args, files, jars = cluster.started[-1]
    assert argv == [main_class, *args] and main_class == loadgen.MAIN_CLASS and jars == JARS
    settings = tmp_path / "run.producer.properties"
    assert settings.read_text() == "acks=all\ncompression.type=zstd\nlinger.ms=5\n"  # a file, never a shell
    assert files == (settings.resolve(), payload.records_file)  # what the compose backend mounts
    assert args == ["--bootstrap-servers", "127.0.0.1:9092", "--topic", "t", "--num-records", "50000",
                    "--payload-file", str(payload.records_file), "--producer-config", str(settings.resolve()),
                    "--reporting-interval-ms", str(measure.REPORTING_INTERVAL_MS), "--warmup-records", "10000"]
    assert "--rate" not in args and "--record-size" not in args and "--values" not in str(args)


def test_the_load_generator_takes_a_throughput_limit_and_keeps_no_records_quiet_where_the_release_cannot(
        tmp_path: Path):
    cluster = Started("3.9.2")
    measure.tool_argv(cluster, "t", 1000, {}, tmp_path / "run.log", throughput=300, quiet=200,
                      payload=_payload(tmp_path, keyed=True))
    _, args, _, _ = cluster.started[-1]
    assert _arg(args, "--throughput") == "300" and "--warmup-records" not in args  # both sides of an upgrade alike


@pytest.mark.parametrize("keyed_payload", [False, None])
def test_an_unkeyed_payload_or_random_letters_keep_the_perf_tools_argv(tmp_path: Path, keyed_payload):
    cluster = Started()
    payload = None if keyed_payload is None else _payload(tmp_path, keyed=False)
    producer = {"acks": "all", "linger.ms": 5}
    argv = measure.tool_argv(cluster, "t", 50_000, producer, tmp_path / "run.log", throughput=2000, quiet=10_000,
                             record_size=200, payload=payload)
    assert argv == measure.perf_argv(Started(), "t", 50_000, producer, 2000, 10_000, 200, payload)
    sent = ["--record-size", "200"] if payload is None else ["--payload-file", str(payload.values_file)]
    assert argv == [measure.PERF_CLASS, "--topic", "t", "--num-records", "50000", *sent, "--throughput", "2000",
                    "--print-metrics", "--reporting-interval", "1000", "--warmup-records", "10000",
                    "--command-property", "acks=all", "linger.ms=5", "bootstrap.servers=127.0.0.1:9092"]
    assert not list(tmp_path.glob("*.properties"))  # the perf tool takes its settings as arguments


def test_perf_run_follows_and_reads_the_load_generators_recorded_flat_out_output_like_the_perf_tools(
        tmp_path: Path):
    # two producers print a recorded real run each (Kafka 4.2.0 clients, zstd, the keyed samples of
    # tests/measure/test_payloads.py): shares, the steady-state summary and the combined figures as for the perf tool
    cluster = Started(script=f"import sys; sys.stdout.write(open({str(RECORDED)!r}).read())")
    payload = _payload(tmp_path, keyed=True)
    payload.values_file.write_text("v\n")
    payload.records_file.write_text("aw==\tdg==\n")  # perf_run stages them beside the logs
    run = measure.perf_run(cluster, "t", 600_001, {"compression.type": "zstd"}, time.monotonic() + 60,
                           tmp_path / "k.log", quiet=120_000, producers=2, payload=payload)
    assert [c[0] for c in cluster.started] == [loadgen.MAIN_CLASS] * 2
    assert [_arg(c[1], "--num-records") for c in cluster.started] == ["300001", "300000"]
    assert [_arg(c[1], "--warmup-records") for c in cluster.started] == ["60000"] * 2
    assert {_arg(c[1], "--payload-file") for c in cluster.started} == {str(tmp_path / "payloads" / f"{'0' * 16}-records")}
    one = measure.summary(RECORDED.read_text().splitlines())
    assert one is not None and one.steady_state and run.complete and len(run.producers) == 2
    assert run.records == 2 * one.records and run.mb_per_sec == pytest.approx(2 * one.mb_per_sec)
    assert run.compression_ratio == run.producers[0].compression_ratio is not None
    assert sorted(p.name for p in tmp_path.glob("k-*")) == [
        "k-p1.log", "k-p1.producer.properties", "k-p1.stderr.log", "k-p2.log", "k-p2.producer.properties",
        "k-p2.stderr.log"]

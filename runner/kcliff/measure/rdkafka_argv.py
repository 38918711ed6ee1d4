"""The argv of kcliff's librdkafka load generator (kafka/rdkafka_loadgen.py), flat out and at rate, in
the places of the perf tool's and the Java load generator's: started by the cluster as its producer
runs (Cluster.program_command: its CPUs), its settings in a file of librdkafka's `key=value` lines
beside the run's log, never through a shell. It prints what those tools print, so perf_run and rate_run
follow, stop and parse it unchanged."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from kcliff.backends.base import Cluster
from kcliff.kafka import rdkafka_release
from kcliff.scenario.settings import as_kafka_value


def write_settings(path: Path, producer: dict[str, Any]) -> Path:
    """librdkafka's settings as written in the service's file (values kept as their text)."""
    path.write_text("".join(f"{k}={as_kafka_value(v)}\n" for k, v in producer.items()))
    return path.resolve()


def _sent(record_size: int, records_file: Path | None) -> list[str]:
    return ["--record-size", str(record_size)] if records_file is None else ["--payload-file", str(records_file)]


def flat_out_argv(cluster: Cluster, topic: str, records: int, producer_file: Path, record_size: int,
                  records_file: Path | None, quiet: int, throughput: int | None, interval_ms: int) -> list[str]:
    """`records` as fast as librdkafka takes them, printed as the perf tool prints (the first `quiet`
    left out of the steady-state summary)."""
    args = ["--bootstrap-servers", cluster.tool_bootstrap, "--topic", topic, "--num-records", str(records),
            "--producer-config", str(producer_file), "--reporting-interval-ms", str(interval_ms),
            *_sent(record_size, records_file)]
    args += ["--warmup-records", str(quiet)] if quiet else []
    args += ["--throughput", str(throughput)] if throughput else []
    return cluster.program_command(rdkafka_release.command() + args)


def rate_argv(cluster: Cluster, topic: str, rate: float, duration_s: float, warmup_s: float, producer_file: Path,
              record_size: int, records_file: Path | None, drain_s: float, interval_s: float,
              producers: int) -> list[str]:
    """`rate` records/s on an open-loop schedule, printed as the Java load generator prints (produce
    latency only: no consumer on librdkafka yet)."""
    args = ["--bootstrap-servers", cluster.tool_bootstrap, "--topic", topic, "--rate", f"{rate:g}",
            "--duration-s", f"{duration_s:g}", "--warmup-s", f"{warmup_s:g}", "--producer-config", str(producer_file),
            "--interval-s", f"{interval_s:g}", "--drain-s", f"{drain_s:g}", "--producers", str(producers),
            *_sent(record_size, records_file)]
    return cluster.program_command(rdkafka_release.command() + args)

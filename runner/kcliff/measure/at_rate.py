"""One fixed-rate run of kcliff's load generator (kafka/loadgen.py, docs/loadgen.md): records sent on
an open-loop schedule at `rate` records/s, produce latency (and end-to-end latency, given a consumer's
settings) timed from each record's due time. The tool runs as the perf tools do, in the cluster's
capped producer JVM; every setting goes in a properties file, never through a shell."""

from __future__ import annotations

import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from kcliff.backends.base import Cluster
from kcliff.errors import InputError
from kcliff.host import procs
from kcliff.kafka import loadgen
from kcliff.kafka.clients import Client
from kcliff.measure import rate_output, rdkafka_argv
from kcliff.measure.rate_output import RateProgress, RateSummary
from kcliff.results.model import StopKind
from kcliff.scenario import settings
from kcliff.scenario.consuming import Consuming
from kcliff.scenario.payload_files import PreparedPayload

INTERVAL_S = 1.0
DRAIN_S = 10.0  # after the measured duration, how long acks and the consumer may still come
START_S = 30.0  # the JVM's start, the topic's look-up, the clients' connections
EXIT_UNREACHABLE, EXIT_ARGUMENTS = 1, 2  # LoadGen.EXIT_CLUSTER, LoadGen.EXIT_ARGS

Watch = Callable[[], "tuple[StopKind, str] | None"]  # faults.FaultWatch.check: a dead broker, a full disk


@dataclass(frozen=True)
class RateRun:
    """What one run gave: its summary, or why there is none."""
    summary: RateSummary | None
    progress: list[RateProgress] = field(default_factory=list)
    elapsed_s: float = 0.0
    exit_code: int | None = None
    failure: str | None = None
    stop_kind: StopKind | None = None


@dataclass(frozen=True)
class FailoverArgs:
    """A run through a fault: reads later than `late_ms` are catching up; the run ends once `stop_file`
    holds anything; the consumer joins `group_id` (None: it is assigned every partition)."""
    late_ms: float
    stop_file: Path
    group_id: str | None = None


def fresh_group() -> str:
    """A consumer group no run used before: no member, no committed offset."""
    return f"kcliff-{uuid.uuid4().hex[:8]}"


def write_properties(path: Path, values: dict[str, Any]) -> Path:
    path.write_text("".join(f"{k}={settings.as_kafka_value(v)}\n" for k, v in values.items()))
    return path.resolve()


def client_files(log_path: Path, producer: dict[str, Any], consumer: dict[str, Any] | None
                 ) -> tuple[Path, Path | None]:
    """The producer's and the consumer's settings (None: no consumer) in properties files beside the run's log."""
    consumer_file = None if consumer is None else write_properties(log_path.with_suffix(".consumer.properties"),
                                                                   consumer)
    return write_properties(log_path.with_suffix(".producer.properties"), producer), consumer_file


def rate_argv(cluster: Cluster, topic: str, rate: float, duration_s: float, warmup_s: float, producer_file: Path,
              consumer_file: Path | None = None, record_size: int = settings.RECORD_SIZE,
              drain_s: float = DRAIN_S, interval_s: float = INTERVAL_S,
              payload: PreparedPayload | None = None, producers: int = 1,
              failover: FailoverArgs | None = None, consuming: Consuming | None = None) -> list[str]:
    """Records are random letters of `record_size`, or `payload`'s records (keys included) from its file;
    `producers` clients share the rate in turn; `failover`: a run through a fault (measure/failover.py);
    `consuming`: the consumer is a fresh group that reads, works and commits as its service does."""
    sent = ["--record-size", str(record_size)] if payload is None else ["--payload-file", str(payload.records_file)]
    args = ["--bootstrap-servers", cluster.tool_bootstrap, "--topic", topic, "--rate", f"{rate:g}",
            *sent, "--duration-s", f"{duration_s:g}", "--warmup-s", f"{warmup_s:g}",
            "--producer-config", str(producer_file), "--interval-s", f"{interval_s:g}", "--drain-s", f"{drain_s:g}"]
    args += ["--producers", str(producers)] if producers > 1 else []
    files: tuple[Path, ...] = (producer_file,) + ((payload.records_file,) if payload else ())
    if consumer_file is not None:
        args += ["--consumer-config", str(consumer_file)]
        files += (consumer_file,)
    if failover is not None:
        args += ["--failover", f"{failover.late_ms:g}", "--stop-file", str(failover.stop_file)]
        args += ["--group-id", failover.group_id] if failover.group_id and consumer_file is not None else []
        files += (failover.stop_file,)
    elif consuming is not None and consumer_file is not None:
        args += ["--group-id", fresh_group(), *consuming.loadgen_args()]
    return cluster.tool_command(loadgen.MAIN_CLASS, args, files, jars=loadgen.ensure())


def rate_run(cluster: Cluster, topic: str, rate: float, duration_s: float, warmup_s: float,
             producer: dict[str, Any], consumer: dict[str, Any] | None, log_path: Path,
             watch: Watch | None = None, drain_s: float = DRAIN_S, record_size: int = settings.RECORD_SIZE,
             payload: PreparedPayload | None = None, producers: int = 1, client: Client = Client.JAVA,
             consuming: Consuming | None = None) -> RateRun:
    """Run the load generator once on `topic`; `producer` is the settings as applied (invariants
    included), `consumer` the read side's (None: produce latency only). The tool is ended on every
    path: its own end, its time cap, a fault the watch sees, an exception here. `producers` clients share
    the rate in turn (a service's instances); `consuming`: how the consumer's service reads (its members
    join before the first send). A librdkafka `client` is measured by kcliff's librdkafka load generator,
    for its produce latency only."""
    staged = payload.staged(log_path.parent) if payload else None
    if client is Client.LIBRDKAFKA:
        settings_file = rdkafka_argv.write_settings(log_path.with_suffix(".librdkafka.conf"), producer)
        argv = rdkafka_argv.rate_argv(cluster, topic, rate, duration_s, warmup_s, settings_file, record_size,
                                      staged.records_file if staged else None, drain_s, INTERVAL_S, producers)
    else:
        producer_file, consumer_file = client_files(log_path, producer, consumer)
        argv = rate_argv(cluster, topic, rate, duration_s, warmup_s, producer_file, consumer_file, record_size,
                         drain_s, payload=staged, producers=producers, consuming=consuming)
    cap_s = START_S + warmup_s + duration_s + drain_s
    began = time.monotonic()
    fault: tuple[StopKind, str] | None = None
    with procs.FollowedTool(argv, log_path) as tool:
        while True:
            left = began + cap_s - time.monotonic()
            if left <= 0:
                fault = (StopKind.BUDGET, f"load generator still running after {cap_s:.0f}s")
                break
            if watch is not None and (fault := watch()) is not None:
                break
            if tool.next_line(timeout=min(1.0, left)) is None:
                break
    elapsed = round(time.monotonic() - began, 3)
    code = tool.proc.returncode
    out = rate_output.parse(tool.seen)
    if code == EXIT_ARGUMENTS:
        said = procs.last_error(tool.errors) or "it said nothing"
        raise InputError(f"the load generator refused its arguments or a client setting: {said} "
                         f"(argv in {log_path}, its stderr in {tool.errors})")
    if fault is not None:
        return RateRun(None, out.progress, elapsed, code, fault[1], fault[0])
    if out.summary is None:
        return RateRun(None, out.progress, elapsed, code, failure(code, procs.last_error(tool.errors)), StopKind.FAILED)
    return RateRun(out.summary, out.progress, elapsed, code)


def failure(code: int | None, said: str | None = None) -> str:
    """Why a load generator that ended gave no summary; `said`: the last error it wrote."""
    why = "could not reach the cluster or the topic" if code == EXIT_UNREACHABLE else "ended without a summary"
    return procs.with_error(f"load generator {why} (exit {code})", said)

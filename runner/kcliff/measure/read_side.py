"""The read side's runs: Kafka's consumer perf tool reading a scenario's topic from the start, and
its end-to-end latency tool producing and polling one record at a time. Each runs in its own JVM,
as the producer's tool does; every value is one argv element, so no shell sees it."""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from kcliff.backends.base import Cluster
from kcliff.host import procs
from kcliff.kafka import loadgen
from kcliff.measure import read_output
from kcliff.measure.at_rate import fresh_group, write_properties
from kcliff.results.field_types import ReadWorkload
from kcliff.results.metrics import Workload
from kcliff.results.model import ReadRun, StopKind
from kcliff.scenario import settings
from kcliff.scenario.consuming import Consuming

REPORTING_INTERVAL_MS = 100  # the tool prints no summary with per-interval reports: the rate spans them
# The consumer tool sets these itself (a 2 MiB receive buffer, 1 MiB per partition) unless told:
# kcliff passes the scenario's value, else Kafka's default, so a consumer is measured as configured.
TOOL_FLAGS = {"receive.buffer.bytes": "--socket-buffer-size", "max.partition.fetch.bytes": "--fetch-size"}
LATENCY_RECORDS = 200  # one synchronous round trip each; 200 give a p99 from the second-slowest
LATENCY_CAP_S = 60.0
CONSUME_MAX_S = 120.0     # a consumer's longest run when there is no reference to judge it by
CONSUME_MIN_CAP_S = 8.0   # never cut a consumer sooner: JVM start and the group join take seconds
WORK_S = 5.0  # a consumer that works on each record reads what its members work through in this long


def worked_reads(consuming: Consuming | None, records: int) -> int:
    """What a consumer reads of `records`: as many, unless its service works on each record, then what its
    members get through in WORK_S (150,000 records at 1 ms each would keep one member for minutes)."""
    if consuming is None or not consuming.processing_us:
        return records
    return max(1, min(records, int(WORK_S * 1e6 * consuming.members / consuming.processing_us)))


def work_s(consuming: Consuming | None, records: int) -> float:
    """The seconds its members spend working on `records`: added to a read's cap, which is set by how fast
    the reference's consumer tool, which does no work, reads as many."""
    return 0.0 if consuming is None else records * consuming.processing_us / 1e6 / consuming.members


def consumer_argv(cluster: Cluster, topic: str, records: int, consumer: dict[str, Any], timeout_s: float,
                  config_path: Path | None = None) -> list[str]:
    """A fresh group reading `records` records from the earliest offset, reporting every tenth of a
    second. Settings the tool has no flag for go in as properties; a release that takes them only
    from a file (before 4.2) gets them written to `config_path`."""
    flags = []
    for name, flag in TOOL_FLAGS.items():
        value = consumer.get(name, settings.require("consumer", name).default)
        flags += [flag, settings.as_kafka_value(value)]
    props = [f"{k}={settings.as_kafka_value(v)}" for k, v in consumer.items() if k not in TOOL_FLAGS]
    release = cluster.release
    config = config_path.resolve() if config_path is not None else None
    args = release.consumer_args(topic, records, cluster.tool_bootstrap, fresh_group(),
                                 REPORTING_INTERVAL_MS, int(timeout_s * 1000), flags, props, config)
    files = (config,) if config is not None and str(config) in args else ()
    return cluster.tool_command(release.consumer_class, args, files)


def group_argv(cluster: Cluster, topic: str, records: int, consumer: dict[str, Any], consuming: Consuming,
               timeout_s: float, config_path: Path) -> list[str]:
    """kcliff's load generator reading `records` as a service does (Consume.java): a fresh group of
    `consuming.members`, each working and committing as `consuming` says, printing the consumer tool's
    lines so one parser reads both."""
    config = write_properties(config_path, consumer)
    args = ["--bootstrap-servers", cluster.tool_bootstrap, "--topic", topic, "--consumer-config", str(config),
            "--group-id", fresh_group(), "--consume", str(records), *consuming.loadgen_args(),
            "--reporting-interval-ms", str(REPORTING_INTERVAL_MS), "--timeout-ms", str(int(timeout_s * 1000))]
    return cluster.tool_command(loadgen.MAIN_CLASS, args, (config,), jars=loadgen.ensure())


Watch = Callable[[], "tuple[StopKind, str] | None"]  # faults.FaultWatch.check: a dead broker, a full disk


@dataclass(frozen=True)
class _Followed:
    lines: list[str]
    cut: bool  # still running at its cap
    code: int | None
    elapsed: float
    fault: tuple[StopKind, str] | None  # what the watch saw, which ended it
    errors: Path  # the tool's stderr

    def failed(self, why: str) -> str:
        """`why` a run gave no figures, with the tool's last error."""
        return procs.with_error(why, procs.last_error(self.errors))


def _follow(argv: list[str], cap_s: float, log_path: Path, watch: Watch | None) -> _Followed:
    """Run a tool to its end, for at most cap_s seconds, or until the watch sees a fault."""
    began = time.monotonic()
    cut, fault = False, None
    with procs.FollowedTool(argv, log_path) as tool:
        while True:
            left = began + cap_s - time.monotonic()
            if left <= 0:
                cut = True
                break
            if watch is not None and (fault := watch()) is not None:
                break
            if tool.next_line(timeout=min(1.0, left)) is None:
                break
    return _Followed(tool.seen, cut, tool.proc.returncode, round(time.monotonic() - began, 3), fault,
                     tool.errors)


def _faulted(workload: ReadWorkload, ran: _Followed, fault: tuple[StopKind, str]) -> ReadRun:
    kind, reason = fault
    return ReadRun(workload=workload, records=0, elapsed_s=ran.elapsed, complete=False, exit_code=ran.code,
                   stop_kind=kind, stop_reason=reason)


def consume_run(cluster: Cluster, topic: str, records: int, consumer: dict[str, Any], cap_s: float,
                log_path: Path, watch: Watch | None = None, consuming: Consuming | None = None) -> ReadRun:
    """Read `records` records, with the consumer tool or, where the scenario says how its service consumes,
    as it does; a consumer still reading after cap_s is stopped there and keeps the rate it had (stopped
    early: a read-side cliff, like the producer's early stop)."""
    config = log_path.with_suffix(".properties")
    argv = consumer_argv(cluster, topic, records, consumer, cap_s, config) if consuming is None \
        else group_argv(cluster, topic, records, consumer, consuming, cap_s, config)
    ran = _follow(argv, cap_s, log_path, watch)
    if ran.fault is not None:
        return _faulted(Workload.CONSUME, ran, ran.fault)
    lines, cut, code, elapsed = ran.lines, ran.cut, ran.code, ran.elapsed
    got = read_output.consumed(lines)
    if got is None and code == 0 and not cut:  # done before its second report: a figure would be noise
        return ReadRun(workload=Workload.CONSUME, records=records, elapsed_s=elapsed, complete=False, exit_code=code,
                       stop_reason=f"read {records} records in under {2 * REPORTING_INTERVAL_MS} ms: "
                                   "too few to give a rate (measure more --records)")
    if got is None:
        return ReadRun(workload=Workload.CONSUME, records=0, elapsed_s=elapsed, complete=False, exit_code=code,
                       stop_kind=StopKind.FAILED,
                       stop_reason=ran.failed(f"consumer tool reported too little (exit {code})"))
    return ReadRun(workload=Workload.CONSUME, records=got.records, consumed_mb_per_sec=round(got.mb_per_sec, 3),
                   consumed_records_per_sec=round(got.records_per_sec, 1), rebalance_ms=got.rebalance_ms,
                   fetch_mb_per_sec=None if got.fetch_mb_per_sec is None else round(got.fetch_mb_per_sec, 3),
                   elapsed_s=elapsed, complete=not cut and not read_output.gave_up(lines), stopped_early=cut,
                   stop_kind=StopKind.CLIFF if cut else None,
                   stop_reason=f"still reading after {cap_s:.0f}s" if cut else None, exit_code=code)


def latency_run(cluster: Cluster, topic: str, producer: dict[str, Any], consumer: dict[str, Any], cap_s: float,
                config_path: Path, log_path: Path, watch: Watch | None = None) -> ReadRun:
    """EndToEndLatency on the scenario's topic with acks=all: its one config file holds the producer's
    and the consumer's settings (it forces linger.ms=0 and fetch.max.wait.ms=0 itself)."""
    props = {k: v for k, v in {**producer, **consumer}.items() if k != "acks"}
    files: tuple[Path, ...] = ()
    if props:  # the tool takes settings only from a file
        config_path.write_text("".join(f"{k}={settings.as_kafka_value(v)}\n" for k, v in props.items()))
        files = (config_path.resolve(),)
    release = cluster.release
    args = release.latency_args(topic, LATENCY_RECORDS, cluster.tool_bootstrap, "all", settings.RECORD_SIZE,
                                files[0] if files else None)
    argv = cluster.tool_command(release.latency_class, args, files)
    ran = _follow(argv, cap_s, log_path, watch)
    if ran.fault is not None:
        return _faulted(Workload.END_TO_END, ran, ran.fault)
    lines, cut, code, elapsed = ran.lines, ran.cut, ran.code, ran.elapsed
    got = read_output.latency(lines)
    if got is None:
        kind = StopKind.CLIFF if cut else StopKind.FAILED
        why = f"not done after {cap_s:.0f}s" if cut else ran.failed(f"latency tool exited {code} without figures")
        return ReadRun(workload=Workload.END_TO_END, records=0, elapsed_s=elapsed, complete=False, stopped_early=cut,
                       exit_code=code, stop_kind=kind, stop_reason=why)
    return ReadRun(workload=Workload.END_TO_END, records=LATENCY_RECORDS, e2e_avg_ms=got.avg_ms, e2e_p50_ms=got.p50_ms,
                   e2e_p99_ms=got.p99_ms, e2e_p999_ms=got.p999_ms, elapsed_s=elapsed, exit_code=code)

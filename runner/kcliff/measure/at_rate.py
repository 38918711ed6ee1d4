"""One fixed-rate run of kcliff's load generator (kafka/loadgen.py, docs/loadgen.md): records sent on
an open-loop schedule at `rate` records/s, produce latency (and end-to-end latency, given a consumer's
settings) timed from each record's due time. The tool runs as the perf tools do, in the cluster's
capped producer JVM; every setting goes in a properties file, never through a shell."""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from kcliff.backends.base import Cluster
from kcliff.errors import InputError
from kcliff.host import procs
from kcliff.kafka import loadgen
from kcliff.measure import rate_output
from kcliff.measure.rate_output import RateProgress, RateSummary
from kcliff.results.model import StopKind
from kcliff.scenario import settings
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


def write_properties(path: Path, values: dict[str, Any]) -> Path:
    path.write_text("".join(f"{k}={settings.as_kafka_value(v)}\n" for k, v in values.items()))
    return path.resolve()


def rate_args(cluster: Cluster, topic: str, rate: float, duration_s: float, warmup_s: float, producer_file: Path,
              consumer_file: Path | None = None, record_size: int = settings.RECORD_SIZE,
              drain_s: float = DRAIN_S, interval_s: float = INTERVAL_S,
              payload: PreparedPayload | None = None, producers: int = 1) -> tuple[list[str], tuple[Path, ...]]:
    """The load generator's arguments for one run, and the files they name. Records are random letters of
    `record_size`, or `payload`'s records (keys included) from its file; `producers` clients share the
    rate in turn."""
    sent = ["--record-size", str(record_size)] if payload is None else ["--payload-file", str(payload.records_file)]
    args = ["--bootstrap-servers", cluster.tool_bootstrap, "--topic", topic, "--rate", f"{rate:g}",
            *sent, "--duration-s", f"{duration_s:g}", "--warmup-s", f"{warmup_s:g}",
            "--producer-config", str(producer_file), "--interval-s", f"{interval_s:g}", "--drain-s", f"{drain_s:g}"]
    args += ["--producers", str(producers)] if producers > 1 else []
    files: tuple[Path, ...] = (producer_file,) + ((payload.records_file,) if payload else ())
    if consumer_file is not None:
        args += ["--consumer-config", str(consumer_file)]
        files += (consumer_file,)
    return args, files


def rate_argv(cluster: Cluster, topic: str, rate: float, duration_s: float, warmup_s: float, producer_file: Path,
              consumer_file: Path | None = None, record_size: int = settings.RECORD_SIZE,
              drain_s: float = DRAIN_S, interval_s: float = INTERVAL_S,
              payload: PreparedPayload | None = None, producers: int = 1) -> list[str]:
    """The argv of one run in a JVM of its own (rate_args)."""
    args, files = rate_args(cluster, topic, rate, duration_s, warmup_s, producer_file, consumer_file, record_size,
                            drain_s, interval_s, payload, producers)
    return cluster.tool_command(loadgen.MAIN_CLASS, args, files, jars=loadgen.ensure())


class RateWorker:
    """One load generator JVM (`--serve`) that makes a side's runs at rate one after another, so its
    start, its clients' connections and the topic's metadata are paid once, not in every run
    (docs/loadgen.md, "One JVM a side"). Its runs' files must be in `files_dir`, which a container
    mounts. A run that fails or is cut ends it, and the next run starts another; end() ends it."""

    def __init__(self, cluster: Cluster, files_dir: Path) -> None:
        self.cluster, self.files_dir = cluster, files_dir.resolve()
        self._tool: procs.ServedTool | None = None

    def run(self, args: list[str], log_path: Path, cap_s: float, watch: Watch | None) -> RateRun:
        began = time.monotonic()
        if self._tool is None:
            self._tool = procs.ServedTool(self.cluster.tool_command(
                loadgen.MAIN_CLASS, [SERVE], (self.files_dir,), jars=loadgen.ensure()))
        tool = self._tool
        tool.seen.clear()  # this run's lines only
        fault = _follow(tool, began, cap_s, watch) if tool.send("\t".join(args)) else None
        lines = [line for line in tool.seen if not _done(line)]
        code = _done_code(tool.seen)
        procs.write_log(log_path, [*tool.argv, *args], lines)
        if fault is not None or code != 0:
            self.end()  # cut mid-run, gone, or failed: the next run starts afresh
        return _outcome(lines, code, fault, round(time.monotonic() - began, 3), log_path)

    def end(self) -> None:
        if self._tool is not None:
            self._tool.end()
            self._tool = None


SERVE = "--serve"
_DONE = '{"type":"done"'


def _done(line: str) -> bool:
    return line.startswith(_DONE)


def _done_code(lines: list[str]) -> int | None:
    """The exit code the worker gave its run, None when it ended without one."""
    for line in lines:
        if _done(line):
            return int(json.loads(line)["exit"])
    return None


def _follow(tool: procs.LineTool, began: float, cap_s: float, watch: Watch | None) -> tuple[StopKind, str] | None:
    """Read the tool's lines until its run ends (its output closes, or a worker's done line), cap_s
    seconds from `began` (monotonic) pass, or the watch sees a fault: that fault, or None."""
    while True:
        left = began + cap_s - time.monotonic()
        if left <= 0:
            return StopKind.BUDGET, f"load generator still running after {cap_s:.0f}s"
        if watch is not None and (fault := watch()) is not None:
            return fault
        line = tool.next_line(timeout=min(1.0, left))
        if line is None or (line and _done(line)):
            return None


def rate_run(cluster: Cluster, topic: str, rate: float, duration_s: float, warmup_s: float,
             producer: dict[str, Any], consumer: dict[str, Any] | None, log_path: Path,
             watch: Watch | None = None, drain_s: float = DRAIN_S, record_size: int = settings.RECORD_SIZE,
             payload: PreparedPayload | None = None, producers: int = 1, worker: RateWorker | None = None) -> RateRun:
    """Run the load generator once on `topic`; `producer` is the settings as applied (invariants
    included), `consumer` the read side's (None: produce latency only). In `worker`'s JVM if given, else
    in one of its own. The tool is ended on every path: its own end, its time cap, a fault the watch
    sees, an exception here. `producers` clients share the rate in turn (a service's instances)."""
    producer_file = write_properties(log_path.with_suffix(".producer.properties"), producer)
    consumer_file = None if consumer is None else write_properties(
        log_path.with_suffix(".consumer.properties"), consumer)
    staged = payload.staged(log_path.parent) if payload else None
    cap_s = START_S + warmup_s + duration_s + drain_s
    if worker is not None:
        args, _ = rate_args(cluster, topic, rate, duration_s, warmup_s, producer_file, consumer_file, record_size,
                            drain_s, payload=staged, producers=producers)
        return worker.run(args, log_path, cap_s, watch)
    argv = rate_argv(cluster, topic, rate, duration_s, warmup_s, producer_file, consumer_file, record_size, drain_s,
                     payload=staged, producers=producers)
    began = time.monotonic()
    with procs.FollowedTool(argv, log_path) as tool:
        fault = _follow(tool, began, cap_s, watch)
    return _outcome(tool.seen, tool.proc.returncode, fault, round(time.monotonic() - began, 3), log_path)


def _outcome(lines: list[str], code: int | None, fault: tuple[StopKind, str] | None, elapsed: float,
             log_path: Path) -> RateRun:
    """A run's figures from its output, or why it has none."""
    out = rate_output.parse(lines)
    if code == EXIT_ARGUMENTS:
        raise InputError(f"the load generator refused its arguments or a client setting (its message is above; "
                         f"argv in {log_path})")
    if fault is not None:
        return RateRun(None, out.progress, elapsed, code, fault[1], fault[0])
    if out.summary is None:
        why = ("could not reach the cluster or the topic" if code == EXIT_UNREACHABLE
               else "ended without a summary")
        return RateRun(None, out.progress, elapsed, code, f"load generator {why} (exit {code})", StopKind.FAILED)
    return RateRun(out.summary, out.progress, elapsed, code)

"""One kafka-producer-perf-test run: start the tool, follow its interim lines live, stop it on a
deadline or when a stop rule says so, and return every figure it printed."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Callable

from kcliff.backends.base import Cluster
from kcliff.host import procs
from kcliff.kafka import release as kafka_release
from kcliff.measure.perf_output import PerfLine, parse_line, summary
from kcliff.results.model import Run, StopKind
from kcliff.scenario import settings

PERF_CLASS = kafka_release.PRODUCER_CLASS
REPORTING_INTERVAL_MS = 1000  # where the release lets it be set (4.2 on); before, every 5 s
# The perf tool prints a line only when a record is acknowledged (failed sends print nothing), so
# silence this long means the brokers accept nothing: a stall, never a slow cliff (those print every second).
STALL_S = 45.0
STALLED = "fault: stalled:"
BUDGET_SPENT = "time budget exhausted"

# Called with each interim line (None about once a second while none comes) and the seconds since the
# run started; returns a reason to stop, or None.
StopRule = Callable[["PerfLine | None", float], "str | None"]
# Asked about once a second: why the run must stop because of the cluster (a fault), or None.
Watch = Callable[[], "tuple[StopKind, str] | None"]
DEFAULT_BUFFER_MEMORY = 33_554_432  # the producer's buffer.memory default


def perf_argv(cluster: Cluster, topic: str, records: int, producer: dict[str, object],
              throughput: int | None = None, quiet: int | None = None) -> list[str]:
    """The perf tool's argv; `producer` is the scenario's producer settings as applied (invariants
    included), each passed as one argv element: no shell ever sees a value. `quiet` is how many
    records the tool leaves out of its figures (default steady_state_after(records)); a release
    without --warmup-records leaves none out (kafka_release)."""
    release = cluster.release
    quiet = steady_state_after(records) if quiet is None else quiet
    props = {**producer, "bootstrap.servers": cluster.tool_bootstrap}
    return cluster.tool_command(PERF_CLASS, release.producer_args(
        topic, records, settings.RECORD_SIZE, throughput or -1,
        [f"{k}={settings.as_kafka_value(v)}" for k, v in props.items()], REPORTING_INTERVAL_MS,
        quiet if release.producer_warmup else 0))


def steady_state_after(records: int) -> int:
    """Records the perf tool leaves out of its steady-state summary (KIP-1052): the producer's own
    start-up (JVM, metadata, connections) would otherwise dominate short runs."""
    return max(1, records // 5)


def warmup_quiet(records: int) -> int:
    """The same for a scenario's warm-up run, whose figures are not kept: fewer, so that a cliff's
    first interim line comes after 1 MB has drained rather than a fifth of the run."""
    return min(steady_state_after(records), 1000)


def perf_run(cluster: Cluster, topic: str, records: int, producer: dict[str, object], deadline: float,
             log_path: Path, stop_rule: StopRule | None = None,
             on_line: Callable[[PerfLine, float], None] | None = None, throughput: int | None = None,
             watch: Watch | None = None, stall_s: float = STALL_S,
             quiet: int | None = None) -> Run:
    """Run the perf tool once. Stops it at `deadline` (monotonic), when `stop_rule` fires on an
    interim line, or when `watch` (asked about once a second, lines or not: a producer whose brokers
    all died prints nothing) returns a reason. A stopped run keeps the figures of its interim lines
    and is marked incomplete. No interim line for `stall_s` seconds stops it as stalled."""
    began = time.monotonic()
    interim: list[PerfLine] = []
    reason: str | None = None
    kind: StopKind | None = None
    last_progress = began
    with procs.FollowedTool(perf_argv(cluster, topic, records, producer, throughput, quiet), log_path) as tool:
        while True:
            line = tool.next_line(timeout=max(0.05, min(1.0, deadline - time.monotonic())))
            if line is None:
                break
            parsed = parse_line(line) if line else None
            if parsed is not None and parsed.is_summary:
                parsed = None
            elapsed = time.monotonic() - began
            if parsed is not None:
                last_progress = time.monotonic()
                interim.append(parsed)
                if on_line:
                    on_line(parsed, elapsed)
            if stop_rule is not None and (parsed is not None or not line):
                reason = stop_rule(parsed, elapsed)
                if reason:
                    kind = StopKind.CLIFF
                    break
            seen_fault = watch() if watch is not None else None
            if seen_fault is not None:
                kind, reason = seen_fault
                break
            if time.monotonic() >= deadline:
                kind, reason = StopKind.BUDGET, BUDGET_SPENT
                break
            if time.monotonic() - last_progress >= stall_s:
                kind, reason = StopKind.FAULT, f"{STALLED} no record acknowledged for {stall_s:.0f}s"
                break
    seen, code = tool.seen, tool.proc.returncode
    elapsed = round(time.monotonic() - began, 3)
    final = summary(seen)
    mbps = [p.mb_per_sec for p in interim]
    if final is not None and kind is None:
        return Run(records=final.records, records_per_sec=final.records_per_sec, mb_per_sec=final.mb_per_sec,
                   avg_ms=final.avg_ms, max_ms=final.max_ms, p50_ms=final.p50_ms, p95_ms=final.p95_ms,
                   p99_ms=final.p99_ms, p999_ms=final.p999_ms, elapsed_s=elapsed, exit_code=code,
                   interim_mb_per_sec=mbps)
    if kind is None or reason is None:
        kind, reason = StopKind.FAILED, f"perf tool exited {code} without a summary"
    return _from_interim(interim, elapsed, kind, reason, code)


def _from_interim(interim: list[PerfLine], elapsed: float, kind: StopKind, reason: str, code: int | None) -> Run:
    """Figures of a run that did not finish, from what its interim lines reported."""
    sent = sum(p.records for p in interim)
    seconds = sum(p.records / p.records_per_sec for p in interim if p.records_per_sec > 0)
    rps = sent / seconds if seconds else None
    mbps = rps * settings.RECORD_SIZE / 2 ** 20 if rps is not None else None
    avg = sum(p.avg_ms * p.records for p in interim) / sent if sent else None
    worst = max((p.max_ms for p in interim), default=None)
    # "stopped early" is kcliff stopping it before its end; the budget's deadline is recorded apart
    return Run(records=sent, records_per_sec=rps, mb_per_sec=mbps, avg_ms=avg, max_ms=worst, elapsed_s=elapsed,
               complete=False, stopped_early=kind not in (StopKind.BUDGET, StopKind.FAILED), stop_reason=reason,
               stop_kind=kind, exit_code=code, interim_mb_per_sec=[p.mb_per_sec for p in interim])


def unreported_records(quiet: int, producer: dict[str, object]) -> int:
    """The most acknowledged records the perf tool can be keeping quiet about: once it has sent its
    `quiet` warm-up records it reports only steady-state ones, and it says nothing while the warm-up
    records still queued drain (at most all of them, and no more than the producer's buffer holds)."""
    buffer = int(str(producer.get("buffer.memory", DEFAULT_BUFFER_MEMORY)))
    return min(quiet, buffer // settings.RECORD_SIZE)


def cliff_stop_rule(reference_mb_per_sec: float, threshold: float, unreported: int,
                    min_span_s: float = 4.0, quiet_ticks: bool = True) -> StopRule:
    """Stop once even the most the brokers can have acknowledged since the first interim line (all
    records reported, plus `unreported`) is below threshold x the reference's rate over at least
    `min_span_s`, and no interim line so far reached that rate. Asked on quiet ticks too: on a cliff
    the tool goes silent while its warm-up records drain. The fastest line counts because a slow
    start is not a cliff (docs/measurements.md, "Early stop"). `quiet_ticks=False`, for a tool that
    keeps no records quiet: a quiet tick says nothing then, and with a 5 s reporting interval (before
    Kafka 4.2) the records since the last line would be counted as never acknowledged."""
    limit = threshold * reference_mb_per_sec
    first: float | None = None
    reported = 0
    fastest = 0.0

    def rule(line: PerfLine | None, elapsed: float) -> str | None:
        nonlocal first, reported, fastest
        if line is not None:
            reported += line.records
            fastest = max(fastest, line.mb_per_sec)
            first = elapsed if first is None else first
        elif not quiet_ticks:
            return None
        if first is None or elapsed - first < min_span_s or fastest >= limit:
            return None
        most = (reported + unreported) * settings.RECORD_SIZE / 2 ** 20 / (elapsed - first)
        if most >= limit:
            return None
        return (f"cliff: at most {most:.2f} MB/s acknowledged over {elapsed - first:.1f}s < "
                f"{threshold:.2f} x reference {reference_mb_per_sec:.2f} MB/s")

    return rule

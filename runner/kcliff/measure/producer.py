"""One kafka-producer-perf-test run: start the tool, follow its interim lines live, stop it on a
deadline or when a stop rule says so, and return every figure it printed. A payload with keys goes
through kcliff's load generator flat out instead, which prints what the perf tool prints."""

from __future__ import annotations

import contextlib
import time
from pathlib import Path
from typing import Callable

from kcliff.backends.base import Cluster
from kcliff.host import procs
from kcliff.kafka import loadgen
from kcliff.kafka.clients import Client
from kcliff.kafka import release as kafka_release
from kcliff.measure.at_rate import write_properties
from kcliff.measure import rdkafka_argv
from kcliff.measure.bottleneck import Sampler
from kcliff.measure.perf_output import PerfLine, compression_ratio, parse_line, summary
from kcliff.results.model import Run, StopKind
from kcliff.scenario import settings
from kcliff.scenario.payload_files import PreparedPayload

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
              throughput: int | None = None, quiet: int | None = None,
              record_size: int = settings.RECORD_SIZE, payload: PreparedPayload | None = None) -> list[str]:
    """The perf tool's argv; `producer` is the scenario's producer settings as applied (invariants
    included), each passed as one argv element: no shell ever sees a value. `quiet` is how many
    records the tool leaves out of its figures (default steady_state_after(records)); a release
    without --warmup-records leaves none out (kafka_release). Records are random letters of
    `record_size`, or `payload`'s values (its file reaches the tool as the backend mounts files)."""
    release = cluster.release
    quiet = steady_state_after(records) if quiet is None else quiet
    props = {**producer, "bootstrap.servers": cluster.tool_bootstrap}
    args = release.producer_args(
        topic, records, record_size, throughput or -1,
        [f"{k}={settings.as_kafka_value(v)}" for k, v in props.items()], REPORTING_INTERVAL_MS,
        quiet if release.producer_warmup else 0, payload.values_file if payload else None,
        payload.delimiter if payload else "\n")
    return cluster.tool_command(PERF_CLASS, args, (payload.values_file,) if payload else ())


def flat_out_argv(cluster: Cluster, topic: str, records: int, producer_file: Path, payload: PreparedPayload,
                  throughput: int | None = None, quiet: int | None = None) -> list[str]:
    """kcliff's load generator flat out, for a keyed payload: the perf tool has no option for keys and
    would send its records without them. It sends `records` as perf_argv's tool does, `payload`'s
    records with their keys, the producer's settings from `producer_file`, and prints what that tool
    prints (docs/loadgen.md, "Flat out"), so perf_run reads it and stops it alike. `quiet` as perf_argv
    takes it, left out where the release's own tool could not (both sides of an upgrade check alike)."""
    quiet = steady_state_after(records) if quiet is None else quiet
    args = ["--bootstrap-servers", cluster.tool_bootstrap, "--topic", topic, "--num-records", str(records),
            "--payload-file", str(payload.records_file), "--producer-config", str(producer_file),
            "--reporting-interval-ms", str(REPORTING_INTERVAL_MS)]
    if quiet and cluster.release.producer_warmup:
        args += ["--warmup-records", str(quiet)]
    if throughput:
        args += ["--throughput", str(throughput)]
    return cluster.tool_command(loadgen.MAIN_CLASS, args, (producer_file, payload.records_file),
                                jars=loadgen.ensure())


def tool_argv(cluster: Cluster, topic: str, records: int, producer: dict[str, object], log_path: Path,
              throughput: int | None = None, quiet: int | None = None,
              record_size: int = settings.RECORD_SIZE, payload: PreparedPayload | None = None,
              client: Client = Client.JAVA) -> list[str]:
    """The argv of one flat-out producer: the perf tool's (perf_argv), or for a payload with keys the
    load generator's (flat_out_argv), or for a librdkafka client the librdkafka load generator's, its
    settings written beside `log_path`."""
    if client is Client.LIBRDKAFKA:
        quiet = steady_state_after(records) if quiet is None else quiet
        settings_file = rdkafka_argv.write_settings(log_path.with_suffix(".librdkafka.conf"), producer)
        return rdkafka_argv.flat_out_argv(cluster, topic, records, settings_file, record_size,
                                          payload.records_file if payload else None, quiet, throughput,
                                          REPORTING_INTERVAL_MS)
    if payload is not None and payload.keyed:
        producer_file = write_properties(log_path.with_suffix(".producer.properties"), producer)
        return flat_out_argv(cluster, topic, records, producer_file, payload, throughput, quiet)
    return perf_argv(cluster, topic, records, producer, throughput, quiet, record_size, payload)


def shares(total: int, producers: int) -> list[int]:
    """`total` split between `producers` as evenly as whole numbers go (the first ones take the rest)."""
    return [total // producers + (1 if i < total % producers else 0) for i in range(producers)]


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
             quiet: int | None = None, producers: int = 1, record_size: int = settings.RECORD_SIZE,
             payload: PreparedPayload | None = None, client: Client = Client.JAVA) -> Run:
    """Run the perf tool once, or `producers` of them at once, each sending its share of `records`
    (and of `throughput`, and of `quiet`). Stops them at `deadline` (monotonic), when `stop_rule` fires
    on an interim line of any of them, or when `watch` (asked about once a second, lines or not: a
    producer whose brokers all died prints nothing) returns a reason. A stopped run keeps the figures
    of its interim lines and is marked incomplete. No interim line for `stall_s` seconds stops it as
    stalled. Several producers' figures are combined (combined()), each one's kept in Run.producers.
    Records are random letters of `record_size`, or `payload`'s (record_size is then its mean); a
    payload with keys is sent by the load generator (tool_argv), a librdkafka `client`'s by its own."""
    began = time.monotonic()
    if payload is not None:
        record_size = max(1, round(payload.mean_bytes))
        payload = payload.staged(log_path.parent)
    quiet = steady_state_after(records) if quiet is None else quiet
    counts, quiets = shares(records, producers), shares(quiet, producers)
    limits = shares(throughput, producers) if throughput else [None] * producers
    interim: list[list[PerfLine]] = [[] for _ in range(producers)]
    reason: str | None = None
    kind: StopKind | None = None
    last_progress = began
    with contextlib.ExitStack() as stack:
        sampler = stack.enter_context(Sampler(cluster))
        logs = [log_path if producers == 1 else log_path.with_name(f"{log_path.stem}-p{i + 1}{log_path.suffix}")
                for i in range(producers)]
        tools = [stack.enter_context(procs.FollowedTool(
            tool_argv(cluster, topic, counts[i], producer, logs[i], limits[i], quiets[i], record_size, payload, client),
            logs[i])) for i in range(producers)]
        running = list(range(producers))
        # Several producers start one JVM each, seconds apart on a busy host: the stop rule's clock waits
        # for a line from every one, or the first one's rate alone reads as a cliff (seen: 4 producers).
        all_reporting = producers == 1
        while running and kind is None:
            wait = max(0.05, min(1.0, deadline - time.monotonic())) / len(running)
            for i in list(running):
                line = tools[i].next_line(timeout=wait)
                if line is None:
                    running.remove(i)
                    continue
                parsed = parse_line(line) if line else None
                if parsed is not None and parsed.is_summary:
                    parsed = None
                elapsed = time.monotonic() - began
                if parsed is not None:
                    last_progress = time.monotonic()
                    interim[i].append(parsed)
                    if on_line:
                        on_line(parsed, elapsed)
                all_reporting = all_reporting or all(interim[j] or j not in running for j in range(producers))
                if stop_rule is not None and all_reporting and (parsed is not None or not line):
                    reason = stop_rule(parsed, elapsed)
                    if reason:
                        kind = StopKind.CLIFF
                        break
            if kind is not None:
                break
            seen_fault = watch() if watch is not None else None
            if seen_fault is not None:
                kind, reason = seen_fault
            elif time.monotonic() >= deadline:
                kind, reason = StopKind.BUDGET, BUDGET_SPENT
            elif time.monotonic() - last_progress >= stall_s:
                kind, reason = StopKind.FAULT, f"{STALLED} no record acknowledged for {stall_s:.0f}s"
    elapsed = round(time.monotonic() - began, 3)
    runs = [_tool_run(tool.seen, lines, elapsed, tool.proc.returncode, kind, reason, record_size,
                      procs.last_error(tool.errors))
            for tool, lines in zip(tools, interim)]
    run = runs[0] if producers == 1 else combined(runs, elapsed)
    run.bound = sampler.bound()
    return run


def _tool_run(seen: list[str], interim: list[PerfLine], elapsed: float, code: int | None, kind: StopKind | None,
              reason: str | None, record_size: int, last_error: str | None = None) -> Run:
    """One perf tool's run: its summary's figures, or its interim lines' where it did not finish (a tool
    that ended without a summary says its `last_error`)."""
    final = summary(seen)
    if final is not None and kind is None:
        return Run(records=final.records, records_per_sec=final.records_per_sec, mb_per_sec=final.mb_per_sec,
                   avg_ms=final.avg_ms, max_ms=final.max_ms, p50_ms=final.p50_ms, p95_ms=final.p95_ms,
                   p99_ms=final.p99_ms, p999_ms=final.p999_ms, elapsed_s=elapsed, exit_code=code,
                   interim_mb_per_sec=[p.mb_per_sec for p in interim], compression_ratio=compression_ratio(seen))
    if kind is None or reason is None:
        kind, reason = StopKind.FAILED, procs.with_error(f"perf tool exited {code} without a summary", last_error)
    return _from_interim(interim, elapsed, kind, reason, code, record_size)


def combined(runs: list[Run], elapsed: float) -> Run:
    """Several producers that ran at once as one run: records and rates summed (what the topic took,
    the figure a check judges), the mean latency weighted by records, and each percentile the worst
    producer's: without the producers' histograms that is the bound a merged percentile cannot exceed."""
    def total(field: str) -> float | None:
        values = [getattr(r, field) for r in runs]
        return None if any(v is None for v in values) else sum(values)

    def worst(field: str) -> float | None:
        values = [getattr(r, field) for r in runs]
        return None if any(v is None for v in values) else max(values)

    records = sum(r.records for r in runs)
    weighted = [r.avg_ms * r.records for r in runs if r.avg_ms is not None]
    ended = next((r for r in runs if not r.complete), None)  # the group's stop: the same for every one of them
    ticks = min(len(r.interim_mb_per_sec) for r in runs)
    return Run(records=records, records_per_sec=total("records_per_sec"), mb_per_sec=total("mb_per_sec"),
               avg_ms=sum(weighted) / records if records and len(weighted) == len(runs) else None,
               max_ms=worst("max_ms"), p50_ms=worst("p50_ms"), p95_ms=worst("p95_ms"), p99_ms=worst("p99_ms"),
               p999_ms=worst("p999_ms"), elapsed_s=elapsed, complete=ended is None,
               stopped_early=ended is not None and ended.stopped_early,
               stop_reason=ended.stop_reason if ended else None, stop_kind=ended.stop_kind if ended else None,
               exit_code=max((r.exit_code or 0 for r in runs), default=0) if all(
                   r.exit_code is not None for r in runs) else None,
               interim_mb_per_sec=[sum(r.interim_mb_per_sec[t] for r in runs) for t in range(ticks)],
               producers=runs, compression_ratio=_overall_ratio(runs))


def _overall_ratio(runs: list[Run]) -> float | None:
    """Several producers' compression as one ratio: their compressed share of the bytes, weighted by
    records (they send the same payload); None unless every one of them reported it."""
    ratios = [r.compression_ratio for r in runs]
    if not runs or any(r is None for r in ratios) or not sum(r.records for r in runs):
        return None
    compressed = sum(run.records / ratio for run, ratio in zip(runs, ratios) if ratio)
    return round(sum(r.records for r in runs) / compressed, 3) if compressed else None


def _from_interim(interim: list[PerfLine], elapsed: float, kind: StopKind, reason: str, code: int | None,
                  record_size: int = settings.RECORD_SIZE) -> Run:
    """Figures of a run that did not finish, from what its interim lines reported."""
    sent = sum(p.records for p in interim)
    seconds = sum(p.records / p.records_per_sec for p in interim if p.records_per_sec > 0)
    rps = sent / seconds if seconds else None
    mbps = rps * record_size / 2 ** 20 if rps is not None else None
    avg = sum(p.avg_ms * p.records for p in interim) / sent if sent else None
    worst = max((p.max_ms for p in interim), default=None)
    # "stopped early" is kcliff stopping it before its end; the budget's deadline is recorded apart
    return Run(records=sent, records_per_sec=rps, mb_per_sec=mbps, avg_ms=avg, max_ms=worst, elapsed_s=elapsed,
               complete=False, stopped_early=kind not in (StopKind.BUDGET, StopKind.FAILED), stop_reason=reason,
               stop_kind=kind, exit_code=code, interim_mb_per_sec=[p.mb_per_sec for p in interim])


def unreported_records(quiet: int, producer: dict[str, object], record_size: int = settings.RECORD_SIZE,
                       producers: int = 1) -> int:
    """The most acknowledged records the perf tools can be keeping quiet about: once one has sent its
    share of the `quiet` warm-up records it reports only steady-state ones, and it says nothing while
    the warm-up records still queued drain (at most all of them, and no more than its buffer holds)."""
    buffer = int(str(producer.get("buffer.memory", DEFAULT_BUFFER_MEMORY)))
    return sum(min(share, buffer // record_size) for share in shares(quiet, producers))


def cliff_stop_rule(reference_mb_per_sec: float, threshold: float, unreported: int,
                    min_span_s: float = 4.0, quiet_ticks: bool = True,
                    record_size: int = settings.RECORD_SIZE) -> StopRule:
    """Stop once even the most the brokers can have acknowledged since the first interim line (all
    records reported, plus `unreported`) is below threshold x the reference's rate over at least
    `min_span_s`, and no interim line so far reached that rate. Asked on quiet ticks too: on a cliff
    the tool goes silent while its warm-up records drain. The fastest line counts because a slow
    start is not a cliff (docs/measurements.md, "Early stop"). `quiet_ticks=False`, for a tool that
    keeps no records quiet: a quiet tick says nothing then, and with a 5 s reporting interval (before
    Kafka 4.2) the records since the last line would be counted as never acknowledged. Several
    producers' lines all count: their records add up, and each line's rate is a part of the whole,
    so the fastest line only holds a stop back less often than it could."""
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
        most = (reported + unreported) * record_size / 2 ** 20 / (elapsed - first)
        if most >= limit:
            return None
        return (f"cliff: at most {most:.2f} MB/s acknowledged over {elapsed - first:.1f}s < "
                f"{threshold:.2f} x reference {reference_mb_per_sec:.2f} MB/s")

    return rule

"""The results document (docs/results-schema.md) as typed models, with one reader that validates and
one writer, and the rules every reader shares: which entries count, the metrics (the canary verdict
built on them is judge/canary.py).

A status or a stop reason is an enum here; nothing outside this module compares their strings.
"""

from __future__ import annotations

import json
import os
import statistics
import tempfile
from pathlib import Path
from typing import Any, Literal, Sequence

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from kcliff.errors import InputError
from kcliff.results.bottleneck import Bound, prevailing
from kcliff.results.documents import RESULTS
from kcliff.results.field_types import MetricName, ReadWorkload
from kcliff.results.metrics import (LOST, METRICS, READ_SIDE, READ_SUMMARY_KEYS, READ_WORKLOADS, SUMMARY_KEYS, Metric,
                                    Workload)
from kcliff.results.statuses import RunStatus as RunStatus  # their home; imported from here everywhere
from kcliff.results.statuses import Status as Status
from kcliff.results.statuses import StopKind as StopKind

REFERENCE_ID = "reference"


class _Model(BaseModel):
    # fields this kcliff does not know (written by a newer one, same schema version) are kept as they are
    model_config = ConfigDict(extra="allow", validate_assignment=True)


class Figures:
    """A run's value of a metric, read from its field of that name (Run here, baseline.StoredRun)."""

    def value(self, metric: Metric) -> float | None:
        found = getattr(self, metric.key)
        return None if found is None else float(found)


class ToolRun(_Model, Figures):
    """What every tool run records beside its figures: how long, how it ended, where in its round."""

    records: int
    elapsed_s: float = 0.0
    complete: bool = True
    stopped_early: bool = False
    stop_reason: str | None = None
    stop_kind: StopKind | None = None
    exit_code: int | None = None
    position: int | None = None  # where in its interleaved round it ran, 0 first
    bound: Bound | None = None  # which resource bound it and what it used of each (results/bottleneck.py)


class Run(ToolRun):
    """One perf-tool run; a stopped one (complete false) has interim figures and no percentiles."""

    records_per_sec: float | None = None
    mb_per_sec: float | None = None
    avg_ms: float | None = None
    max_ms: float | None = None
    p50_ms: float | None = None
    p95_ms: float | None = None
    p99_ms: float | None = None
    p999_ms: float | None = None
    interim_mb_per_sec: list[float] = []
    # a run of several producers at once: each one's own figures; the run's are their sum (measure/producer.py)
    producers: list[Run] = []
    # uncompressed / compressed bytes of the producer's batches (1 / its compression-rate-avg); None: not reported
    compression_ratio: float | None = None

    @model_validator(mode="before")
    @classmethod
    def _older_stop_kind(cls, data: Any) -> Any:
        """Files written before stop_kind existed said it only in stop_reason's words."""
        if isinstance(data, dict) and data.get("stop_kind") is None and data.get("stop_reason"):
            reason = str(data["stop_reason"])
            kind = (StopKind.BUDGET if reason == "time budget exhausted"
                    else StopKind.DISK_FULL if reason.startswith("fault:") and "disk full:" in reason
                    else StopKind.FAULT if reason.startswith("fault:")
                    else StopKind.CLIFF if data.get("stopped_early") else StopKind.FAILED)
            data = {**data, "stop_kind": kind}
        return data


class ReadRun(ToolRun):
    """One run after the producer's on its topic: a consumer reading the topic from the start
    (consumed_*), the end-to-end latency tool producing and polling one record at a time (e2e_*), or
    the load generator at a fixed rate (rate_*). A consumer stopped at its time cap keeps the rate it
    had and is marked stopped_early."""

    workload: ReadWorkload
    consumed_mb_per_sec: float | None = None
    consumed_records_per_sec: float | None = None
    fetch_mb_per_sec: float | None = None  # over the consumer's fetching time alone
    rebalance_ms: int | None = None
    e2e_avg_ms: float | None = None
    e2e_p50_ms: float | None = None
    e2e_p99_ms: float | None = None
    e2e_p999_ms: float | None = None
    # at a fixed rate (workload rate): the load generator's figures, latency from each record's due time
    rate_target_per_s: float | None = None
    rate_achieved_per_s: float | None = None
    rate_held: bool | None = None
    rate_unsent: int | None = None
    rate_unacked: int | None = None
    rate_unconsumed: int | None = None
    rate_errors: int | None = None
    rate_p50_ms: float | None = None
    rate_p99_ms: float | None = None
    rate_p999_ms: float | None = None
    rate_max_ms: float | None = None
    rate_e2e_p50_ms: float | None = None
    rate_e2e_p99_ms: float | None = None
    rate_e2e_p999_ms: float | None = None
    rate_histogram_us: str | None = None  # HdrHistogram encodings (base64), so runs merge exactly
    rate_e2e_histogram_us: str | None = None
    compression_ratio: float | None = None  # at a fixed rate: the load generator's producer's, as Run's
    # through a fault (workload failover, docs/failover.md): seconds of the outage as the clients saw it,
    # records lost (acknowledged, gone from the log), failed and duplicated, and how the fault went
    fo_fault: str | None = None
    fo_victim: int | None = None  # the broker the fault was done to
    fo_fault_at_s: float | None = None  # on the run's time line: seconds after its first due record
    fo_bound_s: float | None = None  # how long each step of the fault was waited for
    fo_target_per_s: float | None = None
    fo_unavailable_s: float | None = None
    fo_stall_s: float | None = None
    fo_catch_up_s: float | None = None
    fo_recovery_s: float | None = None
    fo_p999_ms: float | None = None
    fo_censored: list[str] = []  # the fo_ keys still unfinished at the run's end: longer than they say
    fo_failed: int | None = None  # records whose delivery failed
    fo_lost: int | None = None  # acknowledged under acks=all, and not in the log read back: exact
    fo_lost_seqs: list[int] = []
    fo_log_duplicates: int | None = None
    fo_read_twice: int | None = None
    fo_verified: bool | None = None  # the log was read back to its end (False: fo_lost is unknown)


class Stat(_Model):
    median: float
    min: float
    max: float


class CliffSpec(_Model):
    """What a canary proves (scenario.Cliff as recorded)."""

    stands_for: str
    metric: MetricName = "throughput"
    max_ratio: float = 0.5
    min_client_rtt_ms: float = 0.0
    max_ratio_where_bytes_bind: float | None = None  # max_ratio is already the one this run's rig applied


def counted(group: Sequence[ToolRun]) -> list[ToolRun]:
    """The runs a summary counts: the finished ones, or the stopped ones while none finished."""
    return [r for r in group if not r.stopped_early] or list(group)


def summarise(runs: list[Run], read_runs: list[ReadRun] | None = None) -> dict[str, Stat] | None:
    """Median and min-max of every figure over the runs. A run stopped early on a cliff has only its
    first seconds' figures: they count only when no run finished (a decided cliff's estimate)."""
    out: dict[str, Stat] = {}
    groups: list[tuple[tuple[str, ...], list[ToolRun]]] = [(SUMMARY_KEYS, list(runs))]
    groups += [(READ_SUMMARY_KEYS, [r for r in read_runs or [] if r.workload == w]) for w in READ_WORKLOADS]
    for keys, group in groups:
        chosen = counted(group)
        for key in keys:
            values = [float(v) for r in chosen if (v := getattr(r, key)) is not None]
            if values:
                out[key] = Stat(median=round(statistics.median(values), 3), min=min(values), max=max(values))
    return out or None


class Entry(_Model):
    """One scenario of a run: what was applied, every perf run, the summary and the status."""

    id: str
    description: str = ""
    source: str | None = None
    settings_hash: str | None = None
    applied: dict[str, Any] = {}
    cliff: CliffSpec | None = None
    workloads: list[str] | None = None  # produce, consume, end-to-end; None: the producer only
    kafka_version: str | None = None  # the brokers' version where not the run's (an upgrade check's head)
    status: Status = Status.OK
    status_reason: str | None = None
    interleaved_with: list[str] | None = None
    order_seed: int | None = None
    restart_forced: bool = False
    started: str | None = None
    ended: str | None = None
    wall_s: float | None = None
    measured_s: float | None = None
    overhead_s: float | None = None
    warmup: Run | None = None
    warmup_stopped: Run | None = None
    runs: list[Run] = []
    read_runs: list[ReadRun] = []  # the consumer's and end-to-end runs, after the producer's
    read_warmups: list[ReadRun] = []  # a pair's round-1 read-side runs where bytes bind (ReadRound.pair_round)
    summary: dict[str, Stat] | None = None
    faulted_attempt: Entry | None = None

    @model_validator(mode="after")
    def _summary_from_runs(self) -> Entry:
        """A summary left out (a hand-built or older file) is the one its runs give."""
        found = summarise(self.runs, self.read_runs) if self.summary is None else None
        if found is not None:  # assigning validates again; assigning None again would never end
            self.summary = found
        return self

    @property
    def counts(self) -> bool:
        return self.status.counts

    @property
    def is_canary(self) -> bool:
        return self.cliff is not None

    def attempts(self) -> list[Run]:
        """Every perf run in the order they ran: a stopped first warm-up, the warm-up, the runs."""
        return [r for r in (self.warmup_stopped, self.warmup, *self.runs) if r is not None]

    def metrics(self) -> list[Metric]:
        """The metrics this entry's workloads measure and statistics judge (the producer's alone in a version 1
        file); the exact count of lost records is judged by its own rule."""
        done = self.workloads or [Workload.PRODUCE]
        return [m for m in METRICS.values() if m.workload in done and not m.exact]

    def runs_of(self, metric: Metric) -> list[ToolRun]:
        """The measured runs of the tool that reports `metric`."""
        if metric.workload is Workload.PRODUCE:
            return list(self.runs)
        return [r for r in self.read_runs if r.workload == metric.workload]

    def fell_behind(self, metric: Metric) -> bool:
        """A latency at rate of runs that did not all hold their rate. Counted from due times the
        producer never met, such a figure grows with the run's length (the backlog does), so it is no
        latency *at that rate*: the table marks it, the export and the history's series leave it out."""
        return metric.workload is Workload.RATE and any(r.workload is Workload.RATE and r.rate_held is False
                                                        for r in self.read_runs)

    def bound(self) -> Bound | None:
        """What bound its finished producer runs (results/bottleneck.py `prevailing`); None: none recorded."""
        return prevailing([r.bound for r in self.runs if r.bound is not None and r.complete])

    def rate_targets(self) -> tuple[float, ...]:
        """The rates (records/s) its runs at a fixed rate aimed at, each once; () when none did."""
        found = {round(t, 1) for r in self.read_runs if r.workload is Workload.RATE if (t := r.rate_target_per_s)}
        return tuple(sorted(found))

    def lost_records(self) -> int | None:
        """Acknowledged records its runs through a fault lost, all told (None: none read its log back)."""
        return self.total(LOST)

    def total(self, metric: Metric) -> int | None:
        """An exact count (metrics.LOST, FAILED) over its runs through a fault (None: none counted it)."""
        counted = [int(v) for r in self.read_runs if r.workload is Workload.FAILOVER
                   and (v := r.value(metric)) is not None]
        return sum(counted) if counted else None

    def values(self, metric: Metric) -> list[float | None]:
        """One metric's per-run values, for the statistics."""
        return [r.value(metric) for r in self.runs_of(metric)]

    def median(self, metric: Metric) -> float | None:
        """The summary's median, only for an entry whose runs count."""
        stat = (self.summary or {}).get(metric.key)
        return stat.median if stat is not None and self.counts else None

    def resummarise(self) -> None:
        self.summary = summarise(self.runs, self.read_runs)


class ConfirmedConfig(_Model):
    """A predicted configuration measured by `kcliff run --confirm` (entry `id`), with what the model said."""

    id: str
    kind: Literal["best", "p99-bounded"]
    levels: dict[str, str]  # factor ("scope name") -> level label
    predicted_mb_per_sec: float
    predicted_p99_ms: float | None = None


class Confirmation(_Model):
    """What `--confirm` measured after the suite, interleaved round by round: the reference, the fastest
    design row again and each prediction (docs/pairwise.md)."""

    reference_id: str
    fastest_id: str  # the entry re-measuring the fastest design row
    fastest_row: str  # that design row's own id
    p99_bound_ms: float | None = None
    predictions: list[ConfirmedConfig] = []


class ResultsDoc(_Model):
    """One run of kcliff: its environment, parameters and every scenario measured so far."""

    schema_: str = Field(RESULTS.name, alias="schema")  # "schema" itself is a pydantic BaseModel attribute
    schema_version: int = RESULTS.version
    run_id: str
    status: RunStatus = RunStatus.RUNNING
    environment: dict[str, Any]
    parameters: dict[str, Any] = {}
    scenarios: list[Entry] = []
    prime: dict[str, Any] | None = None  # the unmeasured load before the first measurement
    resumes: list[dict[str, Any]] | None = None  # each `kcliff run --resume` leg's start and environment
    confirmation: Confirmation | None = None  # `kcliff run --confirm`

    model_config = ConfigDict(extra="allow", validate_assignment=True, populate_by_name=True)

    def entry(self, scenario_id: str) -> Entry | None:
        return next((e for e in self.scenarios if e.id == scenario_id), None)

    def reference(self) -> Entry | None:
        return self.entry(REFERENCE_ID)

    def canaries(self) -> list[Entry]:
        return [e for e in self.scenarios if e.is_canary]

    def has_read_side(self) -> bool:
        """Some scenario measured the read side (a consumer, end-to-end): tables show its columns only then."""
        return self.measured(*READ_SIDE)

    def measured(self, *workloads: Workload) -> bool:
        """Some scenario has a run of one of these workloads after its producer's."""
        return any(r.workload in workloads for e in self.scenarios for r in e.read_runs)

    def to_json(self) -> dict[str, Any]:
        return self.model_dump(mode="json", by_alias=True)


def read_json(path: Path, what: str) -> dict[str, Any]:
    """A JSON object from `path`; unreadable, truncated or non-object files raise InputError."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise InputError(f"{what} not found", str(path)) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"cannot read {what}: {exc}", str(path)) from None
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(f"not valid JSON (truncated?): {exc.msg}", str(path), exc.lineno) from None
    if not isinstance(doc, dict):
        raise InputError(f"not a {what}: expected a JSON object", str(path))
    return doc


def load(path: Path | str) -> ResultsDoc:
    """Read a results file; truncated, foreign, newer-schema or malformed files raise InputError
    naming the file and the first bad field."""
    path = Path(path)
    raw = read_json(path, "results file")
    RESULTS.check(raw, path)
    try:
        return ResultsDoc.model_validate(raw)
    except ValidationError as exc:
        raise InputError(f"not a valid results file: {first_error(exc)}", str(path)) from None


def first_error(exc: ValidationError) -> str:
    """The first bad field and what is wrong with it, e.g. 'scenarios[3].status: Input should be ...'."""
    error = exc.errors()[0]
    where = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in error["loc"]).lstrip(".")
    more = f" (and {exc.error_count() - 1} more)" if exc.error_count() > 1 else ""
    return f"{where or 'document'}: {error['msg']}{more}"


def save(doc: ResultsDoc, path: Path) -> None:
    """Write `doc` atomically: a reader never sees a half-written file."""
    write_json(doc.to_json(), path)


def write_json(data: dict[str, Any], path: Path) -> None:
    """Write a JSON document atomically (temp file, fsync, rename): results and baseline files."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            json.dump(data, out, indent=1)
            out.write("\n")
            out.flush()
            os.fsync(out.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise

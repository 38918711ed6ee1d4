"""Baselines: per-scenario run distributions from past runs, one file per Kafka version and runner class.

    baselines/<kafka_version>/<runner_class>.json
    {"schema": "kcliff.baseline", "schema_version": 1, "kafka_version": "4.2.0",
     "runner_class": "local-2c-24g", "window": 30, "updated": "...",
     "sources": [{"run_id", "kcliff_revision", "hostname", "host_id", "started"}, ...],
     "scenarios": {"reference": {"settings_hash", "description", "cliff",
                                 "runs": [{"run_id", "mb_per_sec", "p99_ms", "complete"}, ...],
                                 "workloads": [...], "read_runs": [{"run_id", "workload",
                                 "consumed_mb_per_sec", "e2e_p99_ms", "rate_target_per_s",
                                 "rate_achieved_per_s", "rate_held", "rate_p50_ms", "rate_p99_ms",
                                 "rate_e2e_p50_ms", "rate_e2e_p99_ms", "complete"}, ...]}}}

Version 2 added the read side (workloads, read_runs: scenarios that measured a consumer); version 1
files read as they are. Runs at a fixed rate (workload rate) keep their rate beside their latency: a
baseline measured at another rate is no baseline for latency at this one (rate_comparable), and a run
that fell behind its rate keeps no latency at rate.

Hardware differs between runner classes, so a file only ever holds one class: results from another
class are refused unless --runner-class relabels them on purpose. A runner class carries the rig
profile it was measured at (`local-2c-24g@aws-m5.xlarge-gp3`, results/rig.py): results of another
profile are refused, saying so, and no --runner-class relabels a profile. A scenario whose settings hash
changed starts a new history (asv does the same with benchmark definition hashes). The newest
`window` runs per scenario are kept, so slow drift of a runner class ages out.
"""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from kcliff import resources
from kcliff.errors import InputError
from kcliff.results import model
from kcliff.results.documents import BASELINE
from kcliff.results.field_types import ReadWorkload
from kcliff.results.metrics import METRICS, Metric, Workload
from kcliff.results.model import Entry, ReadRun, ResultsDoc, Run, Status
from kcliff.results.rig import RunnerClass

DEFAULT_DIR = "baselines"
DEFAULT_WINDOW = 30


class _Model(BaseModel):
    # fields a newer kcliff wrote (same schema version) are kept as they are
    model_config = ConfigDict(extra="allow", validate_assignment=True, populate_by_name=True)


class StoredRun(_Model, model.Figures):
    """One measured run kept in a baseline: its run and the figures the verdicts judge."""

    run_id: str
    mb_per_sec: float | None = None
    p99_ms: float | None = None
    complete: bool = True


class StoredReadRun(_Model, model.Figures):
    """One read-side run kept in a baseline: a consumer's MB/s, an end-to-end p99, or latency at a
    fixed rate with the rate it aimed at, reached and held."""

    run_id: str
    workload: ReadWorkload
    consumed_mb_per_sec: float | None = None
    e2e_p99_ms: float | None = None
    rate_target_per_s: float | None = None
    rate_achieved_per_s: float | None = None
    rate_held: bool | None = None
    rate_p50_ms: float | None = None
    rate_p99_ms: float | None = None
    rate_e2e_p50_ms: float | None = None
    rate_e2e_p99_ms: float | None = None
    fo_unavailable_s: float | None = None
    fo_stall_s: float | None = None
    fo_catch_up_s: float | None = None
    fo_recovery_s: float | None = None
    fo_p999_ms: float | None = None
    fo_lost: int | None = None
    fo_failed: int | None = None
    complete: bool = True


# What a stored read run keeps of a ReadRun: every read-side metric's figure, and the rate a latency at
# rate was measured at (a figure means nothing without it).
KEPT_READ_FIGURES = tuple(m.key for m in METRICS.values() if m.workload is not Workload.PRODUCE) + (
    "rate_target_per_s", "rate_achieved_per_s", "rate_held")


def _kept(run: model.ReadRun | StoredReadRun) -> dict[str, Any]:
    return {key: getattr(run, key) for key in KEPT_READ_FIGURES}


class StoredScenario(_Model):
    """A scenario's runs from past results, the newest `window` of them, for one settings hash."""

    settings_hash: str | None = None
    description: str = ""
    cliff: model.CliffSpec | None = None
    runs: list[StoredRun] = []
    workloads: list[str] | None = None  # None: the producer's alone
    read_runs: list[StoredReadRun] = []

    def values(self, metric: Metric) -> list[float | None]:
        return self.as_entry("").values(metric)

    def as_entry(self, scenario_id: str) -> Entry:
        """The stored runs as a results entry, so a canary kept here is judged by canary.canary_verdict
        and its values are read the way a measured entry's are."""
        runs = [Run(records=0, mb_per_sec=r.mb_per_sec, p99_ms=r.p99_ms, complete=r.complete,
                    stopped_early=not r.complete) for r in self.runs]
        reads = [ReadRun(workload=r.workload, records=0, complete=r.complete, stopped_early=not r.complete, **_kept(r))
                 for r in self.read_runs]
        return Entry(id=scenario_id, description=self.description, settings_hash=self.settings_hash,
                     cliff=self.cliff, status=Status.OK, runs=runs, read_runs=reads, workloads=self.workloads,
                     summary=model.summarise(runs, reads))


class Source(_Model):
    """A results file the baseline holds runs of; host_id names the machine that measured it
    (measure/environment.py host_id; None in baselines written before kcliff recorded it)."""

    run_id: str
    kcliff_revision: str | None = None
    hostname: str | None = None
    host_id: str | None = None
    started: str | None = None


class Baseline(_Model):
    """A baseline file: one Kafka version and runner class, the runs of its past results."""

    schema_: str = Field(BASELINE.name, alias="schema")  # "schema" itself is a pydantic BaseModel attribute
    schema_version: int = BASELINE.version
    kafka_version: str
    runner_class: str
    window: int = DEFAULT_WINDOW
    updated: str | None = None
    sources: list[Source] = []
    scenarios: dict[str, StoredScenario] = {}

    def to_json(self) -> dict[str, Any]:
        return self.model_dump(mode="json", by_alias=True)

    def canaries(self) -> list[Entry]:
        return [s.as_entry(sid) for sid, s in self.scenarios.items() if s.cliff is not None]

    def reference(self) -> Entry | None:
        stored = self.scenarios.get(model.REFERENCE_ID)
        return stored.as_entry(model.REFERENCE_ID) if stored is not None else None


def load_results(path: str | Path) -> ResultsDoc:
    """A results file (docs/results-schema.md) that names its Kafka version and runner class;
    truncated, foreign, newer-schema or malformed files are refused by model.load."""
    doc = model.load(path)
    for key in ("kafka_version", "runner_class"):
        if not isinstance(doc.environment.get(key), str) or not doc.environment[key]:
            raise InputError(f"results file lacks environment.{key}", str(path))
    return doc


def baseline_path(directory: str | Path, kafka_version: str, runner_class: str) -> Path:
    for part in (kafka_version, runner_class):
        if not part or "/" in part or part.startswith("."):
            raise InputError(f"{part!r} cannot name a baseline file (no '/', no leading '.')")
    return Path(directory) / kafka_version / f"{runner_class}.json"


def default_dir() -> Path:
    """baselines/ found the way scenarios/ is: the working directory's, else kcliff's own."""
    return resources.project_dir(DEFAULT_DIR)


def stored_for(directory: str | Path, kafka_version: str, runner_class: str) -> tuple[Path, Baseline | None]:
    """The baseline file for this Kafka version and runner class, and its contents (None: none stored yet)."""
    path = baseline_path(directory, kafka_version, runner_class)
    return path, (load_baseline(path) if path.exists() else None)


def load_baseline(path: str | Path) -> Baseline:
    """The one reader of a baseline file: truncated, foreign, newer-schema or malformed files raise InputError."""
    path = Path(path)
    raw = model.read_json(path, "baseline file")
    BASELINE.check(raw, path)
    try:
        return Baseline.model_validate(raw)
    except ValidationError as exc:
        raise InputError(f"not a valid baseline file (truncated?): {model.first_error(exc)}", str(path)) from None


def new_baseline(kafka_version: str, runner_class: str, window: int = DEFAULT_WINDOW) -> Baseline:
    return Baseline(kafka_version=kafka_version, runner_class=runner_class, window=window)


class Refused(Exception):
    """A baseline update that must not happen: `code` is the exit code (1 finding, 2 bad input)."""

    def __init__(self, message: str, code: int) -> None:
        super().__init__(message)
        self.code = code


def check_compatible(results: ResultsDoc, baseline: Baseline, runner_class: str | None,
                     upgrade: bool = False) -> str:
    """The runner class the results count as; Refused (2) when the rig profile, the class or the Kafka
    version differ (the version may differ when `upgrade`: the comparison is then of one Kafka release with
    another). The profile is refused first, and --runner-class cannot relabel it (results/rig.py)."""
    env = results.environment
    claimed = runner_class or env["runner_class"]
    measured, held = RunnerClass.parse(env["runner_class"]), RunnerClass.parse(baseline.runner_class)
    if RunnerClass.parse(claimed).profile != measured.profile:
        raise Refused(f"--runner-class {claimed} names rig profile '{RunnerClass.parse(claimed).profile}' but the "
                      f"results were measured at '{measured.profile}': --runner-class may say two hosts are the "
                      "same hardware, never that two profiles are one", 2)
    if held.profile != measured.profile:
        raise Refused(f"results were measured at rig profile '{measured.profile}' (runner class "
                      f"'{env['runner_class']}') but the baseline holds profile '{held.profile}' (runner class "
                      f"'{baseline.runner_class}'); a baseline belongs to one profile: the resource that binds "
                      "differs between profiles, so their figures are never compared", 2)
    if baseline.runner_class != claimed:
        raise Refused(f"results come from runner class '{env['runner_class']}' but the baseline holds "
                      f"'{baseline.runner_class}'; runner classes are never mixed silently "
                      f"(pass --runner-class {baseline.runner_class} if they really are the same hardware)", 2)
    if baseline.kafka_version != env["kafka_version"] and not upgrade:
        raise Refused(f"results are for Kafka {env['kafka_version']} but the baseline is for "
                      f"{baseline.kafka_version} (compare --upgrade compares two releases on purpose)", 2)
    return claimed


def require_complete(results: ResultsDoc) -> None:
    if results.status is not model.RunStatus.COMPLETE:
        raise Refused(f"the run's status is '{results.status}': only complete runs update a baseline", 2)


def update(baseline: Baseline, results: ResultsDoc, window: int | None = None) -> tuple[Baseline, list[str]]:
    """A new baseline with the results' runs added (pure: `baseline` is not changed). Refused (2) for
    a run that is not complete; the caller checks compatibility and the canaries first
    (judge/baseline_verdict.py `admit`)."""
    require_complete(results)
    run_id = results.run_id
    new = baseline.model_copy(deep=True)
    notes: list[str] = []
    if run_id and any(s.run_id == run_id for s in new.sources):
        return new, [f"run {run_id} is already in this baseline; nothing changed"]
    window = window or new.window or DEFAULT_WINDOW
    new.window = window
    for entry in results.scenarios:
        sid = entry.id
        if not entry.counts or not entry.runs:
            notes.append(f"{sid}: status '{entry.status}', not added")
            continue
        stored = new.scenarios.get(sid)
        if stored and stored.settings_hash != entry.settings_hash:
            notes.append(f"{sid}: settings changed (hash {stored.settings_hash} -> "
                         f"{entry.settings_hash}); its history starts again")
            stored = None
        stored = stored or StoredScenario(settings_hash=entry.settings_hash)
        stored.description = entry.description
        stored.cliff = entry.cliff
        stored.runs = (stored.runs + [StoredRun(run_id=run_id, mb_per_sec=r.mb_per_sec, p99_ms=r.p99_ms,
                                                complete=r.complete) for r in entry.runs])[-window:]
        stored.workloads = entry.workloads or stored.workloads
        now, then = entry.rate_targets(), stored.as_entry(sid).rate_targets()
        if now and then and now != then:  # like a settings change: what was stored is of another rate
            notes.append(f"{sid}: measured at {_rates(now)} where the baseline's runs were at {_rates(then)}; "
                         "its latency at rate starts again")
            stored.read_runs = [r for r in stored.read_runs if r.workload != Workload.RATE]
        # a run that fell behind its rate is kept out: stored, it would leave every later comparison of
        # latency at rate without a baseline until it aged out of the window
        behind = [r for r in entry.read_runs if r.workload == Workload.RATE and r.rate_held is False]
        if behind:
            notes.append(f"{sid}: {len(behind)} run(s) did not hold their rate; their latency at rate is not kept")
        stored.read_runs = _newest(stored.read_runs + [
            StoredReadRun(run_id=run_id, workload=r.workload, complete=r.complete, **_kept(r))
            for r in entry.read_runs if all(r is not b for b in behind)], window)
        new.scenarios[sid] = stored
    env = results.environment
    new.sources = (new.sources + [Source(run_id=run_id, kcliff_revision=env.get("kcliff_revision"),
                                         hostname=env.get("hostname"), host_id=env.get("host_id"),
                                         started=env.get("started"))])[-window:]
    new.updated = datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    return new, notes


def _newest(runs: list[StoredReadRun], window: int) -> list[StoredReadRun]:
    """The newest `window` read runs of each workload, in the order they were stored."""
    kept = {id(r) for w in {r.workload for r in runs} for r in [r for r in runs if r.workload == w][-window:]}
    return [r for r in runs if id(r) in kept]


def skip_reason(entry: Entry, stored: StoredScenario | None) -> str | None:
    """Why a results scenario (not a canary) is not compared with its stored runs; None when it is."""
    if stored is None:
        return "not in the baseline yet"
    if stored.settings_hash != entry.settings_hash:
        return (f"settings changed since the baseline (hash {stored.settings_hash} -> "
                f"{entry.settings_hash})")
    if not entry.counts:
        return f"status '{entry.status}' in this run"
    return None


def _rates(targets: tuple[float, ...]) -> str:
    return " and ".join(f"{t:g}" for t in targets) + " records/s"


def rate_comparable(entry: Entry, stored: StoredScenario) -> str | None:
    """Why the entry's latency at rate is not compared with the stored runs' (None: it is, or there is
    none to compare). Latency at a rate depends on the rate: a baseline measured at another one says
    nothing of this one, and stored runs that could not hold their rate hold no latency at it."""
    then = stored.as_entry(entry.id)
    if not entry.rate_targets() or not then.rate_targets():
        return None
    if entry.rate_targets() != then.rate_targets():
        return (f"latency at rate was measured at {_rates(entry.rate_targets())}, the baseline's at "
                f"{_rates(then.rate_targets())}: not comparable")
    if any(then.fell_behind(m) for m in METRICS.values()):
        return f"the baseline's runs did not hold their rate of {_rates(then.rate_targets())}"
    return None


def save(doc: Baseline, path: str | Path) -> None:
    """Write atomically (temp file + rename): a reader never sees half a baseline."""
    model.write_json(doc.to_json(), Path(path))

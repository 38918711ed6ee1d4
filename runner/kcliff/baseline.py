"""Baselines: per-scenario run distributions from past runs, one file per Kafka version and runner class.

    baselines/<kafka_version>/<runner_class>.json
    {"schema": "kcliff.baseline", "schema_version": 1, "kafka_version": "4.2.0",
     "runner_class": "local-2c-24g", "window": 30, "updated": "...",
     "sources": [{"run_id", "kcliff_revision", "hostname", "started"}, ...],
     "scenarios": {"reference": {"settings_hash", "description", "cliff",
                                 "runs": [{"run_id", "mb_per_sec", "p99_ms", "complete"}, ...]}}}

Hardware differs between runner classes, so a file only ever holds one class: results from another
class are refused unless --runner-class relabels them on purpose. A scenario whose settings hash
changed starts a new history (asv does the same with benchmark definition hashes). The newest
`window` runs per scenario are kept, so slow drift of a runner class ages out.
"""

from __future__ import annotations

import json
import os
import tempfile
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from . import results as results_file
from . import scenario, verdict
from .errors import InputError

SCHEMA = "kcliff.baseline"
SCHEMA_VERSION = 1
DEFAULT_DIR = "baselines"
DEFAULT_WINDOW = 30
REFERENCE_ID = "reference"
USABLE_STATUS = ("ok", "cliff")  # scenario statuses whose runs are measurements


def _check_schema(doc: dict[str, Any], path: Path, schema: str, version: int) -> None:
    if doc.get("schema") != schema:
        raise InputError(f"not a {schema} file (its \"schema\" is {doc.get('schema')!r})", str(path))
    found = doc.get("schema_version")
    if not isinstance(found, int) or found < 1:
        raise InputError(f"schema_version {found!r} is not a version number", str(path))
    if found > version:
        raise InputError(f"{schema} schema version {found} is newer than this kcliff reads ({version}); "
                         "upgrade kcliff (the file was left as it is)", str(path))


def load_results(path: str | Path) -> dict[str, Any]:
    """A results file (docs/results-schema.md) that names its Kafka version and runner class;
    truncated, foreign or newer-schema files are refused by results.load."""
    doc = results_file.load(path)
    env = doc["environment"]
    for key in ("kafka_version", "runner_class"):
        if not isinstance(env.get(key), str) or not env[key]:
            raise InputError(f"results file lacks environment.{key}", str(path))
    return doc


def runs_of(entry: dict[str, Any], metric: str) -> list[float | None]:
    """One metric's per-run values from a results scenario or a baseline scenario."""
    field = verdict.RESULT_FIELD[metric]
    return [r.get(field) for r in entry.get("runs") or [] if isinstance(r, dict)]


def scenario_map(doc: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Scenarios by id: a results document's list, or a baseline's mapping."""
    if doc.get("schema") == SCHEMA:
        return dict(doc.get("scenarios") or {})
    return {s["id"]: s for s in doc.get("scenarios", []) if isinstance(s, dict) and "id" in s}


def canary_checks(doc: dict[str, Any]) -> list[verdict.CanaryCheck]:
    """Each canary (a scenario with a cliff block) against the reference measured beside it."""
    found = scenario_map(doc)
    reference = found.get(REFERENCE_ID)
    checks = []
    for sid, entry in found.items():
        cliff = entry.get("cliff")
        if not cliff:
            continue
        metric = cliff.get("metric", "throughput")
        checks.append(verdict.check_canary(sid, metric, float(cliff.get("max_ratio", 0.5)), runs_of(entry, metric),
                                           runs_of(reference, metric) if reference else []))
    return checks


def canary_ratios(path: str | Path) -> dict[str, float]:
    """Measured canary ratios (throughput: canary/reference) from a results or a baseline file, for
    the evidence column of the cliff rules."""
    path = Path(path)
    doc = results_file.read_json(path, "results or baseline file")
    if doc.get("schema") == SCHEMA:
        _check_schema(doc, path, SCHEMA, SCHEMA_VERSION)
    else:
        doc = load_results(path)
    return {c.id: c.ratio for c in canary_checks(doc) if c.ratio is not None}


def baseline_path(directory: str | Path, kafka_version: str, runner_class: str) -> Path:
    for part in (kafka_version, runner_class):
        if not part or "/" in part or part.startswith("."):
            raise InputError(f"{part!r} cannot name a baseline file (no '/', no leading '.')")
    return Path(directory) / kafka_version / f"{runner_class}.json"


def default_dir() -> Path:
    """baselines/ found the way scenarios/ is: the working directory's, else the repo's."""
    return scenario.project_dir(DEFAULT_DIR)


def stored_for(directory: str | Path, kafka_version: str, runner_class: str) -> tuple[Path, dict[str, Any] | None]:
    """The baseline file for this Kafka version and runner class, and its contents (None: none stored yet)."""
    path = baseline_path(directory, kafka_version, runner_class)
    return path, (load_baseline(path) if path.exists() else None)


def load_baseline(path: str | Path) -> dict[str, Any]:
    path = Path(path)
    doc = results_file.read_json(path, "baseline file")
    _check_schema(doc, path, SCHEMA, SCHEMA_VERSION)
    if not isinstance(doc.get("scenarios"), dict) or not isinstance(doc.get("runner_class"), str):
        raise InputError("baseline file lacks 'scenarios' or 'runner_class' (truncated?)", str(path))
    return doc


def new_baseline(kafka_version: str, runner_class: str, window: int = DEFAULT_WINDOW) -> dict[str, Any]:
    return {"schema": SCHEMA, "schema_version": SCHEMA_VERSION, "kafka_version": kafka_version,
            "runner_class": runner_class, "window": window, "updated": None, "sources": [], "scenarios": {}}


class Refused(Exception):
    """A baseline update that must not happen: `code` is the exit code (1 finding, 2 bad input)."""

    def __init__(self, message: str, code: int) -> None:
        super().__init__(message)
        self.code = code


def check_compatible(results: dict[str, Any], baseline: dict[str, Any], runner_class: str | None) -> str:
    """The runner class the results count as; Refused (2) when class or Kafka version differ."""
    env = results["environment"]
    claimed = runner_class or env["runner_class"]
    if baseline["runner_class"] != claimed:
        raise Refused(f"results come from runner class '{env['runner_class']}' but the baseline holds "
                      f"'{baseline['runner_class']}'; runner classes are never mixed silently "
                      f"(pass --runner-class {baseline['runner_class']} if they really are the same hardware)", 2)
    if baseline.get("kafka_version") != env["kafka_version"]:
        raise Refused(f"results are for Kafka {env['kafka_version']} but the baseline is for "
                      f"{baseline.get('kafka_version')}", 2)
    return claimed


def update(baseline: dict[str, Any], results: dict[str, Any], window: int | None = None) -> tuple[dict[str, Any], list[str]]:
    """A new baseline with the results' runs added (pure: `baseline` is not changed). Refused (1) for
    a failed canary, (2) for a run that is not complete; the caller checks compatibility first."""
    status = results.get("status")
    if status != "complete":
        raise Refused(f"the run's status is {status!r}: only complete runs update a baseline", 2)
    failed = [c for c in canary_checks(results) if not c.shows_cliff]
    if failed:
        raise Refused("failed canary: " + "; ".join(f"{c.id} ({c.reason})" for c in failed)
                      + " - a run that cannot see known cliffs must not become the baseline", 1)
    run_id = str(results.get("run_id") or "")
    new = json.loads(json.dumps(baseline))  # deep copy of plain JSON data
    notes: list[str] = []
    if run_id and any(s.get("run_id") == run_id for s in new["sources"]):
        return new, [f"run {run_id} is already in this baseline; nothing changed"]
    window = window or int(new.get("window") or DEFAULT_WINDOW)
    new["window"] = window
    for sid, entry in scenario_map(results).items():
        if entry.get("status") not in USABLE_STATUS or not entry.get("runs"):
            notes.append(f"{sid}: status {entry.get('status')!r}, not added")
            continue
        stored = new["scenarios"].get(sid)
        if stored and stored.get("settings_hash") != entry.get("settings_hash"):
            notes.append(f"{sid}: settings changed (hash {stored.get('settings_hash')} -> "
                         f"{entry.get('settings_hash')}); its history starts again")
            stored = None
        stored = stored or {"settings_hash": entry.get("settings_hash"), "runs": []}
        stored["description"] = entry.get("description", "")
        stored["cliff"] = entry.get("cliff")
        stored["runs"] = (stored["runs"] + [{"run_id": run_id, "mb_per_sec": r.get("mb_per_sec"),
                                              "p99_ms": r.get("p99_ms"), "complete": bool(r.get("complete", True))}
                                             for r in entry["runs"] if isinstance(r, dict)])[-window:]
        new["scenarios"][sid] = stored
    env = results["environment"]
    new["sources"] = (new["sources"] + [{"run_id": run_id, "kcliff_revision": env.get("kcliff_revision"),
                                         "hostname": env.get("hostname"), "started": env.get("started")}])[-window:]
    new["updated"] = datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    return new, notes


def skip_reason(entry: dict[str, Any], stored: dict[str, Any] | None) -> str | None:
    """Why a results scenario (not a canary) is not compared with its stored runs; None when it is."""
    if stored is None:
        return "not in the baseline yet"
    if stored.get("settings_hash") != entry.get("settings_hash"):
        return (f"settings changed since the baseline (hash {stored.get('settings_hash')} -> "
                f"{entry.get('settings_hash')})")
    if entry.get("status") not in USABLE_STATUS:
        return f"status {entry.get('status')!r} in this run"
    return None


def compare(results: dict[str, Any], base: dict[str, Any], **decide_args: Any) -> verdict.Verdict:
    """Pure: the verdict for a results document against a baseline document (`kcliff compare`)."""
    canaries = canary_checks(results)
    ceiling = verdict.tier_ceiling(canaries)
    stored = base["scenarios"]
    compared: list[verdict.ScenarioVerdict] = []
    notes: list[str] = []
    if not canaries:
        notes.append("no canaries in this run: the rig's sensitivity was not self-tested")
    for sid, entry in scenario_map(results).items():
        if entry.get("cliff"):
            continue  # canaries are the self-test, not a subject of the comparison
        why = skip_reason(entry, stored.get(sid))
        if why:
            notes.append(f"{sid}: {why}; not compared")
            continue
        metrics = verdict.METRICS
        compared.append(verdict.compare_scenario(
            sid, {m: runs_of(stored[sid], m) for m in metrics},
            {m: runs_of(entry, m) for m in metrics}, ceiling, **decide_args))
    if results.get("status") != "complete":
        notes.append(f"the run's status is {results.get('status')!r}: only what it measured was compared")
    return verdict.judge(compared, canaries, notes=notes, settings=dict(decide_args))


def save(doc: dict[str, Any], path: str | Path) -> None:
    """Write atomically (temp file + rename): a reader never sees half a baseline."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            json.dump(doc, out, indent=1)
            out.write("\n")
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise

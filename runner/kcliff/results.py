"""The results document (docs/results-schema.md): written atomically after every scenario, read
back with a check that refuses truncated files and newer schema versions."""

from __future__ import annotations

import json
import os
import statistics
import tempfile
from pathlib import Path
from typing import Any

from .errors import InputError

SCHEMA = "kcliff.results"
SCHEMA_VERSION = 1
METRICS = ("mb_per_sec", "records_per_sec", "avg_ms", "max_ms", "p50_ms", "p95_ms", "p99_ms", "p999_ms")


def save(doc: dict[str, Any], path: Path) -> None:
    """Write `doc` to `path` atomically: a reader never sees a half-written file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "w") as out:
            json.dump(doc, out, indent=1, sort_keys=False)
            out.write("\n")
            out.flush()
            os.fsync(out.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


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


def load(path: Path | str) -> dict[str, Any]:
    """Read a results file; truncated, foreign or newer-schema files raise InputError."""
    path = Path(path)
    doc = read_json(path, "results file")
    if doc.get("schema") != SCHEMA:
        raise InputError(f"not a kcliff results file (expected \"schema\": \"{SCHEMA}\")", str(path))
    version = doc.get("schema_version")
    if not isinstance(version, int) or version > SCHEMA_VERSION:
        raise InputError(f"results schema version {version!r} is newer than this kcliff understands "
                         f"({SCHEMA_VERSION}); upgrade kcliff", str(path))
    if not isinstance(doc.get("scenarios"), list) or not isinstance(doc.get("environment"), dict):
        raise InputError("results file lacks 'scenarios' or 'environment'", str(path))
    return doc


def summarise(runs: list[dict[str, Any]]) -> dict[str, dict[str, float]] | None:
    """Median and min-max of every metric over the measured runs (None values skipped). A run stopped
    early on a cliff has only its first seconds' figures, lower than it would have finished at: they
    count only when every run was stopped (a decided cliff), never beside runs that finished."""
    finished = [r for r in runs if not r.get("stopped_early")]
    runs = finished or runs
    if not runs:
        return None
    out: dict[str, dict[str, float]] = {}
    for metric in METRICS:
        values = [r[metric] for r in runs if r.get(metric) is not None]
        if values:
            out[metric] = {"median": round(statistics.median(values), 3), "min": min(values), "max": max(values)}
    return out


def median(entry: dict[str, Any], metric: str) -> float | None:
    summary = entry.get("summary") or {}
    return (summary.get(metric) or {}).get("median")


def scenario_entry(doc: dict[str, Any], scenario_id: str) -> dict[str, Any] | None:
    return next((s for s in doc["scenarios"] if s["id"] == scenario_id), None)

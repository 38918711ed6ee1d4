"""The results document (docs/results-schema.md): written atomically after every scenario, read
back with a check that refuses truncated files and newer schema versions."""

from __future__ import annotations

# What the write side (suite.py, `kcliff run --resume`, `kcliff check`) still needs while it builds the
# document as a dict; the rules are model.py's. Readers use model.load and model.ResultsDoc.
from pathlib import Path
from typing import Any

from . import model
from .model import SCHEMA, SCHEMA_VERSION

__all__ = ["SCHEMA", "SCHEMA_VERSION", "load", "median", "save", "scenario_entry", "summarise"]


def save(doc: dict[str, Any], path: Path) -> None:
    """Write `doc` to `path` atomically: a reader never sees a half-written file."""
    model.write_json(doc, path)


def load(path: Path | str) -> dict[str, Any]:
    """A results file read and checked by model.load, as the dict the write side continues."""
    return model.load(path).to_json()


def summarise(runs: list[dict[str, Any]]) -> dict[str, dict[str, float]] | None:
    """model.summarise over runs given as dicts."""
    found = model.summarise([model.Run.model_construct(**r) for r in runs])  # partial runs too: no validation
    return None if found is None else {key: stat.model_dump() for key, stat in found.items()}


def median(entry: dict[str, Any], metric: str) -> float | None:
    summary = entry.get("summary") or {}
    return (summary.get(metric) or {}).get("median")


def scenario_entry(doc: dict[str, Any], scenario_id: str) -> dict[str, Any] | None:
    return next((s for s in doc["scenarios"] if s["id"] == scenario_id), None)

"""Append-only history of suite results: one results file per run, filed under its runner class.

Layout: HISTORY_DIR/<runner_class>/<started>_<revision>_kafka-<version>_<run_id>.json, each file the
results document exactly as `kcliff run` wrote it. A runner class carries the rig profile its runs were
measured at (`local-2c-24g@aws-m5.xlarge-gp3`, results/rig.py), so each profile's runs are a series of
their own. One file per run (as asv does with one file per
machine and commit) means histories from several machines or branches merge by copying files, git
never has to merge inside a file, and the report can link each run's raw results as they are.
Nothing here rewrites or deletes a file that is already in the history.
"""

from __future__ import annotations

import os
import re
import tempfile
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from kcliff.errors import InputError
from kcliff.results import model
from kcliff.results.model import ResultsDoc, RunStatus
from kcliff.results.rig import profile_of

DEFAULT_DIR = Path("history")
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


@dataclass(frozen=True)
class RunKey:
    """What a history entry is keyed by."""

    started: datetime
    revision: str
    kafka_version: str
    runner_class: str
    run_id: str

    def filename(self) -> str:
        stamp = self.started.strftime("%Y%m%dT%H%M%SZ")
        parts = (stamp, self.revision[:12], f"kafka-{self.kafka_version}", self.run_id)
        return "_".join(_UNSAFE.sub("-", p) for p in parts) + ".json"

    @property
    def profile(self) -> str:
        """The rig profile the run was measured at: its runner class's (results/rig.py)."""
        return profile_of(self.runner_class)


@dataclass(frozen=True)
class HistoryRun:
    key: RunKey
    path: Path
    doc: ResultsDoc

    @property
    def status(self) -> RunStatus:
        return self.doc.status


def at_profile(runs: list[HistoryRun], profile: str) -> list[HistoryRun]:
    """The runs measured at one rig profile, in their order."""
    return [r for r in runs if r.key.profile == profile]


def read_results(path: str | Path) -> ResultsDoc:
    """Read one results file: model.load refuses truncated, foreign, newer-schema and malformed
    files; the fields the history keys on are checked here."""
    doc = model.load(path)
    check_results(doc, str(path))
    return doc


def check_results(doc: ResultsDoc, where: str) -> None:
    """The parts of docs/results-schema.md that history, export and report rely on beyond its types."""
    env = doc.environment
    for field in ("kafka_version", "runner_class", "started"):
        if not isinstance(env.get(field), str) or not env[field]:
            raise InputError(f"environment.{field} must be a non-empty string", where)
    _parse_time(env["started"], where)
    if not doc.run_id:
        raise InputError("run_id must be a non-empty string", where)


def _parse_time(value: str, where: str) -> datetime:
    try:
        return datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        raise InputError(f"environment.started is not an ISO 8601 time: {value!r}", where) from None


def run_key(doc: ResultsDoc, where: str = "results") -> RunKey:
    env = doc.environment
    return RunKey(
        started=_parse_time(env["started"], where),
        revision=str(env.get("kcliff_revision") or "unknown"),
        kafka_version=env["kafka_version"],
        runner_class=env["runner_class"],
        run_id=doc.run_id,
    )


def add(results: str | Path, history_dir: str | Path = DEFAULT_DIR, allow_running: bool = False) -> tuple[Path, bool]:
    """File a results file in the history. Returns (its path in the history, whether it was new).

    Adding the same run again is a no-op; a different file for a run already there is refused,
    since history is append-only."""
    results = Path(results)
    doc = read_results(results)
    if doc.status is RunStatus.RUNNING and not allow_running:
        raise InputError("this run is still running (status \"running\"); add it when it has finished, "
                         "or pass --allow-running for a run that was killed", str(results))
    key = run_key(doc, str(results))
    payload = results.read_bytes()
    target_dir = Path(history_dir) / _UNSAFE.sub("-", key.runner_class)
    target = target_dir / key.filename()
    if target.exists():
        if target.read_bytes() == payload:
            return target, False
        raise InputError(f"run {key.run_id} is already in the history as {target} with different content; "
                         "history is append-only", str(results))
    target_dir.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".adding-", dir=target_dir)
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(payload)
        os.link(tmp, target)  # fails rather than replaces if a file of that name appeared meanwhile
    except FileExistsError:
        raise InputError(f"{target} appeared while adding; history is append-only", str(results)) from None
    finally:
        os.unlink(tmp)
    return target, True


def load(history_dir: str | Path = DEFAULT_DIR) -> list[HistoryRun]:
    """Every run in the history, oldest first. A bad file stops the load with its name."""
    root = Path(history_dir)
    if not root.is_dir():
        raise InputError("no history directory here (create one with `kcliff history add RESULTS --dir DIR`)", str(root))
    runs = []
    for path in sorted(root.glob("*/*.json")):
        doc = read_results(path)
        runs.append(HistoryRun(run_key(doc, str(path)), path, doc))
    runs.sort(key=lambda r: (r.key.started, r.key.run_id))
    return runs

"""Spring Kafka's listener container, as Spring Boot configures it (spring.kafka.listener.*): how the service
consumes, read into kcliff's `consuming` entries (configrepo/consumption.py).

    ack-mode      when the container commits: BATCH (the default) after each poll's records, RECORD after
                  each record, both with commitSync (Spring's syncCommits default); MANUAL after the poll,
                  MANUAL_IMMEDIATE when the listener acknowledges (taken as each record); TIME, COUNT and
                  COUNT_TIME at most once a poll, so measured as after each poll, the most they commit
    concurrency   the container's consumers, each a member of the group
    type          SINGLE or BATCH: a batch listener's RECORD ack mode commits after the batch

With enable.auto.commit=true the container commits nothing itself; unset, Spring Kafka (2.3 and later) sets
it false, so a Spring consumer commits after each poll unless it says otherwise.
"""

from __future__ import annotations

from typing import Any

from kcliff.configrepo.consumption import SCOPE
from kcliff.configrepo.model import Note, RawEntry
from kcliff.errors import InputError
from kcliff.scenario.consuming import Commit

ACK_MODES = {"record": Commit.RECORD_SYNC, "batch": Commit.POLL_SYNC, "time": Commit.POLL_SYNC,
             "count": Commit.POLL_SYNC, "counttime": Commit.POLL_SYNC, "manual": Commit.POLL_SYNC,
             "manualimmediate": Commit.RECORD_SYNC}
SPELLED = "RECORD, BATCH, TIME, COUNT, COUNT_TIME, MANUAL, MANUAL_IMMEDIATE"
READ = ("ack-mode", "concurrency", "type")


def _lenient(value: Any) -> str:
    """An enum name as Spring's lenient conversion matches it: case, '-' and '_' ignored."""
    return str(value).replace("-", "").replace("_", "").lower()


def listener_property(prop: str, value: Any, key: str, line: int | None, path: str,
                      listener: dict[str, tuple[Any, int | None]], problems: list[InputError]) -> bool:
    """Keep one spring.kafka.listener property kcliff reads (False: not one, the caller notes it)."""
    if prop not in READ:
        return False
    if prop == "ack-mode" and _lenient(value) not in ACK_MODES:
        problems.append(InputError(f"'{key}': {value!r} is not an ack mode Spring Kafka has: expected one of "
                                   f"{SPELLED}; Spring refuses to start", path, line))
        return True
    if prop == "type" and _lenient(value) not in ("single", "batch"):
        problems.append(InputError(f"'{key}': {value!r} is not a listener type: expected SINGLE or BATCH", path, line))
        return True
    listener[prop] = (value, line)
    return True


def consuming_entries(path: str, listener: dict[str, tuple[Any, int | None]], auto_commit: Any,
                      consumes: bool) -> tuple[list[RawEntry], list[Note]]:
    """The service's `consuming` entries from its listener settings, where the file configures a consumer
    (`consumes`): its members, and how it commits unless enable.auto.commit is true (`auto_commit`: its raw
    value, None unset)."""
    if not consumes:
        return [], []
    entries: list[RawEntry] = []
    notes: list[Note] = []
    if "concurrency" in listener:
        count, at = listener["concurrency"]
        entries.append(RawEntry(SCOPE, "members", count, path, at))
    if str(auto_commit).strip().lower() == "true":  # the consumer commits; the container does not
        return entries, notes
    mode, line = listener.get("ack-mode", ("BATCH", None))
    commit = ACK_MODES[_lenient(mode)]
    if _lenient(listener.get("type", ("single",))[0]) == "batch" and commit is Commit.RECORD_SYNC:
        commit = Commit.POLL_SYNC
        notes.append(Note(path, line, f"ack mode {mode} on a batch listener commits after each batch: measured so"))
    elif _lenient(mode) in ("time", "count", "counttime", "manualimmediate"):
        measured = "after each record" if commit.per_record else "after each poll, the most it can commit"
        notes.append(Note(path, line, f"ack mode {mode} measured as a commitSync {measured}"))
    return [RawEntry(SCOPE, "commit", commit.value, path, line), *entries], notes

"""How a repo's consumer service consumes (scenario/consuming.py): when it commits, how long it works on a
record, how many members its group runs. Four places say it, the first that does wins, field by field:

    kcliff.yaml                  consumers:
                                   consumers/orders.properties: {commit: record-sync, processing: 2 ms, members: 6}
    a Spring Boot application    spring.kafka.listener.ack-mode, .concurrency, .type (spring_boot.py)
    a sink connector             its tasks.max: members; Connect's periodic commit (connect.py, sink_of)
    the consumer's own settings  enable.auto.commit=false with nothing said: the service commits itself,
                                 taken as after each poll (the commonest way), with a note

Each becomes an entry of scope `consuming` on its own line, so a change of it is annotated there and the
cliff rules read it (`consuming/commit`). A kcliff.yaml entry's `resource` names the consumer file it
describes."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from kcliff import yamlio
from kcliff.configrepo import connect
from kcliff.configrepo.model import Entry, EntryKind, Note, RawEntry
from kcliff.errors import InputError, Problems
from kcliff.scenario import consuming
from kcliff.scenario.consuming import Commit, Consuming

SCOPE = "consuming"


def fields(said: Consuming) -> dict[str, Any]:
    """Its entries' values by name, as a repo writes them (processing in microseconds)."""
    return {"commit": said.commit.value, "processing": said.processing_us, "members": said.members}


DEFAULTS = fields(Consuming())  # how a consumer that says nothing consumes
EXAMPLE = "'consumers/orders.properties: {commit: poll-sync, processing: 2 ms, members: 3}'"


def validate_entry(raw: RawEntry) -> Entry:
    """A `consuming` entry typed: commit as its value, processing in microseconds, members a count."""
    text = raw.raw.strip() if isinstance(raw.raw, str) else raw.raw
    try:
        parsed = consuming.parse({raw.name: int(text) if raw.name == "members" and str(text).isdigit() else text})
    except ValueError as exc:
        raise InputError(str(exc), raw.path, raw.line) from None
    return Entry(SCOPE, raw.name, fields(parsed)[raw.name], raw.path, raw.line, EntryKind.MEASURED, resource=raw.resource)


def read_manifest(block: Any, data: dict[str, Any], root: Path, where: str, found: Problems) -> list[RawEntry]:
    """kcliff.yaml's `consumers:`: each field an entry on its line, its resource the consumer file's path."""
    if block is None:
        return []
    if not isinstance(block, dict):
        found.add(InputError(f"'consumers' must map consumer files to how they consume, e.g. {EXAMPLE}", where,
                             yamlio.key_line(data, "consumers")))
        return []
    entries = []
    for key, fields in block.items():
        line = yamlio.key_line(block, key)
        if not isinstance(key, str) or Path(key).is_absolute() or ".." in Path(key).parts:
            found.add(InputError(f"consumers: {key!r} must be a path relative to {where} (inside the repo, no '..')",
                                 where, line))
            continue
        if not isinstance(fields, dict) or not fields:
            found.add(InputError(f"consumers: {key}: expected a mapping of {', '.join(consuming.KEYS)}, e.g. {EXAMPLE}",
                                 where, line))
            continue
        for name, value in fields.items():
            at = yamlio.key_line(fields, name) or line
            if name not in consuming.KEYS:
                found.add(InputError(f"consumers: {key}: unknown key {name!r}: expected one of "
                                     f"{', '.join(consuming.KEYS)}", where, at))
                continue
            try:  # checked here too, so every problem of kcliff.yaml is said in one run
                consuming.parse({name: value})
            except ValueError as exc:
                found.add(InputError(f"consumers: {key}: {exc}", where, at))
                continue
            entries.append(RawEntry(SCOPE, str(name), value, where, at, resource=str(root / key)))
    return entries


def unknown_consumers(entries: list[RawEntry], consumers: list[str]) -> list[InputError]:
    """A kcliff.yaml entry naming no consumer file the repo holds, once per file, with the files that would do."""
    shown = ", ".join(consumers) or "none found"
    named = {e.resource: e for e in reversed(entries) if e.resource not in consumers}
    return [InputError(f"{path} is not a consumer file of this repo: expected one of {shown}", e.path, e.line)
            for path, e in named.items()]


def of_consumer(entries: list[Entry], consumer_file: str | None) -> list[Entry]:
    """The `consuming` entries that describe `consumer_file`: kcliff.yaml's over the file's own (a Spring
    Boot listener's, a sink connector's), field by field; else, where the consumer turns auto-commit off and
    nothing says how it commits, a commit after each poll on the enable.auto.commit line (implied_notes says so)."""
    if consumer_file is None:
        return []
    said = _said(entries, consumer_file)
    auto = _auto_commit_off(entries, consumer_file)
    if "commit" not in said and auto is not None:
        said["commit"] = Entry(SCOPE, "commit", Commit.POLL_SYNC.value, auto.path, auto.line, EntryKind.MEASURED)
    return list(said.values())


def _said(entries: list[Entry], consumer_file: str) -> dict[str, Entry]:
    said = {e.name: e for e in _sink(entries, consumer_file)}
    said |= {e.name: e for e in entries if e.scope == SCOPE and e.path == consumer_file and e.resource is None}
    return said | {e.name: e for e in entries if e.scope == SCOPE and e.resource == consumer_file}


def _sink(entries: list[Entry], consumer_file: str) -> list[Entry]:
    """A sink connector's group: Connect's commit on the line that makes it a sink, tasks.max members on
    its line (at most MAX_MEMBERS, implied_notes says so); a connector's `resource`, never a file's."""
    sink = connect.sink_of(entries, consumer_file)
    if sink is None:
        return []
    said = [Entry(SCOPE, "commit", connect.CONNECT_COMMIT.value, sink.reads.path, sink.reads.line, EntryKind.MEASURED,
                  resource=sink.connector)]
    if sink.tasks is not None:
        said.append(Entry(SCOPE, "members", min(sink.tasks.value, consuming.MAX_MEMBERS), sink.tasks.path,
                          sink.tasks.line, EntryKind.MEASURED, resource=sink.connector))
    return said


def implied_notes(entries: list[Entry]) -> list[Note]:
    """A note on each enable.auto.commit=false line whose service says nothing of how it commits, and on
    each measured sink's tasks.max beyond the members kcliff runs."""
    files = dict.fromkeys(e.path for e in entries if e.scope == "consumer")
    notes = [Note(auto.path, auto.line, IMPLIED) for path in files if (auto := _auto_commit_off(entries, path))
             and "commit" not in _said(entries, path)]
    return notes + [Note(sink.tasks.path, sink.tasks.line, f"{sink.connector}: tasks.max {sink.tasks.value} measured as "
                                                           f"{consuming.MAX_MEMBERS} members of its group, kcliff's most")
                    for path in sorted(connect.sink_files(entries)) if (sink := connect.sink_of(entries, path))
                    and sink.tasks is not None and sink.tasks.value > consuming.MAX_MEMBERS]


def _auto_commit_off(entries: list[Entry], consumer_file: str) -> Entry | None:
    return next((e for e in entries if e.scope == "consumer" and e.path == consumer_file
                 and e.name == "enable.auto.commit" and e.value is False), None)


IMPLIED = ("enable.auto.commit=false and nothing says how the service commits: measured as a commitSync after each "
           "poll; say it in kcliff.yaml `consumers:` (commit: poll-sync, poll-async, record-sync or record-async)")


def model(entries: list[Entry]) -> Consuming | None:
    """The Consuming these entries say (None: none, so the consumer tool reads flat out as before)."""
    if not entries:
        return None
    values = {**DEFAULTS, **{e.name: e.value for e in entries}}
    return Consuming(Commit(values["commit"]), int(values["processing"]), int(values["members"]))

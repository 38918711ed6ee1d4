"""How a service consumes: when it commits, how long it works on each record, how many members its
group runs. The perf tool reads flat out, never commits on its own account and never processes; a service
does both, and its commits can cost more than its reads (docs/gate.md, "Consumers as services consume").

In a scenario (and in a config repo's kcliff.yaml `consumers:`):

    consuming: {commit: poll-sync, processing: 2 ms, members: 3}
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from kcliff import yamlio
from kcliff.errors import InputError

MAX_MEMBERS = 16  # as a scenario's producers: each member is a consumer client in the one load-generating JVM
_TIME = re.compile(r"^\s*(?P<value>\d+(?:\.\d+)?|\.\d+)\s*(?P<unit>us|µs|ms|s)?\s*$")
_UNIT_US = {"us": 1, "µs": 1, "ms": 1000, "s": 1_000_000, None: 1000}
KEYS = ("commit", "processing", "members")


class Commit(StrEnum):
    """When a member commits its offsets."""

    AUTO = "auto"  # the consumer's own auto-commit (enable.auto.commit, every auto.commit.interval.ms)
    POLL_SYNC = "poll-sync"  # commitSync() after each poll's records: Spring Kafka's ack-mode BATCH
    POLL_ASYNC = "poll-async"
    RECORD_SYNC = "record-sync"  # commitSync of each record's offset: Spring Kafka's ack-mode RECORD
    RECORD_ASYNC = "record-async"

    @property
    def per_record(self) -> bool:
        return self in (Commit.RECORD_SYNC, Commit.RECORD_ASYNC)


@dataclass(frozen=True)
class Consuming:
    commit: Commit = Commit.AUTO
    processing_us: int = 0  # the work on each record: a wait, as a service's call to a database is
    members: int = 1

    def loadgen_args(self) -> list[str]:
        """The load generator's flags for it (kafka/loadgen, Consume.java)."""
        return ["--commit", self.commit.value, "--members", str(self.members), "--process-us", str(self.processing_us)]

    def applied(self) -> dict[str, Any]:
        return {"commit": self.commit.value, "processing_us": self.processing_us, "members": self.members}


def parse(raw: Any) -> Consuming:
    """A `consuming:` mapping; ValueError naming every bad field and what is valid."""
    if not isinstance(raw, dict):
        raise ValueError(f"consuming must be a mapping of {', '.join(KEYS)}, got {raw!r}")
    problems = [f"unknown key {k!r} (expected {', '.join(KEYS)})" for k in raw if k not in KEYS]
    commit = Commit.AUTO
    try:
        commit = Commit(str(raw.get("commit", "auto")))
    except ValueError:
        problems.append(f"commit {raw.get('commit')!r}: expected one of {', '.join(c.value for c in Commit)}")
    members = raw.get("members", 1)
    if isinstance(members, bool) or not isinstance(members, int) or not 1 <= members <= MAX_MEMBERS:
        problems.append(f"members {members!r}: expected a whole number from 1 to {MAX_MEMBERS}")
        members = 1
    processing = 0
    try:
        processing = processing_us(raw.get("processing", 0))
    except ValueError as exc:
        problems.append(str(exc))
    if problems:
        raise ValueError("consuming: " + "; ".join(problems))
    return Consuming(commit, processing, members)


def of_scenario(raw: dict[str, Any], path: str) -> Consuming | None:
    """A scenario's `consuming:` (None when it has none); bad input on its line."""
    if "consuming" not in raw:
        return None
    try:
        return parse(raw["consuming"])
    except ValueError as exc:
        raise InputError(str(exc), path, yamlio.key_line(raw, "consuming")) from None


def processing_us(value: Any) -> int:
    """'2 ms', '250 us', '0.5 s' or a bare number of ms, in whole microseconds."""
    text = str(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else value
    found = _TIME.match(text) if isinstance(text, str) else None
    if found is None:
        raise ValueError(f"processing {value!r}: expected a time per record, e.g. '2 ms', '250 us' (a bare number is ms)")
    return round(float(found["value"]) * _UNIT_US[found["unit"]])

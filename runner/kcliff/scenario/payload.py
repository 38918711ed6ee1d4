"""What each record a scenario sends is made of (issue #29): the perf tool's random capital letters
(the studies' invariant, and kcliff's own suites'), kcliff's built-in JSON events, or a file of a
service's real messages. Compression is judged on these bytes, so a scenario that compresses must say
which (docs/measurements.md, "Payloads").

A scenario carries a Payload; `prepared()` turns it into the files the tools read (payload_files.py)."""

from __future__ import annotations

import enum
from dataclasses import dataclass


class PayloadKind(str, enum.Enum):
    RANDOM = "random"  # kafka-producer-perf-test's --record-size: fresh random letters for every record
    JSON_EVENTS = "json-events"  # kcliff's generator (json_events.py), seeded
    SAMPLES = "samples"  # a file of real messages (samples.py)


# The median of json-events records where a scenario sets no record_size: a typical service event
# (order, click, payment) is a few hundred bytes, not the studies' 1 KiB of letters.
JSON_EVENTS_MEDIAN = 700


@dataclass(frozen=True)
class Payload:
    kind: PayloadKind = PayloadKind.RANDOM
    path: str | None = None  # the samples file (SAMPLES only): resolved, as the scenario file named it

    def __post_init__(self) -> None:
        if (self.kind is PayloadKind.SAMPLES) != (self.path is not None):
            raise ValueError("a samples payload needs its file's path, and only a samples payload has one")

    @classmethod
    def random(cls) -> Payload:
        return cls(PayloadKind.RANDOM)

    @classmethod
    def json_events(cls) -> Payload:
        return cls(PayloadKind.JSON_EVENTS)

    @classmethod
    def samples(cls, path: str) -> Payload:
        return cls(PayloadKind.SAMPLES, path)

    @property
    def is_random(self) -> bool:
        return self.kind is PayloadKind.RANDOM

    def default_record_size(self, random_size: int) -> int:
        """The record_size a scenario of this payload has when it sets none: `random_size` (the
        studies' 1 KiB) for letters, JSON_EVENTS_MEDIAN for events. A samples file's records are as long
        as they are; its record_size is only the mean (Scenario.bytes_per_record)."""
        return JSON_EVENTS_MEDIAN if self.kind is PayloadKind.JSON_EVENTS else random_size

    def __str__(self) -> str:
        return f"samples {self.path}" if self.kind is PayloadKind.SAMPLES else self.kind.value

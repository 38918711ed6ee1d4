"""A librdkafka producer file as the producer `kcliff check` measures (docs/librdkafka.md, "Measuring"):
which file it is, and its settings as kcliff's librdkafka load generator takes them, librdkafka's names
and values as the file writes them. How the file reaches a cluster (its brokers, credentials,
certificates) is the measured cluster's instead, so a change of those is no measured change; its acks
(`request.required.acks`, or librdkafka's alias `acks`) are durability, laid over kcliff's acks=all
only where the file weakens them, as a Java producer's are."""

from __future__ import annotations

import dataclasses
from typing import Any, Sequence

from kcliff.configrepo.model import Entry, EntryKind, RepoFile
from kcliff.kafka.rdkafka_client import reaching

PRODUCER_ROLES = ("librdkafka-producer", "librdkafka")  # a kcat-like file serves both clients
ACKS = ("request.required.acks", "acks")  # librdkafka's name and its alias


def producer_files(files: Sequence[RepoFile]) -> list[str]:
    """The repo's librdkafka files that hold a producer's settings, producer-only ones first."""
    return [f.path for role in PRODUCER_ROLES for f in files if f.role == role]


def measured(entries: list[Entry]) -> list[Entry]:
    """The file's settings the generator is given, each where it is written, as a producer's measured
    settings (so a change of one is annotated on its line as a Java producer's is)."""
    return [dataclasses.replace(e, scope="producer", kind=EntryKind.DURABILITY if e.name in ACKS else EntryKind.MEASURED)
            for e in entries if e.scope in PRODUCER_ROLES and not reaching(e.name)]


def durability(entries: list[Entry]) -> dict[str, Any]:
    """The acks the file sets, as kcliff's producer invariant names them ({} when it sets none)."""
    acks = [e.value for e in entries if e.name in ACKS]
    if not acks:
        return {}
    value = acks[-1]  # librdkafka keeps the last
    return {"acks": "all" if str(value) in ("-1", "all") else str(value)}

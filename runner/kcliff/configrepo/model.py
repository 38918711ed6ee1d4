"""What every config-repo reader produces: settings with the file and line they came from.

A reader turns one file into RawEntry items (scope, name, raw value, path, line) and TopicDecl
items; validation (validate.py) types the values against kcliff's settings catalogue. Keeping the
reader's output this small is what lets new formats (Strimzi, Terraform) plug in: they only have
to say which scope each value belongs to and where it was written.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Callable

from kcliff.errors import InputError

# Kafka's own rule for topic names (Topic.validate): a name it would refuse is refused when read.
TOPIC_NAME = re.compile(r"[a-zA-Z0-9._-]{1,249}")


def require_topic_name(name: Any, path: str, line: int | None) -> str:
    """`name` if Kafka accepts it as a topic name; else an InputError on its file and line."""
    if not isinstance(name, str) or not TOPIC_NAME.fullmatch(name) or name in (".", ".."):
        raise InputError(f"topic name {name!r} is not one Kafka accepts: 1 to 249 of a-z A-Z 0-9 . _ - "
                         "(and not '.' or '..')", path, line)
    return name


@dataclass(frozen=True)
class RawEntry:
    scope: str
    name: str
    raw: Any  # str from .properties; any YAML scalar from YAML formats
    path: str
    line: int | None
    topic: str | None = None  # set for scope "topic"
    resource: str | None = None  # the resource holding it, in a file that holds several ("Kafka my-cluster")
    # How the file writes a Kafka key, where its format spells keys another way (a container's environment
    # variable): messages name both. None: the file writes Kafka's own key.
    spelled: Callable[[str], str] | None = None


@dataclass(frozen=True)
class TopicDecl:
    name: str
    path: str
    line: int | None
    # Why kcliff cannot measure this topic as written (a KafkaTopic leaving its partition count to the
    # broker): an error only when `check` measures this topic, so lint still reads the repo.
    problem: str | None = None


@dataclass(frozen=True)
class Resource:
    """One resource of a file holding several (Strimzi's Kafka, KafkaTopic): `line` is where its
    settings are written, so a setting the head removes is annotated there rather than at line 1."""

    name: str  # as RawEntry.resource names it
    line: int | None


@dataclass(frozen=True)
class VersionDecl:
    """The Kafka version a repo runs (Strimzi's spec.kafka.version, or a kafka-version file), where it
    was written, so a check of an upgrade can say which line changed it."""

    version: str
    path: str
    line: int | None

    def where(self) -> str:
        return f"{self.path}:{self.line}" if self.line else self.path


@dataclass(frozen=True)
class ReadResult:
    entries: list[RawEntry] = field(default_factory=list)
    topics: list[TopicDecl] = field(default_factory=list)
    notes: list["Note"] = field(default_factory=list)  # what the reader saw and did not read (managed keys)
    kafka_version: VersionDecl | None = None
    resources: list[Resource] = field(default_factory=list)


class EntryKind(StrEnum):
    """What kcliff does with a validated setting (configrepo/validate.py)."""

    MEASURED = "modelled"  # in kcliff's settings catalogue: applied and measured
    DURABILITY = "durability"  # acks, min.insync.replicas, replication factors: measured as written, flagged
    UNMEASURED = "unmeasured"  # a Kafka key kcliff does not measure: typed for the cliff rules only

    @property
    def measured(self) -> bool:
        return self is not EntryKind.UNMEASURED


@dataclass(frozen=True)
class Entry:
    """A validated setting: `value` is typed (int, bool, str, list) as Kafka parses it."""

    scope: str
    name: str
    value: Any
    path: str
    line: int | None
    kind: EntryKind
    topic: str | None = None
    resource: str | None = None

    def where(self) -> str:
        return f"{self.path}:{self.line}" if self.line else self.path


class NoteLevel(StrEnum):
    """How loud a Note is: a `note` is listed with --verbose; a `warning` is reported in every output of
    lint (a ::warning annotation, a SARIF warning result, an input-warning JSON finding; lint/findings.py)."""

    NOTE = "note"
    WARNING = "warning"


@dataclass(frozen=True)
class Note:
    """Something kcliff read but does not act on (a key it does not model, a file it skipped)."""

    path: str
    line: int | None
    message: str
    level: NoteLevel = NoteLevel.NOTE

    def __str__(self) -> str:
        where = f"{self.path}:{self.line}" if self.line else self.path
        return f"{where}: {self.message}"


@dataclass(frozen=True)
class RepoFile:
    path: str
    role: str  # broker | producer | consumer | topics | kafka-version | strimzi
    format: str  # properties | topics-yaml | kafka-version | strimzi
    resources: tuple[Resource, ...] = ()  # filled in once read (configrepo.load)

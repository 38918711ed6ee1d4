"""What a reader of a file holding several resources (Strimzi, CFK, Terraform) gathers as it goes.

One accumulator for every such reader, so "defined twice" and the collected problems read the same
whichever format the file is in; each reader keeps the rules of its own format.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from kcliff.configrepo.model import Note, RawEntry, ReadResult, Resource, TopicDecl, VersionDecl
from kcliff.configrepo.version_file import check as check_version
from kcliff.configrepo.version_file import one_version
from kcliff.errors import InputError, raise_all


@dataclass
class ResourceReading:
    """One file's settings, topics, notes, versions and resources so far, and its bad inputs: a
    resource that is bad stops there, the file's other resources are still read."""

    path: str
    entries: list[RawEntry] = field(default_factory=list)
    topics: list[TopicDecl] = field(default_factory=list)
    notes: list[Note] = field(default_factory=list)
    versions: list[VersionDecl] = field(default_factory=list)
    resources: list[Resource] = field(default_factory=list)
    problems: list[InputError] = field(default_factory=list)
    seen: dict[str, int | None] = field(default_factory=dict)  # "kind name" or "topic name" -> its line

    def note(self, line: int | None, message: str) -> None:
        self.notes.append(Note(self.path, line, message))

    def problem(self, message: str, line: int | None) -> None:
        self.problems.append(InputError(message, self.path, line))

    def version(self, release: str, line: int | None) -> None:
        """Record the Kafka release the file names at `line`; one that is no release is a problem there."""
        try:
            self.versions.append(check_version(release, self.path, line))
        except InputError as exc:
            self.problems.append(exc)

    def once(self, what: str, line: int | None) -> None:
        """Record `what` (a resource or a topic) at `line`; an InputError when the file defined it before."""
        if what in self.seen:
            raise InputError(f"{what} is defined twice in this file (first at line {self.seen[what]})", self.path, line)
        self.seen[what] = line

    def result(self) -> ReadResult:
        """What the file holds; every bad input found in it raised together."""
        raise_all(self.problems)
        return ReadResult(self.entries, self.topics, self.notes, one_version(self.versions), self.resources)


SNIFF_BYTES = 1024 * 1024


def sniffed(path: Path) -> str | None:
    """The first MiB of a file whose role its text says (librdkafka, Connect), for a regular expression to
    look at before anything is parsed; None where it cannot be read (discovery passes it by)."""
    try:
        with open(path, "rb") as handle:
            return handle.read(SNIFF_BYTES).decode("utf-8", errors="replace")
    except OSError:
        return None

"""The properties layout's Kafka version: a file named `kafka-version` holding one version, e.g. 4.2.0.

Comments (#) and blank lines are allowed around it, like .java-version or .nvmrc files. A change of
this file between base and head makes `kcliff check` measure each side on its own version.
"""

from __future__ import annotations

from pathlib import Path

from kcliff.configrepo.model import ReadResult, VersionDecl
from kcliff.errors import InputError
from kcliff.kafka import configs as kafka_configs
from kcliff.kafka import dist as kafka_dist

FILE_NAMES = ("kafka-version", "kafka-version.txt")


def check(version: str, path: str, line: int | None) -> VersionDecl:
    """A Kafka release number (major.minor.patch). Any release is read (its keys are checked with the
    nearest release kcliff knows); whether kcliff can also measure it is decided when measuring."""
    if not kafka_configs.is_release(version.strip()):
        raise InputError(f"Kafka version {version!r}: expected a release number such as {kafka_dist.DEFAULT_VERSION}",
                         path, line)
    return VersionDecl(version.strip(), path, line)


def newest_patch(major: str | int, minor: str | int) -> str:
    """The release kcliff reads for a file that names only a Kafka minor version (MSK's 3.9.x, the Kafka
    of a Confluent Platform release): that minor's newest patch release kcliff knows (patch releases can
    add keys: 3.9.2 has one 3.9.0 lacks), else M.m.0; readers say so in a note."""
    prefix = f"{int(major)}.{int(minor)}."
    known = [r for r in kafka_configs.catalogue().releases if r.startswith(prefix)]
    return known[-1] if known else f"{prefix}0"


def one_version(versions: list[VersionDecl]) -> VersionDecl | None:
    """The repo's Kafka version; files (or Kafka resources) that name different ones are bad input (one
    cluster, one version)."""
    for other in versions[1:]:
        if other.version != versions[0].version:
            raise InputError(f"Kafka version {other.version} here but {versions[0].version} at {versions[0].where()}: "
                             "kcliff measures one cluster version per side", other.path, other.line)
    return versions[0] if versions else None


class VersionFileReader:
    format = "kafka-version"
    roles = ("kafka-version",)

    def read(self, path: Path, role: str) -> ReadResult:
        try:
            lines = path.read_text().splitlines()
        except (OSError, UnicodeDecodeError) as exc:
            raise InputError(f"cannot read: {exc}", str(path)) from None
        found = [(n, text.strip()) for n, text in enumerate(lines, start=1)
                 if text.strip() and not text.strip().startswith("#")]
        if len(found) != 1:
            raise InputError(f"expected one Kafka version (e.g. {kafka_dist.DEFAULT_VERSION}) on a line of its own, "
                             f"found {len(found)} non-comment lines", str(path), found[1][0] if found[1:] else None)
        line, version = found[0]
        return ReadResult(kafka_version=check(version, str(path), line))

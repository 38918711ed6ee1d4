"""The Kafka release a config repo is read at (the version it names, else kcliff's default), and what that
release means for it: keys checked with the nearest release kcliff knows, and what kcliff cannot measure
(a release before KRaft, a ZooKeeper-mode broker)."""

from __future__ import annotations

from kcliff.configrepo.model import Entry, Note, NoteLevel, VersionDecl
from kcliff.configrepo.validate import Release
from kcliff.kafka import configs as kafka_configs
from kcliff.kafka import dist as kafka_dist
from kcliff.kafka import release as kafka_release


def read_at(version: VersionDecl | None) -> Release:
    """The release a repo is read at: the version it names, else kcliff's default."""
    catalogue = kafka_configs.catalogue()
    if version is None:
        return Release(kafka_dist.DEFAULT_VERSION, catalogue.release_for(kafka_dist.DEFAULT_VERSION),
                       "kcliff's default; the repo names no Kafka version")
    return Release(version.version, catalogue.release_for(version.version),
                   f"the repo names Kafka {version.version} at {version.where()}")


def release_notes(release: Release, version: VersionDecl | None) -> list[Note]:
    """Say so when the repo's release is not one the catalogue holds (older, newer, unreleased)."""
    if release.version == release.definitions:
        return []
    return [Note(version.path if version else "", version.line if version else None,
                 f"Kafka {release.version} is not among the releases kcliff knows ({kafka_configs.catalogue().releases[0]} "
                 f"to {kafka_configs.catalogue().newest}): its keys are checked with {release.definitions}'s "
                 "definitions", NoteLevel.WARNING)]


def measurement_notes(release: Release, version: VersionDecl | None, entries: list[Entry]) -> list[Note]:
    """What kcliff cannot measure of this repo: a release before KRaft, a ZooKeeper-mode broker."""
    path, line = (version.path, version.line) if version else ("", None)
    why = kafka_release.measurable(release.version)
    if why is not None:
        return [Note(path, line, f"{why}: kcliff lints this repo, `kcliff check` cannot measure it", NoteLevel.WARNING)]
    zookeeper = next((e for e in entries if e.scope == "broker" and e.name == "zookeeper.connect"), None)
    if zookeeper is None:
        return []
    return [Note(zookeeper.path, zookeeper.line, f"a ZooKeeper-mode broker on Kafka {release.version}: `kcliff check` "
                                                 f"measures its settings on a KRaft cluster of {release.version}, where "
                                                 "the ZooKeeper keys do nothing")]

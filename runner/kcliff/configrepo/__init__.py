"""Read what Kafka config repos hold and map it onto kcliff scenarios.

    repo = configrepo.load(["path/to/repo"])        # discover + read + validate (InputError: file:line)
    sc = configrepo.to_scenario(repo, "head")       # RepoScenario for the runner

Formats: .properties (broker, producer, consumer), a topics YAML and Strimzi resources (Kafka,
KafkaTopic, KafkaNodePool; strimzi.py); see discover.py for how files are found and READERS for
adding formats.
"""

from .discover import MANIFEST, READERS, ConfigRepo, checkout_root, discover, load, role_from_name
from .diff import SettingChange, kafka_version, setting_changes, version_change
from .model import Entry, Note, NoteLevel, RawEntry, ReadResult, RepoFile, TopicDecl
from .repo_scenario import RepoScenario, measured_entries, to_scenario

__all__ = [
    "MANIFEST", "READERS", "ConfigRepo", "Entry", "Note", "NoteLevel", "RawEntry", "ReadResult", "RepoFile",
    "RepoScenario", "SettingChange", "TopicDecl", "checkout_root", "discover", "load", "measured_entries",
    "role_from_name", "kafka_version", "setting_changes", "to_scenario", "version_change",
]

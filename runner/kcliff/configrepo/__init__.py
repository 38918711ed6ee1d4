"""Read what Kafka config repos hold and map it onto kcliff scenarios.

    repo = configrepo.load(["path/to/repo"])        # discover + read + validate (InputError: file:line)
    sc = configrepo.to_scenario(repo, "head")       # RepoScenario for the runner

Formats: .properties (broker, producer, consumer), a topics YAML, Strimzi resources (Kafka,
KafkaTopic, KafkaNodePool; strimzi.py), Confluent for Kubernetes resources (cfk.py), Terraform's
Kafka topics and MSK configurations (terraform.py) and Spring Boot application files
(spring_boot.py); see discover.py for how files are found and READERS for adding formats.
"""

from typing import TYPE_CHECKING

from kcliff.configrepo.diff import (SettingChange, changed_kinds, failover_fault, failover_moved, kafka_version,
                                   measured_workloads, production_changes, setting_changes, version_change)
from kcliff.configrepo.discover import MANIFEST, READERS, ConfigRepo, checkout_root, discover, load, role_from_name
from kcliff.configrepo.model import Entry, Note, NoteLevel, RawEntry, ReadResult, RepoFile, TopicDecl

if TYPE_CHECKING:  # imported on first use (__getattr__): kcliff.scenario pulls in pydantic, which lint never needs
    from kcliff.configrepo.repo_scenario import RepoScenario, measured_entries, to_scenario

__all__ = [
    "MANIFEST", "READERS", "ConfigRepo", "Entry", "Note", "NoteLevel", "RawEntry", "ReadResult", "RepoFile",
    "RepoScenario", "SettingChange", "TopicDecl", "checkout_root", "discover", "load", "measured_entries",
    "role_from_name", "changed_kinds", "failover_fault", "failover_moved", "measured_workloads", "production_changes", "kafka_version", "setting_changes", "to_scenario", "version_change",
]


def __getattr__(name: str) -> object:
    if name in ("RepoScenario", "measured_entries", "to_scenario"):
        from kcliff.configrepo import repo_scenario
        return getattr(repo_scenario, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

"""Which measured settings a pull request changes, each on the line the head writes it.

A measured regression is this change's doing, so `kcliff check` annotates it on these lines. Pure:
it compares the validated entries of base and head (configrepo.measured_entries), reads no file.
"""

from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Sequence, TypeVar

from kcliff.configrepo.model import Entry, RepoFile, VersionDecl
from kcliff.results.metrics import ChangeKind, Fault, Metric, Workload, failure_only, fault_for, moves_failover
from kcliff.scenario.consuming import Consuming
from kcliff.scenario.settings import as_kafka_value

if TYPE_CHECKING:  # kcliff.scenario pulls in pydantic, which lint never needs
    from kcliff.configrepo.repo_scenario import RepoScenario
    from kcliff.scenario.suites import Scenario

# How the producer runs rather than what it sets (Scenario.as_applied's top-level keys): a change of
# any is a producer change.
PRODUCTION_KEYS = ("producers", "record_size", "payload", "client")
# The role of the file a scope's settings are written in.
SCOPE_ROLE = {"broker": "broker", "producer": "producer", "consumer": "consumer", "consuming": "consumer",
              "topic": "topics"}


@dataclass(frozen=True)
class SettingChange:
    scope: str
    name: str
    base: Any  # None: the head adds the setting
    head: Any  # None: the head removes it
    path: str  # the head file to annotate; "" when the head has no file of that role
    line: int | None

    @property
    def kind(self) -> ChangeKind:
        """What kind of change this is: which metrics it can move (results/metrics.py)."""
        return ChangeKind.of_scope(self.scope)

    def describe(self) -> str:
        base, head = (None if v is None else as_kafka_value(v) for v in (self.base, self.head))  # as Kafka writes them
        if base is None:
            return f"{self.scope} {self.name}={head} added"
        if head is None:
            return f"{self.scope} {self.name}={base} removed"
        return f"{self.scope} {self.name} {base} -> {head}"


def _by_setting(entries: Sequence[Entry]) -> dict[tuple[str, str], list[Entry]]:
    # One producer file and one topic are measured, so scope and name identify a setting; broker
    # files must agree on it, so each broker file's line counts.
    out: dict[tuple[str, str], list[Entry]] = {}
    for e in entries:
        out.setdefault((e.scope, e.name), []).append(e)
    return out


def _removed_at(entry: Entry, base_root: str, head_root: str,
                head_files: Sequence[RepoFile]) -> tuple[str, int | None]:
    """Where the head lacks a setting: the same file in the head (at the line of the same resource, when
    the file holds several; else line 1), else line 1 of its first file of that role."""
    same = os.path.normpath(os.path.join(head_root, os.path.relpath(entry.path, base_root)))
    for f in head_files:
        if os.path.normpath(f.path) == same:
            return f.path, next((r.line for r in f.resources if r.name == entry.resource and r.line), 1)
    where = next((f.path for f in head_files if f.role == SCOPE_ROLE[entry.scope]), "")
    return where, 1 if where else None


def setting_changes(base: Sequence[Entry], head: Sequence[Entry], base_root: str, head_root: str,
                    head_files: Sequence[RepoFile]) -> list[SettingChange]:
    """Settings whose value differs between base and head: added and changed ones on each head line
    that writes them, removed ones at line 1 of the head file that lost them (at its resource's line in
    a file of Strimzi resources). `base_root` and
    `head_root` are the repo directories, to pair a base file with its head counterpart."""
    before, after = _by_setting(base), _by_setting(head)
    changes: list[SettingChange] = []
    for key in sorted(before.keys() | after.keys()):
        old, new = before.get(key), after.get(key)
        old_value, new_value = (old[-1].value if old else None), (new[-1].value if new else None)
        if old and new and old_value == new_value:
            continue
        if new:
            written = {(e.path, e.line): e for e in new}.values()  # brokers merging one compose anchor: one line
            changes += [SettingChange(*key, old_value, new_value, e.path, e.line) for e in written]
        else:
            assert old  # the key is in before or after, and not in after
            changes.append(SettingChange(*key, old_value, None, *_removed_at(old[0], base_root, head_root, head_files)))
    return changes


def changed_kinds(base: Scenario, head: Scenario, upgrade: SettingChange | None = None) -> frozenset[ChangeKind]:
    """The kinds of setting that differ between the two sides as kcliff applies them (as_applied:
    durability and invariants included), and a Kafka version change as a broker change. A kind whose
    changed settings all act only when something fails (metrics.failure_only) is left out: a healthy
    run cannot show it, and the check measures it through a fault alone (failover_moved)."""
    old, new = base.as_applied(), head.as_applied()
    kinds = {kind for kind, name in changed_settings(base, head) if not failure_only(kind, name)}
    if any(old.get(key) != new.get(key) for key in PRODUCTION_KEYS):
        kinds.add(ChangeKind.PRODUCER)
    if base.consuming != head.consuming:
        kinds.add(ChangeKind.CONSUMER)
    return frozenset(kinds | ({upgrade.kind} if upgrade is not None else set()))


def failover_moved(base: Scenario, head: Scenario) -> frozenset[Metric]:
    """The failover metrics the settings that differ between the two sides can move (FAILOVER_SETTINGS):
    a check with any measures both sides through a fault."""
    return frozenset(m for kind, name in changed_settings(base, head) for m in moves_failover(kind, name))


def failover_fault(base: Scenario, head: Scenario) -> Fault:
    """The fault both sides are measured through (metrics.fault_for)."""
    return fault_for(changed_settings(base, head))


def changed_settings(base: Scenario, head: Scenario) -> list[tuple[ChangeKind, str]]:
    """Each setting (its kind and name) whose value differs between the two sides as kcliff applies them."""
    old, new = base.as_applied(), head.as_applied()
    changed = []
    for kind in ChangeKind:
        before, after = old.get(kind.value) or {}, new.get(kind.value) or {}
        changed += [(kind, name) for name in sorted(set(before) | set(after)) if before.get(name) != after.get(name)]
    return changed


S = TypeVar("S", bound="Scenario")


def measured_workloads(base: S, head: S, at_rate: bool, upgrade: SettingChange | None = None) -> tuple[S, S]:
    """Both sides measure latency at a fixed rate unless asked not to (--no-rate; produce and end-to-end,
    read with their consumer's settings), the consumer flat out when the consumer settings differ (a
    producer-only change reads nothing flat out), and through a fault when a changed setting decides what
    a failure costs (failover_moved). End-to-end latency at rate stands in for the end-to-end tool, which
    forces linger.ms=0 and fetch.max.wait.ms=0 and so cannot show either (docs/gate.md, "Latency at rate").
    A change of failure-only settings alone (no kind left in changed_kinds) is measured through the fault
    only: no healthy run could show it. Both sides go through the fault the change calls for (failover_fault)."""
    failover = {Workload.FAILOVER} if failover_moved(base, head) else set()
    if failover and not changed_kinds(base, head, upgrade):
        wanted: set[Workload] = failover
    else:
        wanted = ({Workload.RATE} if at_rate else set()) | failover
        wanted |= {Workload.CONSUME} if (base.consumer, base.consuming) != (head.consumer, head.consuming) else set()

    fault = failover_fault(base, head) if failover else base.fault
    # both sides read with one tool: where one side says how its service consumes, the other consumes as a
    # service that says nothing does (auto-commit, one member)
    consuming = Consuming() if base.consuming or head.consuming else None

    def measuring(sc: S) -> S:
        return dataclasses.replace(sc, workloads=tuple(w for w in Workload if w in {*sc.workloads, *wanted}),
                                   fault=fault, consuming=sc.consuming or consuming)
    return measuring(base), measuring(head)


def production_changes(base: RepoScenario, head: RepoScenario) -> list[SettingChange]:
    """Changes of how the producer runs (kcliff.yaml's `producers:`: its instances, its samples; a source
    connector's tasks.max), each on the head's line that says so; where the head no longer says, on its
    manifest's entry, else for the whole run."""
    said = head.production
    changes = []
    if base.producers != head.producers:
        where = head.producers_said or ((said.where, said.line) if said else ("", None))
        changes.append(SettingChange("producer", "instances", base.producers, head.producers, *where))
    if base.as_applied().get("payload") != head.as_applied().get("payload"):
        where = (said.where, said.samples_line or said.line) if said else ("", None)
        changes.append(SettingChange("producer", "payload", str(base.payload), str(head.payload), *where))
    return changes


def kafka_version(declared: VersionDecl | None, default: str) -> str:
    """The Kafka version a side runs: what its repo declares, else `default` (--kafka-version)."""
    return declared.version if declared else default


def version_change(base: VersionDecl | None, head: VersionDecl | None, default: str) -> SettingChange | None:
    """The Kafka upgrade (or downgrade) a pull request makes, on the head line that declares it."""
    old, new = kafka_version(base, default), kafka_version(head, default)
    if old == new:
        return None
    return SettingChange("kafka", "version", old, new, head.path if head else "", head.line if head else None)

"""A connector's tasks.max as `kcliff check` measures and annotates it (#44): a source's tasks are producers, so
its tasks.max is how many run, and a change of it is a producer change on the tasks.max line; a sink's tasks are
consumers, tasks.max members of its one group committing as Connect's worker commits them, so a change of it is
a consumer change on its line. Every shape a repo writes it in: the REST API's JSON, connect-standalone's
.properties, Strimzi's `spec.tasksMax`, CFK's `spec.taskMax` (tests/data/real-repos/connect-platform)."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from conftest import ROOT
from kcliff import configrepo
from kcliff.configrepo import consumption
from kcliff.errors import InputError
from kcliff.judge import verdict
from kcliff.judge.family import Family
from kcliff.report import check_findings
from kcliff.results.metrics import ChangeKind, Workload
from kcliff.scenario.consuming import MAX_MEMBERS, Commit, Consuming
from repo_files import line_of, write

CORPUS = ROOT / "tests" / "data" / "real-repos" / "connect-platform"
STRIMZI, CFK = "k8s/kafka-connect.yaml", "cfk/connectors.yaml"
S3_JSON, SNOWFLAKE = "connectors/events-s3-sink.json", "connectors/ledger-snowflake-sink.properties"
SOURCE_JSON = "connectors/orders-postgres-source.json"
# each sink: its file, how it writes its tasks.max, and the consumer overrides the group runs with
SINKS = {
    "strimzi": (STRIMZI, "  tasksMax: 4", {"max.poll.records": 2000, "fetch.min.bytes": 262144}),
    "cfk": (CFK, "  taskMax: 3", {"max.poll.records": 1000, "session.timeout.ms": 45000}),
    "rest": (S3_JSON, '"tasks.max": "6"', {"max.poll.records": 5000, "fetch.min.bytes": 1048576}),
    "standalone": (SNOWFLAKE, "tasks.max=8", {"max.poll.records": 10000, "fetch.max.bytes": 52428800}),
}
# each source: its file and how it writes its tasks.max
SOURCES = {"strimzi": (STRIMZI, "  tasksMax: 1"), "cfk": (CFK, "  taskMax: 2"), "rest": (SOURCE_JSON, '"tasks.max": "1"')}


def _copy(root: Path) -> Path:
    shutil.copytree(CORPUS, root, ignore=shutil.ignore_patterns("expect.yaml"))
    return root


def _count(written: str) -> int:
    """The tasks a line of SINKS or SOURCES writes."""
    return int(re.findall(r"\d+", written)[-1])


def _retasked(written: str, tasks: int) -> str:
    return re.sub(r"\d+(?=\D*$)", str(tasks), written)


def _retask(path: Path, old: str, tasks: int) -> None:
    """`old`, which writes a tasks.max, rewritten to `tasks` in its own spelling."""
    text = path.read_text(encoding="utf-8")
    assert text.count(old) == 1, old
    path.write_text(text.replace(old, _retasked(old, tasks)), encoding="utf-8")


def _measuring(root: Path, consumer: str | None = None, producer: str | None = None) -> Path:
    """A kcliff.yaml that names the measured consumer and producer files, as a repo of several does."""
    said = "".join(f"  {role}: {path}\n" for role, path in (("consumer", consumer), ("producer", producer)) if path)
    write(root, "kcliff.yaml", f"version: 1\nmeasure:\n{said}")
    return root


@pytest.mark.parametrize("shape", SINKS)
def test_a_sink_is_measured_as_its_consumer_group(shape: str, tmp_path: Path):
    path, tasks, overrides = SINKS[shape]
    repo = configrepo.load([str(_measuring(_copy(tmp_path / "repo"), consumer=path))])
    scenario = configrepo.to_scenario(repo)
    assert scenario.consuming == Consuming(Commit.AUTO, 0, _count(tasks))
    # its tasks' consumer: Connect's own enable.auto.commit=false under its consumer.override.* keys
    assert scenario.consumer["enable.auto.commit"] is False
    assert {name: scenario.consumer[name] for name in overrides} == overrides
    said = {e.name: e.line for e in consumption.of_consumer(repo.entries, str(tmp_path / "repo" / path))}
    assert said["members"] == line_of(tmp_path / "repo" / path, tasks)


def test_a_sink_that_overrides_nothing_is_still_a_consumer_and_a_mirror_is_no_sink(tmp_path: Path):
    write(tmp_path, "connectors/archive-sink.json", """{
  "name": "archive-sink",
  "config": {
    "connector.class": "io.confluent.connect.s3.S3SinkConnector",
    "tasks.max": "2",
    "topics.regex": "archive\\\\..*",
    "s3.bucket.name": "archive",
    "flush.size": "1000"
  }
}
""")
    write(tmp_path, "connectors/mirror.json", """{
  "name": "mirror",
  "config": {
    "connector.class": "org.apache.kafka.connect.mirror.MirrorSourceConnector",
    "tasks.max": "4",
    "topics": "orders.*",
    "source.cluster.alias": "primary",
    "producer.override.linger.ms": "10"
  }
}
""")
    repo = configrepo.load([str(tmp_path)])
    assert repo.files_with_role("consumer") == [str(tmp_path / "connectors/archive-sink.json")]
    scenario = configrepo.to_scenario(repo)
    assert scenario.consuming == Consuming(Commit.AUTO, 0, 2)
    assert scenario.producers == 4  # MirrorMaker2's `topics` is what it copies: a source, its tasks producers


def _sides(tmp_path: Path, path: str, old: str, tasks: int, consumer: str | None = None,
           producer: str | None = None) -> tuple[Path, Path]:
    base = _measuring(_copy(tmp_path / "base"), consumer, producer)
    head = _measuring(_copy(tmp_path / "head"), consumer, producer)
    _retask(head / path, old, tasks)
    return base, head


def _changes(base: Path, head: Path) -> tuple[frozenset[ChangeKind], list[configrepo.SettingChange]]:
    """What `check` decides from: the changed kinds and every changed line (commands/check.py's order)."""
    repos = [configrepo.load([str(side)]) for side in (base, head)]
    scenarios = [configrepo.to_scenario(repo, side) for repo, side in zip(repos, ("base", "head"))]
    changes = configrepo.setting_changes(*(configrepo.measured_entries(repo) for repo in repos), str(base), str(head),
                                         repos[1].files)
    return configrepo.changed_kinds(*scenarios), changes + configrepo.production_changes(*scenarios)


@pytest.mark.parametrize("shape", SINKS)
def test_a_sinks_tasks_max_change_is_a_consumer_change_on_its_line(shape: str, tmp_path: Path):
    path, old, _ = SINKS[shape]
    base, head = _sides(tmp_path, path, old, 12, consumer=path, producer=SOURCE_JSON)
    kinds, changes = _changes(base, head)
    assert kinds == {ChangeKind.CONSUMER}
    assert [(c.kind, c.describe(), c.path, c.line) for c in changes] == [
        (ChangeKind.CONSUMER, f"consuming members {_count(old)} -> 12", str(head / path),
         line_of(head / path, _retasked(old, 12)))]


@pytest.mark.parametrize("shape", SOURCES)
def test_a_sources_tasks_max_change_is_a_producer_change_on_its_line(shape: str, tmp_path: Path):
    path, old = SOURCES[shape]
    base, head = _sides(tmp_path, path, old, 5, consumer=S3_JSON, producer=path)
    kinds, changes = _changes(base, head)
    assert kinds == {ChangeKind.PRODUCER}
    assert [(c.describe(), c.path, c.line) for c in changes] == [
        (f"producer instances {_count(old)} -> 5", str(head / path), line_of(head / path, _retasked(old, 5)))]


def test_a_removed_tasks_max_is_annotated_on_its_connectors_line(tmp_path: Path):
    """Connect runs one task where tasks.max is not set: the change is the connector's, on its config's line."""
    base, head = _sides(tmp_path, CFK, "  taskMax: 2", 2, consumer=S3_JSON, producer=CFK)
    text = (head / CFK).read_text(encoding="utf-8")
    (head / CFK).write_text(text.replace("  taskMax: 2\n", ""), encoding="utf-8")
    _, [change] = _changes(base, head)
    configs = line_of(head / CFK, "  configs:", after=line_of(head / CFK, "name: payments-sqlserver-source"))
    assert (change.describe(), change.line) == ("producer instances 2 -> 1", configs)


def test_tasks_max_beyond_kcliffs_members_is_capped_with_a_note(tmp_path: Path):
    base, head = _sides(tmp_path, SNOWFLAKE, "tasks.max=8", 24, consumer=SNOWFLAKE, producer=SOURCE_JSON)
    repo = configrepo.load([str(head)])
    assert configrepo.to_scenario(repo).consuming == Consuming(Commit.AUTO, 0, MAX_MEMBERS)
    [note] = [n for n in repo.notes if "members of its group" in n.message]
    assert note.line == line_of(head / SNOWFLAKE, "tasks.max=24")
    assert f"tasks.max 24 measured as {MAX_MEMBERS} members" in note.message
    assert _changes(base, head)[1][0].describe() == f"consuming members 8 -> {MAX_MEMBERS}"


def test_the_checks_measured_finding_is_on_the_sinks_tasks_max_line(tmp_path: Path):
    """The read side's measured regression, blamed on the changed line that can move it: the sink's tasksMax."""
    base, head = _sides(tmp_path, STRIMZI, "  tasksMax: 4", 1, consumer=STRIMZI, producer=SOURCE_JSON)
    _, changes = _changes(base, head)
    family = Family.of({ChangeKind.CONSUMER}, {Workload.PRODUCE, Workload.CONSUME})
    sv = verdict.compare_scenario("head", {"throughput": [20.0, 21.0], "consumed": [30.1, 29.4]},
                                  {"throughput": [20.4, 20.6], "consumed": [9.8, 10.3]}, family=family,
                                  reads_cut=(False, True), paired=True)
    [found] = check_findings.measured_findings(verdict.judge([sv]), changes, "text")
    sink = line_of(head / STRIMZI, "name: inventory-postgres-sink")
    assert found.startswith(f"{head / STRIMZI}:{line_of(head / STRIMZI, '  tasksMax: 1', after=sink)}: cliff: ")
    assert "consuming members 4 -> 1: measured with this change: consumed" in found


def test_a_sink_setting_both_topics_and_topics_regex_is_refused_as_connect_refuses_it(tmp_path: Path):
    repo = _copy(tmp_path / "repo")
    path = repo / S3_JSON
    text = path.read_text(encoding="utf-8")
    assert text.count('"topics.regex": ') == 1  # an S3 sink reading events.* by pattern, now given a list too
    path.write_text(text.replace('"topics.regex": ', '"topics": "events.orders",\n  "topics.regex": '), encoding="utf-8")
    with pytest.raises(InputError) as bad:
        configrepo.load([str(repo)])
    found = {(p.path, p.line): p.message for p in bad.value.problems}
    assert "not both" in found[(str(path), line_of(path, '"topics.regex"'))], found

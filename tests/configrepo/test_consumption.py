"""How a repo's consumer service consumes (configrepo/consumption.py): kcliff.yaml's `consumers:`, a Spring
Boot listener, or enable.auto.commit=false alone; each on its line, what the check measures and which
workloads a change of it brings in; bad input named on its line, every one in one run."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from conftest import ROOT, run_kcliff
from kcliff import configrepo
from kcliff.configrepo import consumption, diff
from kcliff.errors import InputError
from kcliff.results.metrics import Workload
from kcliff.scenario.consuming import Commit, Consuming
from repo_files import line_of, write

CORPUS = ROOT / "tests" / "data" / "real-repos" / "consumer-services"
LEDGER = "consumers/ledger-consumer.properties"
FULFILMENT = "services/fulfilment/src/main/resources/application.yml"


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    shutil.copytree(CORPUS, tmp_path / "repo")
    return tmp_path / "repo"


def test_kcliff_yaml_says_how_the_measured_consumer_consumes_each_field_on_its_line(repo):
    loaded = configrepo.load([str(repo)])
    scenario = configrepo.to_scenario(loaded)
    assert scenario.consuming == Consuming(Commit.POLL_SYNC, 200, 3)
    said = {e.name: e.line for e in consumption.of_consumer(loaded.entries, str(repo / LEDGER))}
    manifest = repo / "kcliff.yaml"
    assert said == {"commit": line_of(manifest, "    commit: poll-sync"), "processing": line_of(manifest, "    processing"),
                    "members": line_of(manifest, "    members")}


def test_a_spring_listener_says_it_and_auto_commit_off_alone_is_a_commit_after_each_poll(repo):
    loaded = configrepo.load([str(repo)])
    fulfilment = {e.name: (e.value, e.line) for e in consumption.of_consumer(loaded.entries, str(repo / FULFILMENT))}
    path = repo / FULFILMENT
    assert fulfilment == {"commit": ("record-sync", line_of(path, "      ack-mode: record")),
                          "members": (4, line_of(path, "      concurrency: 4"))}
    audit = repo / "consumers/audit-consumer.properties"
    implied = consumption.of_consumer(loaded.entries, str(audit))
    assert [(e.name, e.value, e.line) for e in implied] == [("commit", "poll-sync", line_of(audit, "enable.auto.commit"))]
    assert any(n.path == str(audit) and "commitSync after each poll" in n.message for n in loaded.notes)


def test_spring_auto_commit_on_leaves_the_commits_to_the_consumer(tmp_path):
    write(tmp_path, "application.yml", "spring:\n  kafka:\n    consumer:\n      enable-auto-commit: true\n"
                                      "    listener:\n      ack-mode: record\n      concurrency: 2\n")
    loaded = configrepo.load([str(tmp_path)])
    assert configrepo.to_scenario(loaded).consuming == Consuming(Commit.AUTO, 0, 2)


def test_a_change_of_how_it_commits_is_a_consumer_change_read_with_one_tool_on_both_sides(repo, tmp_path):
    base = configrepo.to_scenario(configrepo.load([str(repo)]))
    (repo / "kcliff.yaml").write_text((repo / "kcliff.yaml").read_text().replace("commit: poll-sync", "commit: record-sync"))
    head = configrepo.to_scenario(configrepo.load([str(repo)]))
    measured_base, measured_head = diff.measured_workloads(base, head, at_rate=False)
    assert Workload.CONSUME in measured_head.workloads and Workload.CONSUME in measured_base.workloads
    assert diff.ChangeKind.CONSUMER in diff.changed_kinds(base, head)
    plain = configrepo.to_scenario(configrepo.load([str(write(tmp_path / "plain", "consumer.properties",
                                                              "max.poll.records=5\n").parent)]))
    one, other = diff.measured_workloads(plain, head, at_rate=False)
    assert one.consuming == Consuming() and other.consuming == head.consuming  # the side that says nothing: auto


def test_bad_input_is_named_on_its_line_every_one_in_one_run(repo):
    manifest = repo / "kcliff.yaml"
    manifest.write_text(manifest.read_text().replace("commit: poll-sync", "commit: sometimes")
                        .replace("members: 3", "members: 3\n    threads: 2")
                        + "  consumers/nowhere.properties: {commit: auto}\n")
    spring = repo / FULFILMENT  # a Spring file's own problems are found in the same run: the files are still read
    spring.write_text(spring.read_text().replace("ack-mode: record", "ack-mode: each"))
    with pytest.raises(InputError) as bad:
        configrepo.load([str(repo)])
    found = {(p.path, p.line): p.message for p in bad.value.problems}
    assert "not a consumer file of this repo" in found[(str(manifest), line_of(manifest, "  consumers/nowhere"))]
    assert "unknown key 'threads'" in found[(str(manifest), line_of(manifest, "    threads"))]
    assert "commit 'sometimes'" in found[(str(manifest), line_of(manifest, "    commit:"))]
    assert "RECORD, BATCH" in found[(str(spring), line_of(spring, "      ack-mode"))]
    done = run_kcliff("lint", str(repo))
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert f"{spring}:{line_of(spring, '      ack-mode')}:" in done.stderr and "RECORD, BATCH" in done.stderr, done.stderr
    assert f"{manifest}:{line_of(manifest, '    commit:')}:" in done.stderr, done.stderr

"""`kcliff check`'s inputs and outputs that need no cluster: the PR comment file, annotation paths,
symlinks, the annotations of a measured regression, a head that changes nothing measured."""

from __future__ import annotations

import json
import os
import random
import re
from pathlib import Path

import pytest
from conftest import run_kcliff
from kcliff import cli, configrepo
from kcliff.commands import check
from kcliff.results.model import ResultsDoc, StopKind

from tests.lint.test_lint_cli import BASE_REPO, make_repo


def test_comment_is_written_fresh_and_summary_appends(tmp_path):
    base = make_repo(tmp_path / "base")
    head = make_repo(tmp_path / "head", {"clients/producer.properties":
                                         BASE_REPO["clients/producer.properties"].replace("linger.ms=5", "linger.ms=10")})
    comment, summary = tmp_path / "comment.md", tmp_path / "summary.md"
    comment.write_text("## the previous pull request's verdict\n")
    for _ in range(2):
        done = run_kcliff("check", "--static-only", "--base", str(base), "--head", str(head), "--format", "text",
                          "--comment", str(comment), "--summary", str(summary))
        assert done.returncode == 3, done.stdout + done.stderr
    assert comment.read_text().count("## kcliff config check") == 1
    assert "previous pull request" not in comment.read_text()
    assert summary.read_text().count("## kcliff config check") == 2


# --- a head that changes nothing measured passes without a cluster -------------------------------

def test_a_head_changing_only_comments_passes_without_a_cluster(tmp_path, monkeypatch, capsys):
    base = make_repo(tmp_path / "base")
    producer = "# tuned for the orders service\n" + BASE_REPO["clients/producer.properties"].replace("=", " = ")
    head = make_repo(tmp_path / "head", {"clients/producer.properties": producer,
                                         "clients/consumer.properties": "group.id=orders\n"})  # ignored key
    out, comment = tmp_path / "verdict.json", tmp_path / "comment.md"

    def no_cluster(*args):
        raise AssertionError("measured a head that changes nothing measured")

    monkeypatch.setattr(check, "measure", no_cluster)
    code = cli.main(["check", "--base", str(base), "--head", str(head), "--format", "github",
                     "--workdir", str(tmp_path / "w"), "--json", str(out), "--comment", str(comment)])
    assert code == 0
    assert "nothing measured changed" in capsys.readouterr().out
    assert "nothing measured changed" in comment.read_text()
    payload = json.loads(out.read_text())
    assert payload["verdict"] == "pass" and payload["measured"] is False and payload["run_id"] is None
    assert not (tmp_path / "w").exists()  # no cluster, no run directory


def test_a_changed_measured_setting_is_not_taken_for_unchanged(tmp_path, monkeypatch):
    base = make_repo(tmp_path / "base")
    head = make_repo(tmp_path / "head", {"topics/topics.yaml": BASE_REPO["topics/topics.yaml"].replace("12", "6")})
    measured = []
    monkeypatch.setattr(check, "measure", lambda args, self_test, pair, version, upgrade=None, *_: measured.append(pair) or synthetic_doc(1.0))
    assert cli.main(["check", "--base", str(base), "--head", str(head), "--format", "text"]) == 0
    assert [sc.id for sc in measured[0]] == ["base", "head"]
    # no consumer change: the producer flat out and latency at rate, no consumer flat out
    assert all(sc.workloads == ("produce", "rate") for sc in measured[0])


def test_no_rate_measures_flat_out_only_and_says_what_cannot_show(tmp_path, monkeypatch):
    base = make_repo(tmp_path / "base")
    head = make_repo(tmp_path / "head", {"topics/topics.yaml": BASE_REPO["topics/topics.yaml"].replace("12", "6")})
    measured = []
    monkeypatch.setattr(check, "measure", lambda args, self_test, pair, version, upgrade=None, *_: measured.append(
        (self_test, pair)) or synthetic_doc(1.0))
    out = tmp_path / "verdict.json"
    assert cli.main(["check", "--base", str(base), "--head", str(head), "--no-rate", "--json", str(out)]) == 0
    self_test, pair = measured[0]
    assert all(sc.workloads == ("produce",) for sc in pair)
    assert "linger-500" not in [sc.id for sc in self_test]  # no rate measured: no latency canary to vouch for it
    assert any(n.startswith("latency at rate not measured (--no-rate)") for n in json.loads(out.read_text())["notes"])


def test_a_repo_naming_its_kafka_version_is_measured_at_that_version(tmp_path, monkeypatch):
    version = {"kafka-version": "# the brokers' release\n3.9.2\n"}
    base = make_repo(tmp_path / "base", version)
    head = make_repo(tmp_path / "head", {**version, "topics/topics.yaml": BASE_REPO["topics/topics.yaml"].replace("12", "6")})
    versions = []
    monkeypatch.setattr(check, "measure", lambda args, self_test, pair, version, upgrade=None, *_: versions.append(
        (version, upgrade)) or synthetic_doc(1.0))
    assert cli.main(["check", "--base", str(base), "--head", str(head), "--format", "text"]) == 0
    assert versions == [("3.9.2", None)]  # not --kafka-version's default: the repo says what it runs


def test_a_repo_on_a_release_before_kraft_is_linted_and_not_measured(tmp_path, monkeypatch):
    version = {"kafka-version": "2.8.2\n"}
    base = make_repo(tmp_path / "base", version)
    head = make_repo(tmp_path / "head", {**version, "topics/topics.yaml": BASE_REPO["topics/topics.yaml"].replace("12", "6")})
    monkeypatch.setattr(check, "measure", lambda *args, **kwargs: pytest.fail("measured Kafka 2.8.2"))
    assert cli.main(["lint", str(head)]) == 0
    assert cli.main(["check", "--base", str(base), "--head", str(head), "--format", "text"]) == 2


def test_a_consumer_change_is_measured_on_the_read_side_too(tmp_path, monkeypatch):
    base = make_repo(tmp_path / "base", {"clients/consumer.properties": "max.poll.records=500\n"})
    head = make_repo(tmp_path / "head", {"clients/consumer.properties": "max.poll.records=100\n"})
    measured = []
    monkeypatch.setattr(check, "measure", lambda args, self_test, pair, version, upgrade=None, *_: measured.append(pair) or synthetic_doc(1.0, read_factor=1.0))
    assert cli.main(["check", "--base", str(base), "--head", str(head), "--format", "text"]) == 0
    base_sc, head_sc = measured[0]
    assert (base_sc.consumer, head_sc.consumer) == ({"max.poll.records": 500}, {"max.poll.records": 100})
    # end-to-end latency at rate, read with each side's consumer settings, stands in for the end-to-end tool
    assert base_sc.workloads == head_sc.workloads == ("produce", "consume", "rate")


# --- a measured regression is annotated on the lines that changed ---------------------------------

def synthetic_doc(head_factor: float, rounds: int = 18, read_factor: float | None = None, rate_factor: float = 1.0,
                  head_held: bool = True) -> ResultsDoc:
    """A check's results as measure() returns them: the self-test's canaries showing their cliff,
    then base and head paired round by round, each round a producer run flat out and a run at a fixed
    rate, the head's producer at `head_factor` x the base's MB/s and its p99s at rate at `rate_factor`
    x the base's (`head_held`: whether the head held the rate). With `read_factor`, both sides also
    read flat out (a consumer change): the head's consumer MB/s at that factor x the base's and its
    end-to-end p99 at rate at its inverse."""
    rng = random.Random(7)
    base = [20.0 * rng.uniform(0.9, 1.1) for _ in range(rounds)]
    latency = [800.0 * rng.uniform(0.9, 1.1) for _ in range(rounds)]
    consumed = [140.0 * rng.uniform(0.9, 1.1) for _ in range(rounds)]
    at_rate = [12.0 * rng.uniform(0.9, 1.1) for _ in range(rounds)]
    e2e = [40.0 * rng.uniform(0.9, 1.1) for _ in range(rounds)]

    def entry(sid, mbs, p99s, cliff=None, rates=None, consumes=None, held=True):
        runs = [] if rates is None else [{"records": 7000, "workload": "rate", "rate_target_per_s": 1229.0,
                                          "rate_held": held, "rate_p50_ms": p / 2, "rate_p99_ms": p,
                                          "rate_e2e_p50_ms": e / 2, "rate_e2e_p99_ms": e}
                                         for p, e in zip(*rates)]
        runs += [{"records": 30000, "workload": "consume", "consumed_mb_per_sec": c} for c in consumes or ()]
        workloads = ["produce"] + (["consume"] if consumes else []) + (["rate"] if rates else [])
        return {"id": sid, "status": "ok", "status_reason": None, "cliff": cliff, "workloads": workloads,
                "read_runs": runs, "runs": [{"records": 30000, "mb_per_sec": m, "p99_ms": p} for m, p in zip(mbs, p99s)]}

    def jitter(values, factor):
        return [v * factor * rng.uniform(0.97, 1.03) for v in values]

    e2e_factor = rate_factor / (read_factor or 1.0)
    head_rates = (jitter(at_rate, rate_factor), jitter(e2e, e2e_factor))
    return ResultsDoc.model_validate({"run_id": "synthetic", "parameters": {"records": 30000}, "environment": {"runner_class": "test-2c"},
            "scenarios": [entry("reference", [20.0] * 3, [800.0] * 3),
                          entry("batching-off", [2.0] * 3, [9000.0] * 3,
                                {"metric": "throughput", "max_ratio": 0.5, "stands_for": "batch.size=0"}),
                          entry("base", base, latency, rates=(at_rate, e2e), consumes=read_factor and consumed),
                          entry("head", jitter(base, head_factor), [p / head_factor * rng.uniform(0.97, 1.03) for p in latency],
                                rates=head_rates, consumes=read_factor and jitter(consumed, read_factor),
                                held=head_held)]})


def test_a_measured_regression_is_annotated_on_each_changed_line(tmp_path, monkeypatch, capsys):
    base = make_repo(tmp_path / "base")
    producer = BASE_REPO["clients/producer.properties"].replace("batch.size=65536", "batch.size=8192")
    head = make_repo(tmp_path / "head", {"clients/producer.properties": producer + "compression.type=lz4\n"})
    monkeypatch.setattr(check, "measure", lambda args, self_test, pair, version, upgrade=None, *_: synthetic_doc(0.41))
    code = cli.main(["check", "--base", str(base), "--head", str(head), "--format", "github",
                     "--repo-root", str(head)])
    assert code == 1
    found = [line for line in capsys.readouterr().out.splitlines() if line.startswith("::error")]
    effect = r": measured with this change: throughput 0\.4\dx, p99 2\.\d\dx \(18 rounds\)"
    assert len(found) == 2
    assert re.fullmatch(r"::error file=clients/producer\.properties,line=4,title=kcliff%3A measured regression::"
                        r"producer batch\.size 65536 -> 8192" + effect, found[0]), found[0]
    assert re.fullmatch(r"::error file=clients/producer\.properties,line=5,title=kcliff%3A measured regression::"
                        r"producer compression\.type=lz4 added" + effect, found[1]), found[1]


def linger_check(tmp_path: Path, monkeypatch, capsys, linger: str, head_factor: float) -> tuple[int, list[str]]:
    """A check of linger.ms 5 -> `linger` whose head measures `head_factor` x the base: its exit code
    and its ::error lines."""
    base = make_repo(tmp_path / "base")
    head = make_repo(tmp_path / "head", {"clients/producer.properties":
                                         BASE_REPO["clients/producer.properties"].replace("linger.ms=5", linger)})
    monkeypatch.setattr(check, "measure", lambda args, self_test, pair, version, upgrade=None, *_: synthetic_doc(head_factor))
    code = cli.main(["check", "--base", str(base), "--head", str(head), "--format", "github"])
    return code, [line for line in capsys.readouterr().out.splitlines() if line.startswith("::error")]


def test_a_pass_gets_no_measured_annotation(tmp_path, monkeypatch, capsys):
    assert linger_check(tmp_path, monkeypatch, capsys, "linger.ms=10", 1.0) == (0, [])


def _entries(tmp_path: Path, name: str, changes: dict[str, str]) -> tuple[str, configrepo.ConfigRepo]:
    root = make_repo(tmp_path / name, changes)
    return str(root), configrepo.load([str(root)])


def changes_between(base_root: str, base: configrepo.ConfigRepo, head_root: str,
                    head: configrepo.ConfigRepo) -> list[tuple[str, str, int | None]]:
    """setting_changes as (what, head file relative to the head repo, line)."""
    changes = configrepo.setting_changes(configrepo.measured_entries(base), configrepo.measured_entries(head),
                                         base_root, head_root, head.files)
    return [(c.describe(), os.path.relpath(c.path, head_root), c.line) for c in changes]


def test_setting_changes_added_changed_removed_and_unmeasured(tmp_path):
    base_root, base = _entries(tmp_path, "base", {
        "kafka/server-2.properties": "num.io.threads=8\nnum.network.threads=3\n",
        "clients/zz-producer.properties": "linger.ms=0\n"})
    producer = BASE_REPO["clients/producer.properties"].replace("linger.ms=5\n", "")  # removed
    head_root, head = _entries(tmp_path, "head", {
        "kafka/server-2.properties": "num.io.threads=8\nnum.network.threads=6\n",  # changed in one broker file
        "kafka/server.properties": BASE_REPO["kafka/server.properties"] + "num.network.threads=6\n",  # and the other
        "clients/producer.properties": producer,
        "clients/zz-producer.properties": "linger.ms=100\n",  # not the measured producer
        "clients/consumer.properties": "max.poll.records=1\n"})  # the consumer is measured too
    assert changes_between(base_root, base, head_root, head) == [
        ("broker num.network.threads 3 -> 6", "kafka/server-2.properties", 2),
        ("broker num.network.threads 3 -> 6", "kafka/server.properties", 5),
        ("consumer max.poll.records=1 added", "clients/consumer.properties", 1),
        ("producer linger.ms=5 removed", "clients/producer.properties", 1)]


def test_setting_changes_of_identical_settings_is_empty_and_a_lost_file_goes_to_its_role(tmp_path):
    base_root, base = _entries(tmp_path, "base", {})
    assert changes_between(base_root, base, base_root, base) == []
    head_root = str(make_repo(tmp_path / "head", {"apps/orders-producer.properties": "batch.size=65536\nacks=all\n"}))
    (Path(head_root) / "clients" / "producer.properties").unlink()  # the producer moved, without its linger.ms
    assert changes_between(base_root, base, head_root, configrepo.load([head_root])) == [
        ("producer linger.ms=5 removed", "apps/orders-producer.properties", 1)]


def test_a_measured_cliff_of_the_head_is_annotated_too(tmp_path, monkeypatch, capsys):
    code, [line] = linger_check(tmp_path, monkeypatch, capsys, "linger.ms=0", 0.05)
    assert code == 1
    assert "title=kcliff%3A measured cliff::producer linger.ms 5 -> 0: measured with this change" in line
    assert line.endswith("; head fell to the canaries' cliff tier")


def test_an_unchanged_head_is_measured_when_asked(tmp_path, monkeypatch):
    repo = make_repo(tmp_path / "repo")
    measured = []
    monkeypatch.setattr(check, "measure", lambda args, self_test, pair, version, upgrade=None, *_: measured.append(pair) or synthetic_doc(1.0))
    assert cli.main(["check", "--base", str(repo), "--head", str(repo), "--measure-unchanged"]) == 0
    assert len(measured) == 1


# --- bad input on either side ------------------------------------------------------------------------

def test_bad_input_of_both_sides_is_reported_at_once_the_heads_on_its_line(tmp_path, monkeypatch, capsys):
    server = BASE_REPO["kafka/server.properties"]
    base = make_repo(tmp_path / "base", {"kafka/server.properties": server.replace("num.io.threads=8",
                                                                                   "num.io.threads=0")})
    producer = BASE_REPO["clients/producer.properties"].replace("linger.ms=5", "linger.msec=5")
    head = make_repo(tmp_path / "head", {"clients/producer.properties": producer})
    out = tmp_path / "verdict.json"

    def no_cluster(*args):
        raise AssertionError("measured despite bad input")

    monkeypatch.setattr(check, "measure", no_cluster)
    argv = ["check", "--base", str(base), "--head", str(head), "--repo-root", str(head), "--format", "github",
            "--json", str(out), "--workdir", str(tmp_path / "w")]
    assert cli.main(argv) == 2
    printed = capsys.readouterr()
    annotations = [line for line in printed.out.splitlines() if line.startswith("::")]
    assert annotations == [
        "::error file=clients/producer.properties,line=3,title=kcliff%3A bad input::unknown producer setting "
        "'linger.msec': did you mean 'linger.ms'?",
        f"::error title=kcliff%3A bad input::{base}/kafka/server.properties:4: broker setting 'num.io.threads': "
        "0 is out of range: expected at least 1 (Kafka 4.2.0)"], printed.out
    errors = printed.err.splitlines()
    assert f"kcliff: error: {head}/clients/producer.properties:3: unknown producer setting 'linger.msec': " \
           "did you mean 'linger.ms'?" in errors
    assert any(e.startswith(f"kcliff: error: {base}/kafka/server.properties:4: ") for e in errors), errors
    assert not out.exists() and not (tmp_path / "w").exists()  # no verdict was reached, nothing started

    # the same bad input on both sides: annotated once, on the head's line
    make_repo(head, {"kafka/server.properties": server.replace("num.io.threads=8", "num.io.threads=0"),
                     "clients/producer.properties": BASE_REPO["clients/producer.properties"]})
    assert cli.main(argv) == 2
    printed = capsys.readouterr()
    assert [line for line in printed.out.splitlines() if line.startswith("::")] == [
        "::error file=kafka/server.properties,line=4,title=kcliff%3A bad input::broker setting 'num.io.threads': "
        "0 is out of range: expected at least 1 (Kafka 4.2.0)"], printed.out
    assert len([e for e in printed.err.splitlines() if e.startswith("kcliff: error: ")]) == 2, printed.err


def test_a_head_the_early_stop_cut_twice_running_is_a_cliff_on_its_line(tmp_path, monkeypatch, capsys):
    # the workflow's regression test in a fresh make test: batch.size 65536 -> 4096 read 0.2x for two rounds,
    # then the early stop cut the head's runs as a cliff (2 records counted each, 0.0004 MB/s) and the
    # paired throughput read "too noisy to tell": inconclusive, exit 3, for a head on its cliff
    base = make_repo(tmp_path / "base")
    head = make_repo(tmp_path / "head", {"clients/producer.properties":
                                         BASE_REPO["clients/producer.properties"].replace("batch.size=65536",
                                                                                          "batch.size=4096")})
    doc = synthetic_doc(0.2)
    cut = doc.entry("head").runs[-2:]
    for run in cut:
        run.records, run.mb_per_sec, run.complete = 2, 0.0004, False
        run.stop_kind, run.stop_reason = StopKind.CLIFF, "cliff: at most 0.89 MB/s acknowledged over 4.4s"
    monkeypatch.setattr(check, "measure", lambda args, self_test, pair, version, upgrade=None, *_: doc)
    code = cli.main(["check", "--base", str(base), "--head", str(head), "--format", "github", "--no-rate",
                     "--repo-root", str(head)])
    out = capsys.readouterr().out
    found = [line for line in out.splitlines() if line.startswith("::error")]
    assert code == 1 and "verdict: cliff" in out, out
    assert len(found) == 1 and found[0].startswith(
        "::error file=clients/producer.properties,line=4,title=kcliff%3A measured cliff::producer batch.size"), found
    assert "head fell to the canaries' cliff tier" in found[0]

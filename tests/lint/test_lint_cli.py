"""`kcliff lint` through the real CLI: text and GitHub annotations, exit codes 0 / 1 / 2, and the
config-repo pull-request story (flush=1 fails on its line, linger 5 -> 10 passes, a typo is bad input)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from conftest import run_kcliff
from kcliff.lint.github import annotation, escape_data, escape_property

from tests.results.test_baseline import synthetic_results

BASE_REPO = {
    "kafka/server.properties": "process.roles=broker,controller\nnode.id=1\nlog.dirs=/var/lib/kafka\n"
                               "num.io.threads=8\n",
    "clients/producer.properties": "bootstrap.servers=kafka:9092\nacks=all\nlinger.ms=5\nbatch.size=65536\n",
    "topics/topics.yaml": "- name: orders\n  partitions: 12\n  replication_factor: 3\n"
                          "  configs:\n    min.insync.replicas: 2\n",
}


def make_repo(root: Path, changes: dict[str, str] | None = None) -> Path:
    """A git repo holding a config repo, with `changes` committed on top as the pull request's head."""
    for name, text in {**BASE_REPO, **(changes or {})}.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


def test_clean_repo_exits_0(tmp_path):
    repo = make_repo(tmp_path)
    done = run_kcliff("lint", str(repo))
    assert done.returncode == 0, done.stderr
    assert "0 error(s), 0 warning(s) in 3 file(s)" in done.stdout


def test_head_setting_flush_1_fails_with_an_annotation_on_that_line(tmp_path):
    server = BASE_REPO["kafka/server.properties"] + "log.flush.interval.messages=1\n"
    make_repo(tmp_path, {"kafka/server.properties": server})
    done = run_kcliff("lint", "--format", "github", ".", cwd=tmp_path)
    assert done.returncode == 1, done.stdout + done.stderr
    lines = [line for line in done.stdout.splitlines() if line.startswith("::")]
    assert len(lines) == 1
    assert lines[0].startswith("::error file=kafka/server.properties,line=5,title=kcliff flush-every-message%3A ")
    assert "::broker log.flush.interval.messages=1: " in lines[0] and "canary flush-1" in lines[0]


def test_head_changing_linger_5_to_10_passes(tmp_path):
    producer = BASE_REPO["clients/producer.properties"].replace("linger.ms=5", "linger.ms=10")
    make_repo(tmp_path, {"clients/producer.properties": producer})
    done = run_kcliff("lint", "--format", "github", ".", cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "::" not in done.stdout


def test_head_with_a_typo_is_bad_input_naming_the_line(tmp_path):
    producer = BASE_REPO["clients/producer.properties"].replace("linger.ms=5", "linger.msec=5")
    make_repo(tmp_path, {"clients/producer.properties": producer})
    done = run_kcliff("lint", "--format", "github", ".", cwd=tmp_path)
    assert done.returncode == 2
    assert "clients/producer.properties:3: unknown producer setting 'linger.msec'" in done.stderr
    assert "Traceback" not in done.stderr
    assert done.stdout.startswith("::error file=clients/producer.properties,line=3,title=kcliff%3A bad input::")
    text = run_kcliff("lint", ".", cwd=tmp_path)
    assert text.returncode == 2 and "did you mean 'linger.ms'" in text.stderr and text.stdout == ""



def test_consumer_file_is_linted_on_its_line_and_typed_as_kafka_types_it(tmp_path):
    consumer = "bootstrap.servers=kafka:9092\ngroup.id=orders\nmax.poll.records=1\n"
    make_repo(tmp_path, {"clients/consumer.properties": consumer})
    done = run_kcliff("lint", "--format", "github", ".", cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr  # a warning until a canary measures it
    assert done.stdout.startswith("::warning file=clients/consumer.properties,line=3,"
                                  "title=kcliff consumer-poll-one-record%3A "), done.stdout
    for text, words in (("max.pol.records=5\n", "unknown consumer setting 'max.pol.records': did you mean "
                                                 "'max.poll.records'?"),
                        ("fetch.max.bytes=-3\n", "consumer setting 'fetch.max.bytes': -3 is out of range: "
                                                  "expected at least 0 (Kafka 4.2.0)")):
        (tmp_path / "clients" / "consumer.properties").write_text(text, encoding="utf-8")
        bad = run_kcliff("lint", ".", cwd=tmp_path)
        assert bad.returncode == 2 and f"clients/consumer.properties:1: {words}" in bad.stderr, bad.stderr
        assert "Traceback" not in bad.stderr

def test_text_output_lists_every_match_with_file_and_line(tmp_path):
    make_repo(tmp_path, {"clients/producer.properties": "acks=1\nmax.in.flight.requests.per.connection=1\n",
                         "kafka/server.properties": "num.io.threads=1\n"})
    done = run_kcliff("lint", ".", cwd=tmp_path)
    assert done.returncode == 1
    heads = [line for line in done.stdout.splitlines() if not line.startswith(" ") and ": " in line]
    assert heads[:3] == ["clients/producer.properties:1: warning: acks below all (durability) [acks-not-all]",
                         "clients/producer.properties:2: error: one request in flight [inflight-one]",
                         "kafka/server.properties:1: warning: one request handler thread [io-threads-one]"]
    assert "1 error(s), 2 warning(s)" in done.stdout


def test_warnings_fail_only_when_asked(tmp_path):
    make_repo(tmp_path, {"kafka/server.properties": "num.io.threads=1\n"})
    assert run_kcliff("lint", ".", cwd=tmp_path).returncode == 0
    assert run_kcliff("lint", "--fail-on", "warning", ".", cwd=tmp_path).returncode == 1


def test_evidence_shows_the_canarys_measured_ratio(tmp_path):
    make_repo(tmp_path, {"clients/producer.properties": "max.in.flight.requests.per.connection=1\n"})
    results = tmp_path / "results.json"
    results.write_text(json.dumps(synthetic_results(0)), encoding="utf-8")  # SYNTHETIC figures
    done = run_kcliff("lint", "--evidence", str(results), ".", cwd=tmp_path)
    assert done.returncode == 1
    assert "canary inflight-1 measured 0.3" in done.stdout


def test_missing_path_and_bad_rules_are_bad_input(tmp_path):
    assert run_kcliff("lint", str(tmp_path / "nope")).returncode == 2
    rules = tmp_path / "rules.yaml"
    rules.write_text("schema: something.else\n", encoding="utf-8")
    make_repo(tmp_path)
    done = run_kcliff("lint", "--rules", str(rules), str(tmp_path))
    assert done.returncode == 2 and "not a cliff rules file" in done.stderr


def test_annotation_escaping():
    assert escape_data("50% a\r\nb") == "50%25 a%0D%0Ab"
    assert escape_property("a:b,c%") == "a%3Ab%2Cc%25"
    assert annotation("warning", "dir,x/f:1", 7, "t: x", "m\nn") == "::warning file=dir%2Cx/f%3A1,line=7,title=t%3A x::m%0An"


def test_lint_runs_in_a_git_checkout_as_ci_would(tmp_path):
    make_repo(tmp_path)
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    (tmp_path / ".git" / "server.properties").write_text("junk.key=1\n")  # never read from .git
    assert run_kcliff("lint", ".", cwd=tmp_path).returncode == 0

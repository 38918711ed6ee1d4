"""`kcliff check` judges only what a change can move, and blames only the lines that can move it
(issue #28): on examples/config-repo, as a new user's pull requests change it, with the measuring
replaced by synthetic rounds (tests/commands/test_check_inputs.py, synthetic_doc)."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

from kcliff import cli
from kcliff.commands import check
from kcliff.judge import verdict

from tests.commands.test_check_inputs import synthetic_doc

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "config-repo"
CONSUMER = "consumers/app-consumer.properties"
PRODUCER = "producers/app-producer.properties"
# The consumer-only head: what a new user tried on the example repo.
SLOW_FETCH = "fetch.min.bytes=1048576\nfetch.max.wait.ms=500\n"


def pull_request(tmp_path: Path, edits: dict[str, tuple[str, str]]) -> tuple[Path, Path]:
    """Base and head copies of the example repo; `edits` maps a file to (old text, new text) in the head."""
    base, head = tmp_path / "base", tmp_path / "head"
    shutil.copytree(EXAMPLE, base)
    shutil.copytree(EXAMPLE, head)
    for name, (old, new) in edits.items():
        text = (head / name).read_text()
        assert old in text, (name, old)
        (head / name).write_text(text.replace(old, new, 1))
    return base, head


def line_of(path: Path, needle: str) -> int:
    return next(i for i, text in enumerate(path.read_text().splitlines(), 1) if needle in text)


def run_check(tmp_path, monkeypatch, capsys, edits, head_factor, read_factor, rate_factor=1.0, head_held=True):
    base, head = pull_request(tmp_path, edits)
    doc = synthetic_doc(head_factor, read_factor=read_factor, rate_factor=rate_factor, head_held=head_held)
    monkeypatch.setattr(check, "measure", lambda args, self_test, pair, version, upgrade=None, *_: doc)
    out = tmp_path / "verdict.json"
    code = cli.main(["check", "--base", str(base), "--head", str(head), "--format", "github", "--repo-root", str(head),
                     "--json", str(out), "--comment", str(tmp_path / "comment.md")])
    errors = [line for line in capsys.readouterr().out.splitlines() if line.startswith("::error")]
    return code, errors, json.loads(out.read_text()), head, doc


def test_a_consumer_only_head_is_not_failed_on_the_producers_throughput(tmp_path, monkeypatch, capsys):
    # the check: the producer's throughput measured 0.87x, the consumer's figures equal
    code, errors, payload, _, doc = run_check(tmp_path, monkeypatch, capsys,
                                              {CONSUMER: ("max.poll.records=500\n", "max.poll.records=500\n" + SLOW_FETCH)},
                                              0.87, 1.0)
    decisions = {d["metric"]: d for d in payload["scenarios"][0]["decisions"]}
    assert (code, payload["verdict"], errors) == (0, "pass", []), payload["reasons"]
    assert decisions["throughput"]["outcome"] == "not judged" and decisions["throughput"]["ratio"] < 0.9
    assert "a consumer change cannot move throughput" in decisions["throughput"]["reason"]
    assert decisions["p99"]["outcome"] == "not judged"
    assert decisions["consumed"]["outcome"] == "pass" and decisions["consumed"]["alpha"] == verdict.DEFAULT_ALPHA / 3
    assert decisions["p99_at_rate"]["outcome"] == "not judged"
    assert any(n.startswith("judged: consumed, e2e_p50_at_rate, e2e_p99_at_rate (what a consumer change can move)") for n in payload["notes"])
    comment = (tmp_path / "comment.md").read_text()
    assert re.search(r"\| head \| throughput \(MB/s\) \|.*\| 0\.8\dx \|.*\| not judged: the change cannot move it \|", comment)
    assert "p < 0.00833 for each judged metric, 0.025 for them all together" in comment
    # the same rounds, every metric judged as before the family: a regression on the producer
    sides = [{m.name: doc.entry(side).values(m) for m in doc.entry(side).metrics()} for side in ("base", "head")]
    before = verdict.compare_scenario("head", *sides, paired=True)
    assert before.verdict is verdict.Outcome.REGRESSION
    assert [d.metric for d in before.decisions if d.outcome is verdict.Outcome.REGRESSION] == ["throughput", "p99"]


def test_a_consumer_regression_is_annotated_on_the_consumer_line_with_its_metric(tmp_path, monkeypatch, capsys):
    code, errors, payload, head, _ = run_check(tmp_path, monkeypatch, capsys,
                                               {CONSUMER: ("max.poll.records=500\n", "max.poll.records=500\n" + SLOW_FETCH)},
                                               1.0, 0.41)
    assert code == 1 and payload["verdict"] == "regression"
    consumer = head / CONSUMER
    lines = sorted(int(re.search(r"line=(\d+)", e).group(1)) for e in errors)
    assert lines == sorted([line_of(consumer, "fetch.max.wait.ms"), line_of(consumer, "fetch.min.bytes")])
    assert all(f"file={CONSUMER}," in e for e in errors)
    assert all(re.search(r"measured with this change: consumed 0\.4\dx, e2e_p50_at_rate 2\.\d\dx, e2e_p99_at_rate 2\.\d\dx \(18 rounds\)$", e)
               for e in errors), errors


def test_a_producer_regression_is_not_annotated_on_a_consumer_line_changed_beside_it(tmp_path, monkeypatch, capsys):
    code, errors, _, head, _ = run_check(tmp_path, monkeypatch, capsys, {
        CONSUMER: ("max.poll.records=500\n", "max.poll.records=1000\n"),
        PRODUCER: ("batch.size=65536\n", "batch.size=8192\n")}, 0.41, 1.0)
    assert code == 1 and len(errors) == 1, errors
    assert errors[0].startswith(f"::error file={PRODUCER},line={line_of(head / PRODUCER, 'batch.size=8192')},"
                                "title=kcliff%3A measured regression::producer batch.size 65536 -> 8192: "), errors
    assert re.search(r"measured with this change: throughput 0\.4\dx, p99 2\.\d\dx \(18 rounds\)$", errors[0])


def test_a_consumer_regression_is_blamed_on_a_producer_line_too(tmp_path, monkeypatch, capsys):
    # the consumer reads the batches the producer wrote: a producer change can move the consumer's figures
    code, errors, payload, head, _ = run_check(tmp_path, monkeypatch, capsys, {
        CONSUMER: ("max.poll.records=500\n", "max.poll.records=1000\n"),
        PRODUCER: ("batch.size=65536\n", "batch.size=8192\n")}, 1.0, 0.41)
    assert code == 1 and payload["verdict"] == "regression"
    judged = {d["metric"]: d["alpha"] for d in payload["scenarios"][0]["decisions"]}
    assert judged == dict.fromkeys(("throughput", "p99", "consumed", "p50_at_rate", "p99_at_rate", "e2e_p50_at_rate",
                                    "e2e_p99_at_rate"), verdict.DEFAULT_ALPHA / 7)
    assert sorted(re.search(r"file=([^,]+),", e).group(1) for e in errors) == [CONSUMER, PRODUCER]
    assert all("consumed 0.4" in e and "throughput" not in e for e in errors), errors


def test_a_linger_head_fails_on_latency_at_rate_annotated_on_its_line(tmp_path, monkeypatch, capsys):
    # the head: no rule knows linger.ms 5 -> 100, flat out it costs nothing, at rate every record waits
    code, errors, payload, head, _ = run_check(tmp_path, monkeypatch, capsys,
                                               {PRODUCER: ("linger.ms=5\n", "linger.ms=100\n")}, 1.0, None, 4.0)
    decisions = {d["metric"]: d for d in payload["scenarios"][0]["decisions"]}
    assert (code, payload["verdict"]) == (1, "regression"), payload["reasons"]
    assert decisions["throughput"]["outcome"] != "regression"
    assert decisions["p99_at_rate"]["outcome"] == "regression"
    assert len(errors) == 1, errors
    assert errors[0].startswith(f"::error file={PRODUCER},line={line_of(head / PRODUCER, 'linger.ms=100')},"
                                "title=kcliff%3A measured regression::producer linger.ms 5 -> 100: "), errors
    assert re.search(r"p99_at_rate 4\.\d\dx", errors[0]) and "throughput" not in errors[0], errors[0]
    assert "latency at rate: base and head at 1,229 records/s (1.2 MB/s)" in payload["notes"]


def test_a_head_that_cannot_hold_the_rate_is_a_cliff_at_rate(tmp_path, monkeypatch, capsys):
    code, errors, payload, _, _ = run_check(tmp_path, monkeypatch, capsys,
                                            {PRODUCER: ("linger.ms=5\n", "linger.ms=100\n")}, 1.0, None, 1.0,
                                            head_held=False)
    assert (code, payload["verdict"]) == (1, "cliff"), payload["reasons"]
    assert "head could not hold the fixed rate that base held: a cliff at rate" in payload["scenarios"][0]["notes"]
    assert len(errors) == 1 and "linger.ms 5 -> 100" in errors[0], errors


def self_test_of(tmp_path, monkeypatch, edits, *extra: str) -> list[str]:
    """The scenario ids kcliff check hands to its self-test for this head (default options, then `extra`)."""
    base, head = pull_request(tmp_path, edits)
    asked: list[list[str]] = []

    def measure(args, self_test, pair, version, upgrade=None, *_):
        asked.append([s.id for s in self_test])
        return synthetic_doc(1.0, read_factor=1.0)
    monkeypatch.setattr(check, "measure", measure)
    cli.main(["check", "--base", str(base), "--head", str(head), "--json", str(tmp_path / "v.json"), *extra])
    return asked[0]


def test_a_consumer_only_head_measures_no_producer_canary(tmp_path, monkeypatch):
    # it judges the consumer's MB/s and end-to-end latency at rate: the read and latency canaries vouch for
    # those; batching-off and flush-1 vouch for the producer's throughput, which it does not judge
    consumer = self_test_of(tmp_path / "c", monkeypatch, {CONSUMER: ("max.poll.records=500\n",
                                                                    "max.poll.records=500\n" + SLOW_FETCH)})
    assert consumer == ["reference", "consumer-fetch-1", "linger-500"]
    producer = self_test_of(tmp_path / "p", monkeypatch, {PRODUCER: ("linger.ms=5", "linger.ms=100")})
    assert producer == ["reference", "batching-off", "flush-1", "linger-500"]
    # canaries asked for by name are measured as asked
    asked = self_test_of(tmp_path / "a", monkeypatch, {CONSUMER: ("max.poll.records=500\n",
                                                                 "max.poll.records=500\n" + SLOW_FETCH)},
                         "--canaries", "flush-1")
    assert asked == ["reference", "flush-1", "consumer-fetch-1", "linger-500"]

"""`kcliff check` end to end on a real cluster, on temporary copies of the Strimzi example repo: a
head setting flush=1 in the Kafka resource's spec.kafka.config fails with its annotation on that
line of that document, and a head changing settings that do not move throughput (the Kafka
resource's log.segment.bytes, a KafkaTopic's retention.ms) raises no false alarm."""

import json
import shutil
from pathlib import Path

import pytest
from conftest import ROOT, run_kcliff
from repo_files import line_of

from tests.commands.test_check_real import NEEDS_ROOT, capped_benign_check, result_file  # the same checks

EXAMPLE = ROOT / "examples" / "strimzi-repo"
KAFKA, TOPICS = "kafka.yaml", "topics.yaml"
# The flush=1 head is a cliff by its rule whatever the figures say (a rule's cliff outranks every
# measured outcome, an inconclusive canary too): so no canary, one reference run and one short round,
# measured only to show the head's Kafka resource applies on a real cluster, flat out only (--no-rate). About 65 s on the loaded
# 2-core machine (a second round added 15-30 s, --prime 0 saved nothing). 3,000 records at least: a
# flush=1 head sends about a tenth as fast on the emulated disk, so its runs outlast the 2 s stretch.
BRIEF = ["--records", "3000", "--repeats", "1", "--canaries", "", "--rounds", "1", "--run-seconds", "2",
         "--prime", "5", "--no-rate", "--format", "github"]


def copies(example: Path, tmp_path: Path) -> tuple[Path, Path]:
    """Base and head: two copies of an example repo, the head a checkout of its own."""
    base, head = tmp_path / "base", tmp_path / "head"
    shutil.copytree(example, base)
    shutil.copytree(example, head)
    (head / ".git").mkdir()  # the head's checkout: annotations name files relative to it
    return base, head


@pytest.fixture
def repos(tmp_path: Path) -> tuple[Path, Path]:
    return copies(EXAMPLE, tmp_path)


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert text.count(old) == 1, old
    path.write_text(text.replace(old, new))


def check_fails_on_line(base: Path, head: Path, workdir: Path, tmp_path: Path, file: str, needle: str,
                        rule: str) -> dict[str, dict]:
    """`kcliff check` (BRIEF) of base against head fails with one error annotation of `rule` on the
    head's line of `file` holding `needle`, and a measured cliff verdict matching only that rule on
    that line; the measured scenarios by id."""
    out = tmp_path / "verdict.json"
    done = run_kcliff("check", "--base", str(base), "--head", str(head), *BRIEF, "--json", str(out),
                      "--workdir", str(workdir), timeout=600)
    assert done.returncode == 1, done.stderr[-3000:]
    line = line_of(head / file, needle)
    annotations = [a for a in done.stdout.splitlines()
                   if a.startswith(f"::error file={file},line={line},title=kcliff%3A {rule}::")]
    assert len(annotations) == 1, done.stdout
    result = json.loads(out.read_text())
    assert result["verdict"] == "cliff" and result["measured"], result["reasons"]
    assert [(m["rule"], m["line"]) for m in result["rule_matches"]] == [(rule, line)]
    return {e["id"]: e for e in json.loads(Path(result_file(done)).read_text())["scenarios"]}


@pytest.mark.kafka
def test_flush_1_in_the_kafka_resource_fails_on_its_line(repos, shared_cluster, tmp_path):
    base, head = repos
    edit(head / KAFKA, "      num.io.threads: 8\n", "      num.io.threads: 8\n      log.flush.interval.messages: 1\n")
    measured = check_fails_on_line(base, head, shared_cluster, tmp_path, KAFKA, "log.flush.interval.messages: 1",
                                   "flush-every-message")
    assert measured["head"]["applied"]["broker"]["log.flush.interval.messages"] == 1
    assert measured["head"]["runs"] and measured["base"]["runs"]


@pytest.mark.kafka
@NEEDS_ROOT
def test_a_benign_change_of_the_kafka_resource_and_a_topic_is_no_false_alarm(repos, tmp_path):
    """log.segment.bytes 1 GiB -> 512 MiB (a check writes far less than a segment) and the measured
    topic's retention.ms 7 -> 3 days change nothing a producer feels: a pass where bytes bind, measured
    flat out (tests/commands/test_check_real.py, capped_benign_check). It passed in all four checks here,
    throughput 1.013x [0.99-1.03] in one, 88 s."""
    base, head = repos
    edit(head / KAFKA, "log.segment.bytes: 1073741824", "log.segment.bytes: 536870912")
    edit(head / TOPICS, "retention.ms: 604800000", "retention.ms: 259200000")
    # flat out only: the point is the resource's settings applying; latency at rate has its own test
    done, result = capped_benign_check(base, head, tmp_path, "--no-rate")
    assert result["measured"]
    applied = json.loads(Path(result_file(done)).read_text())
    head_sc = next(e for e in applied["scenarios"] if e["id"] == "head")
    assert head_sc["applied"]["broker"]["log.segment.bytes"] == 536870912, head_sc["applied"]
    assert head_sc["applied"]["topic"]["retention.ms"] == 259200000

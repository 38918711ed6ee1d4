"""`kcliff check` end to end on a real cluster, on temporary copies of the Terraform example repo: a
head adding "flush.messages" = "1" to the measured topic's config map (kafka_topic.orders, chosen
by the repo's kcliff.yaml) fails with its annotation on that line of topics.tf, and the head was
measured with that topic config applied, beside the MSK configuration's broker settings."""

import json
import shutil
from pathlib import Path

import pytest
from conftest import ROOT, run_kcliff
from repo_files import line_of

from tests.commands.test_check_strimzi_real import BRIEF, edit, result_file

EXAMPLE = ROOT / "examples" / "terraform-repo"
TOPICS = "topics.tf"


@pytest.fixture
def repos(tmp_path: Path) -> tuple[Path, Path]:
    base, head = tmp_path / "base", tmp_path / "head"
    shutil.copytree(EXAMPLE, base)
    shutil.copytree(EXAMPLE, head)
    (head / ".git").mkdir()  # the head's checkout: annotations name files relative to it
    return base, head


@pytest.mark.kafka
def test_flush_1_in_a_kafka_topic_config_fails_on_its_tf_line(repos, shared_cluster, tmp_path):
    base, head = repos
    edit(head / TOPICS, '    "segment.bytes"          = "536870912" # 512 MiB\n',
         '    "segment.bytes"          = "536870912" # 512 MiB\n    "flush.messages"         = "1"\n')
    out = tmp_path / "verdict.json"
    done = run_kcliff("check", "--base", str(base), "--head", str(head), *BRIEF, "--json", str(out),
                      "--workdir", str(shared_cluster), timeout=600)
    assert done.returncode == 1, done.stderr[-3000:]
    line = line_of(head / TOPICS, '"flush.messages"')
    rule = [a for a in done.stdout.splitlines() if a.startswith(f"::error file={TOPICS},line={line},title=kcliff%3A "
                                                                 "topic-flush-every-message::")]
    assert len(rule) == 1, done.stdout
    result = json.loads(out.read_text())
    assert result["verdict"] == "cliff" and result["measured"], result["reasons"]
    assert [(m["rule"], m["line"]) for m in result["rule_matches"]] == [("topic-flush-every-message", line)]
    measured = {e["id"]: e for e in json.loads(Path(result_file(done)).read_text())["scenarios"]}
    head_applied, base_applied = measured["head"]["applied"], measured["base"]["applied"]
    assert head_applied["topic"]["flush.messages"] == 1 and "flush.messages" not in base_applied["topic"]
    assert head_applied["topic"]["partitions"] == 12 and head_applied["topic"]["segment.bytes"] == 536870912
    assert head_applied["broker"]["num.network.threads"] == 5  # from the MSK configuration's heredoc
    assert measured["head"]["runs"] and measured["base"]["runs"]

"""campaign.yml run for real under nektos/act: two shards measured on the compose cluster and
merged into one results file and report; then the same campaign with one shard's artifact missing
(act runs only shard 1 of the matrix, as when a runner is lost), whose merge must fail in one
clear sentence."""

from __future__ import annotations

import json

import pytest
from workflow_runner import STANDIN_IMAGE, GitHub

pytestmark = [pytest.mark.workflows, pytest.mark.docker, pytest.mark.kafka]

INPUTS = {"suite": "tests/data/suites/campaign-small.yaml", "shards": "2", "records": "4000", "repeats": "1",
          "prime": "5"}


@pytest.fixture(scope="module")
def campaign(tmp_path_factory: pytest.TempPathFactory, docker_engine: str) -> GitHub:
    github = GitHub(tmp_path_factory.mktemp("campaign"))
    github.kcliff()
    return github


def _run(github: GitHub, matrix: list[str] = ()):
    work = github.root / "work" / "kcliff" / "kcliff"
    return github.act(work, ".github/workflows/campaign.yml", "workflow_dispatch", {"inputs": INPUTS},
                      inputs=INPUTS, variables=STANDIN_IMAGE, matrix=matrix)


def test_two_shards_merge_into_one_results_file_and_report(campaign: GitHub, tmp_path) -> None:
    run = _run(campaign)
    assert run.returncode == 0, run.explain()
    assert run.job_results("measure") == ["success", "success"], run.explain()
    merged = json.loads((run.artifacts / "campaign-results" / "results.json").read_text())
    assert {e["id"] for e in merged["scenarios"]} == {"reference", "linger-10", "batch-32k"}
    assert len(merged["shards"]) == 2
    assert (run.artifacts / "campaign-results" / "report" / "index.html").exists()
    assert list((run.artifacts / "campaign-shard-1" / ".kcliff" / "runs").iterdir()), "the perf logs were not kept"


def test_a_campaign_with_a_shard_missing_fails_to_merge_in_one_sentence(campaign: GitHub) -> None:
    run = _run(campaign, matrix=["shard:1"])
    assert run.job_results("measure") == ["success"], run.explain()
    assert run.returncode != 0 and run.job_result("merge") == "failure", run.explain()
    log = run.output("merge")
    assert "shard 2" in log and "missing" in log, log
    assert "Traceback" not in log

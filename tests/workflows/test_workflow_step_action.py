"""The step action (action.yml at the repository root) run for real under nektos/act, as a config
repository's own job uses it: `uses: <owner>/kcliff@<sha>`, mapped to this checkout the way GitHub
fetches an action at a pin. The caller is the example docs/workflows.md shows
(tests/data/workflows/step-action.yml), on pull requests of a repository made from
examples/config-repo. Needs no Docker: the check's head changes nothing measured, so no cluster starts.
"""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

import pytest
from workflow_runner import CALLER_WORKFLOW, ROOT, GitHub

pytestmark = [pytest.mark.workflows]

STEP_ACTION_CALLER = ROOT / "tests" / "data" / "workflows" / "step-action.yml"
SERVER = "kafka/brokers/server.properties"


def caller_workflow(sha: str) -> str:
    """The documented caller, pinned to the kcliff under test; its check on local JVMs (compose, the
    default, would set up Docker, which a head that measures nothing never uses)."""
    text = STEP_ACTION_CALLER.read_text().replace("<owner>/kcliff@<40-char sha> # <version>", f"kcliff/kcliff@{sha} # v0")
    assert text.count(f"kcliff/kcliff@{sha}") == 2, "the caller should use the action twice (lint, check)"
    return text.replace("          mode: check\n", "          mode: check\n          backend: local\n")


@pytest.fixture(scope="module")
def github(tmp_path_factory: pytest.TempPathFactory) -> GitHub:
    return GitHub(tmp_path_factory.mktemp("step-action"))


@pytest.fixture(scope="module")
def kcliff(github: GitHub) -> tuple[Path, str]:
    return github.kcliff()


def pull_request(github: GitHub, kcliff: tuple[Path, str], name: str, change: dict[str, tuple[str, str]], number: int):
    kcliff_clone, sha = kcliff
    work, event = github.config_pull_request(f"acme/{name}", caller_workflow(sha), change, number)
    started = time.monotonic()
    run = github.act(work, CALLER_WORKFLOW, "pull_request", event, local={f"kcliff/kcliff@{sha}": kcliff_clone})
    print(f"act run of {name}: {time.monotonic() - started:.0f} s")
    return run, work


def test_lint_fails_a_cliff_on_its_line_and_writes_the_summary(github, kcliff) -> None:
    run, work = pull_request(github, kcliff, "cliff", {SERVER: ("compression.type=producer",
                             "compression.type=producer\nlog.flush.interval.messages=1")}, 3)
    assert run.returncode != 0 and run.job_result("lint") == "failure", run.explain()
    line = next(i for i, text in enumerate((work / SERVER).read_text().splitlines(), 1)
                if text.startswith("log.flush.interval.messages"))
    errors = [a for a in run.annotations() if a.file]
    assert [(a.file, a.line) for a in errors] == [(SERVER, line)], run.annotations()
    assert "log.flush.interval.messages" in errors[0].message
    summary = run.summary("lint")
    assert summary.startswith("### kcliff lint") and "1 error(s)" in summary, summary
    assert run.job_result("check") is None, "check needs lint"


def test_a_head_that_measures_nothing_passes_without_a_cluster_and_sets_the_outputs(github, kcliff) -> None:
    run, _ = pull_request(github, kcliff, "comment", {SERVER: ("# Broker settings of", "# The broker settings of")}, 4)
    assert run.returncode == 0, run.explain()
    assert run.job_result("lint") == "success" and run.job_result("check") == "success", run.explain()
    assert not run.annotations(), run.annotations()
    assert "0 error(s)" in run.summary("lint")
    assert "nothing measured changed" in run.summary("check"), run.summary("check")
    output = run.output("check")
    assert "kcliff check: pass (exit 0)" in output, run.explain()
    # the verdict JSON the output verdict-json names, as the caller's step printed it
    printed = re.search(r'^\{\n.*?^\}$', output, re.S | re.M)
    assert printed, output
    verdict = json.loads(printed.group(0))
    assert verdict["schema"] == "kcliff.verdict" and verdict["verdict"] == "pass" and verdict["measured"] is False

"""config-check.yml run for real under nektos/act, called exactly as the README's caller workflow
calls it, on pull requests of a config repository made from examples/config-repo.

Heads: one that sets log.flush.interval.messages=1 (a cliff rule: lint fails on its line), one whose
regression no rule knows (batch.size 65536 -> 4096, measured at 0.16x), and a benign one (a
retention change, which kcliff does not measure).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from workflow_runner import CALLER_WORKFLOW, ROOT, GitHub

# The two heads lint fails start no cluster and need no Docker, so `make test` runs them on the shared
# cores; the two whose check job runs (its compose backend sets up Docker) are marked where they stand.
pytestmark = [pytest.mark.workflows]

CONFIG = "kafka"
CALLER = "acme/kafka-config"
SERVER = f"{CONFIG}/brokers/server.properties"
PRODUCER = f"{CONFIG}/producers/app-producer.properties"
# sized for a test: the deepest canary only, few rounds. batch.size 65536 -> 8192 on the JSON events a
# config repo sends (lz4) read 0.31x [0.20-0.46] in 4 rounds on compose, p = 0.0015 against the 0.0042
# it is held to, with 30-43% run-to-run noise, and needed 6 rounds (a 490 s test). 4096 (the smallest
# size the batch-tiny rule leaves alone) read 0.16x and 0.145x in 4 rounds, p = 0.0005 and 0.0002 (398 and
# 395 s); 5 rounds (one look, a degree of freedom more) for the noise CI has shown on compose.
# One self-test round: the canaries sat far below their bounds (batching-off 0.03-0.055x of 0.5).
SMALL = {"records": '"4000"', "rounds": '"5"', "repeats": '"1"', "canaries": "batching-off", "prime": '"5"'}


def caller_workflow(sha: str) -> str:
    """The README's caller workflow, pointed at the kcliff under test, with the test's sizes added."""
    readme = (ROOT / "README.md").read_text()
    block = re.search(r"```yaml\n(name: kafka config\n.*?)```", readme, re.S)
    assert block, "README has no caller workflow block"
    text = block.group(1).replace("<owner>/kcliff", "kcliff/kcliff").replace("<40-char sha>", sha)
    text = re.sub(r"config-path: \S+", f"config-path: {CONFIG}", text)
    extra = "".join(f"      {k}: {v}\n" for k, v in SMALL.items())
    return text.rstrip("\n") + "\n" + extra


def line_of(path: Path, text: str) -> int:
    return next(i for i, line in enumerate(path.read_text().splitlines(), 1) if line.startswith(text))


@pytest.fixture(scope="module")
def github(tmp_path_factory: pytest.TempPathFactory) -> GitHub:
    return GitHub(tmp_path_factory.mktemp("config-check"))


@pytest.fixture(scope="module")
def kcliff(github: GitHub) -> tuple[Path, str]:
    return github.kcliff()


def pull_request(github: GitHub, kcliff: tuple[Path, str], name: str, change: dict[str, tuple[str, str]],
                 number: int, workflow: str | None = None):
    """A caller repository whose PR NUMBER changes FILE: (old line, new line); returns (act run, head clone)."""
    kcliff_clone, sha = kcliff
    work, event = github.config_pull_request(f"acme/{name}", workflow or caller_workflow(sha), change, number, CONFIG)
    run = github.act(work, CALLER_WORKFLOW, "pull_request", event,
                     local={f"kcliff/kcliff@{sha}": kcliff_clone, **github.standin_map(kcliff_clone)})
    return run, work


def test_a_cliff_fails_on_its_line_in_the_callers_repository(github, kcliff) -> None:
    run, work = pull_request(github, kcliff, "flush", {SERVER: ("compression.type=producer",
                             "compression.type=producer\nlog.flush.interval.messages=1")}, 7)
    assert run.returncode != 0 and run.job_result("lint") == "failure", run.explain()
    errors = [a for a in run.annotations() if a.file]
    assert [(a.file, a.line) for a in errors] == [(SERVER, line_of(work / SERVER, "log.flush.interval.messages"))], errors
    assert run.job_result("check") is None, "the measured check must not run after lint found a cliff"


@pytest.mark.docker
@pytest.mark.kafka
@pytest.mark.usefixtures("docker_engine")
def test_a_regression_no_rule_knows_fails_on_the_changed_line_with_its_ratios(github, kcliff) -> None:
    run, work = pull_request(github, kcliff, "batch", {PRODUCER: ("batch.size=65536", "batch.size=4096")}, 8)
    assert run.job_result("lint") == "success", run.explain()
    assert run.returncode != 0 and run.job_result("check") == "failure", run.explain()
    errors = [a for a in run.annotations() if a.file == PRODUCER]
    assert [a.line for a in errors] == [line_of(work / PRODUCER, "batch.size")], run.explain()
    assert re.search(r"throughput 0\.\d+x", errors[0].message), errors[0].message
    comment = next((github.record / "comments").glob("8-*.md")).read_text()
    assert "regression" in comment.lower()
    assert "kcliff config check" in run.summary("check")
    runs = run.artifacts / f"kcliff-check-{run.run_id}" / ".kcliff-work" / "runs"
    assert any(p.is_file() for p in runs.rglob("*")), "the measurements' logs were left out of the artifact"


@pytest.mark.docker
@pytest.mark.kafka
@pytest.mark.usefixtures("docker_engine")
def test_a_benign_head_passes_and_the_comment_is_written_fresh(github, kcliff) -> None:
    run, _ = pull_request(github, kcliff, "retention", {SERVER: ("log.retention.hours=168",
                          "log.retention.hours=336")}, 9)
    assert run.returncode == 0, run.explain()
    assert run.job_result("lint") == "success" and run.job_result("check") == "success", run.explain()
    assert not [a for a in run.annotations() if a.file], run.annotations()
    calls = [c for c in run.recorded("sticky-pull-request-comment") if c["number"] == "9"]
    assert len(calls) == 1 and "nothing measured changed" in calls[0]["body"], calls
    earlier = [c["body"] for c in run.recorded("sticky-pull-request-comment") if c["number"] != "9"]
    assert all(body not in calls[0]["body"] for body in earlier), "the comment carries another PR's verdict"


def test_a_kcliff_ref_drifted_from_the_pin_fails_on_the_pins_line(github, kcliff) -> None:
    """Dependabot moves the `@` pin and leaves `with:` alone: a kcliff-ref left behind must fail loudly
    (the caller's pin alone is enough; kcliff-ref is optional)."""
    _, sha = kcliff
    left_behind = sha[::-1]  # another commit's sha (a sha of digits only would read as a YAML number)
    drifted = caller_workflow(sha) + f"      kcliff-ref: {left_behind}\n"
    run, work = pull_request(github, kcliff, "drift", {}, 10, drifted)
    assert run.returncode != 0 and run.job_result("lint") == "failure", run.explain()
    errors = [a for a in run.annotations() if a.file]
    pin_line = line_of(work / CALLER_WORKFLOW, "    uses: kcliff/kcliff/.github/workflows/config-check.yml@")
    assert [(a.file, a.line) for a in errors] == [(CALLER_WORKFLOW, pin_line)], run.annotations()
    assert f"kcliff-ref {left_behind} differs from this pin {sha}" in errors[0].message
    assert run.job_result("check") is None

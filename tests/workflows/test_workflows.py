"""The GitHub Actions workflows: actionlint passes on every one, and a policy check enforces the
security rules (docs/compose.md, "Workflows"):

  permissions  a `permissions:` block on every workflow (granting no write) and on every job;
               never write-all/read-all
  pr-target    no `pull_request_target` workflow that checks out or runs the pull request's code
  forks        in workflows a pull request can trigger (pull_request, pull_request_target,
               workflow_call), a job on anything but a GitHub-hosted runner carries a fork guard
               (`github.event.pull_request.head.repo.full_name == github.repository`), so fork
               code never reaches a self-hosted runner
  pages        a workflow that publishes to Pages (deploy-pages, upload-pages-artifact,
               github-action-benchmark with auto-push, a push to gh-pages) has a concurrency
               group that is not cancelled in progress
  pinning      every third-party action (and reusable workflow from another repository) is pinned
               to a full 40-character commit SHA, with the version in a trailing comment
  injection    no `${{ ... }}` expression inside a `run:` script (or github-script's `script:`):
               values reach scripts through `env:`

The checker is tested on small bad workflows first, so the policy test can fail.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from ruamel.yaml import YAML

ROOT = Path(__file__).resolve().parents[2]
WORKFLOWS = sorted((ROOT / ".github" / "workflows").glob("*.yml"))
ACTIONLINT = ROOT / ".venv" / "bin" / "actionlint"

GITHUB_HOSTED = re.compile(r"^(ubuntu|windows|macos)-[A-Za-z0-9.-]+$")
PINNED = re.compile(r"^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+(/[^@]+)?@[0-9a-f]{40}$")
PINNED_LINE = re.compile(r"uses:\s*['\"]?[^'\"\s]+@[0-9a-f]{40}['\"]?\s+#\s*v\d")
FORK_GUARDS = ("github.event.pull_request.head.repo.full_name == github.repository",
               "github.event.pull_request.head.repo.fork == false")
PR_TRIGGERS = {"pull_request", "pull_request_target", "workflow_call"}
PR_CODE = ("github.event.pull_request.head", "github.head_ref", "refs/pull/")
PAGES_ACTIONS = ("actions/deploy-pages", "actions/upload-pages-artifact", "peaceiris/actions-gh-pages")


# -- the policy checker ---------------------------------------------------------------------------

def load(text: str) -> dict[str, Any]:
    """YAML 1.2 (so `on:` stays a string key, unlike PyYAML's YAML 1.1 boolean)."""
    return YAML(typ="safe").load(text)


def triggers(workflow: dict[str, Any]) -> set[str]:
    on = workflow.get("on") or {}
    if isinstance(on, str):
        return {on}
    return set(on)


def steps(workflow: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    return [(job_id, step) for job_id, job in (workflow.get("jobs") or {}).items()
            for step in job.get("steps") or []]


def _grants_write(permissions: Any) -> bool:
    if isinstance(permissions, str):
        return permissions == "write-all"
    return any(v == "write" for v in (permissions or {}).values())


def check_permissions(workflow: dict[str, Any]) -> list[str]:
    found = []
    if "permissions" not in workflow:
        found.append("permissions: the workflow has no top-level permissions block")
    elif _grants_write(workflow["permissions"]) or workflow["permissions"] == "read-all":
        found.append("permissions: the top-level block grants more than read; grant writes per job")
    for job_id, job in (workflow.get("jobs") or {}).items():
        if "permissions" not in job:
            found.append(f"permissions: job {job_id} has no permissions block")
        elif job["permissions"] in ("write-all", "read-all"):
            found.append(f"permissions: job {job_id} uses {job['permissions']}")
    return found


def check_pull_request_target(workflow: dict[str, Any]) -> list[str]:
    if "pull_request_target" not in triggers(workflow):
        return []
    found = []
    for job_id, step in steps(workflow):
        text = " ".join(str(v) for v in [step.get("run", ""), *(step.get("with") or {}).values()])
        if any(marker in text for marker in PR_CODE):
            found.append(f"pr-target: job {job_id} touches the pull request's code under pull_request_target")
    return found


def _guarded(condition: str) -> bool:
    """The job's `if:` requires the pull request to come from this repository; an `||` may only add
    the case where the event is no pull request at all."""
    condition = condition.replace("${{", "").replace("}}", "").strip()
    disjuncts = [d.strip().strip("()") for d in condition.split("||")]
    if not any(g in condition for g in FORK_GUARDS):
        return False
    return all(any(g in d for g in FORK_GUARDS) or re.fullmatch(r"github\.event_name != '[a-z_]+'", d)
               for d in disjuncts)


def _github_hosted(runs_on: Any) -> bool:
    return isinstance(runs_on, str) and bool(GITHUB_HOSTED.match(runs_on))


def check_forks(workflow: dict[str, Any]) -> list[str]:
    if not triggers(workflow) & PR_TRIGGERS:
        return []
    found = []
    for job_id, job in (workflow.get("jobs") or {}).items():
        if "uses" in job or _github_hosted(job.get("runs-on")):
            continue  # a called workflow is checked on its own; GitHub-hosted runners are throwaway
        if not _guarded(str(job.get("if", ""))):
            found.append(f"forks: job {job_id} runs on {job.get('runs-on')!r} without a fork guard in `if:`")
    return found


def publishes_pages(workflow: dict[str, Any]) -> list[str]:
    jobs = []
    for job_id, step in steps(workflow):
        uses = str(step.get("uses", ""))
        auto_push = str((step.get("with") or {}).get("auto-push", "false")).lower() == "true"
        if (uses.startswith(PAGES_ACTIONS) or (uses.startswith("benchmark-action/github-action-benchmark") and auto_push)
                or re.search(r"git push\b.*gh-pages", str(step.get("run", "")))):
            jobs.append(job_id)
    return sorted(set(jobs))


def _serialised(concurrency: Any) -> bool:
    if isinstance(concurrency, str):
        return bool(concurrency)
    return isinstance(concurrency, dict) and bool(concurrency.get("group")) and \
        concurrency.get("cancel-in-progress") in (None, False, "false")


def check_pages(workflow: dict[str, Any]) -> list[str]:
    found = []
    for job_id in publishes_pages(workflow):
        if not (_serialised(workflow.get("concurrency")) or _serialised(workflow["jobs"][job_id].get("concurrency"))):
            found.append(f"pages: job {job_id} publishes to Pages without a concurrency group "
                         "(cancel-in-progress false)")
    return found


def check_pinning(workflow: dict[str, Any], text: str) -> list[str]:
    found = []
    references = [(job_id, str(job["uses"])) for job_id, job in (workflow.get("jobs") or {}).items() if "uses" in job]
    references += [(job_id, str(step["uses"])) for job_id, step in steps(workflow) if "uses" in step]
    for job_id, ref in references:
        if ref.startswith("./"):
            continue
        if ref.startswith("docker://"):
            if "@sha256:" not in ref:
                found.append(f"pinning: job {job_id} uses {ref} without an image digest")
        elif not PINNED.match(ref):
            found.append(f"pinning: job {job_id} uses {ref}, not a full commit SHA")
    for number, line in enumerate(text.splitlines(), start=1):
        if re.search(r"uses:\s*\S+@[0-9a-f]{40}", line) and not PINNED_LINE.search(line):
            found.append(f"pinning: line {number} pins a SHA without a `# vX.Y.Z` comment")
    return found


def check_injection(workflow: dict[str, Any]) -> list[str]:
    found = []
    for job_id, step in steps(workflow):
        scripts = [step.get("run")]
        if str(step.get("uses", "")).startswith("actions/github-script"):
            scripts.append((step.get("with") or {}).get("script"))
        if any(s and "${{" in str(s) for s in scripts):
            found.append(f"injection: job {job_id} step {step.get('name') or step.get('uses') or '?'} "
                         "puts an expression into a script; pass it through env:")
    return found


def violations(text: str) -> list[str]:
    workflow = load(text)
    return (check_permissions(workflow) + check_pull_request_target(workflow) + check_forks(workflow)
            + check_pages(workflow) + check_pinning(workflow, text) + check_injection(workflow))


# -- the checker itself, on small workflows that break one rule each -------------------------------

SHA = "3d3c42e5aac5ba805825da76410c181273ba90b1"
GOOD = f"""
name: good
on:
  pull_request:
permissions: {{}}
concurrency:
  group: pages
  cancel-in-progress: false
jobs:
  lint:
    runs-on: ubuntu-24.04
    permissions:
      contents: read
    steps:
      - uses: actions/checkout@{SHA} # v7.0.1
      - env:
          TITLE: ${{{{ github.event.pull_request.title }}}}
        run: echo "$TITLE"
  measure:
    if: github.event_name == 'pull_request' && github.event.pull_request.head.repo.full_name == github.repository
    runs-on: [self-hosted, kafka]
    permissions:
      contents: read
      pages: write
      id-token: write
    steps:
      - uses: actions/deploy-pages@cd2ce8fcbc39b97be8ca5fce6e763baed58fa128 # v5.0.0
"""

BAD = {
    "permissions: the workflow has no": GOOD.replace("permissions: {}\n", ""),
    "permissions: the top-level block grants": GOOD.replace("permissions: {}\n", "permissions: write-all\n"),
    "permissions: job lint has no": GOOD.replace("    permissions:\n      contents: read\n    steps:\n      - uses: actions/checkout",
                                                 "    steps:\n      - uses: actions/checkout"),
    "pr-target": GOOD.replace("  pull_request:\n", "  pull_request_target:\n").replace(
        f"      - uses: actions/checkout@{SHA} # v7.0.1\n",
        f"      - uses: actions/checkout@{SHA} # v7.0.1\n        with:\n"
        "          ref: ${{ github.event.pull_request.head.sha }}\n"),
    "forks: job measure": GOOD.replace(
        "    if: github.event_name == 'pull_request' && github.event.pull_request.head.repo.full_name == github.repository\n", ""),
    "forks: job measure runs": GOOD.replace("    if: github.event_name == 'pull_request' &&", "    if: always() ||"),
    "pages: job measure": GOOD.replace("concurrency:\n  group: pages\n  cancel-in-progress: false\n", ""),
    "pages: job measure publishes": GOOD.replace("cancel-in-progress: false", "cancel-in-progress: true"),
    "pinning: job lint uses actions/checkout@v7": GOOD.replace(f"actions/checkout@{SHA} # v7.0.1", "actions/checkout@v7"),
    "pinning: line": GOOD.replace(f"actions/checkout@{SHA} # v7.0.1", f"actions/checkout@{SHA}"),
    "injection: job lint": GOOD.replace('run: echo "$TITLE"', 'run: echo "${{ github.event.pull_request.title }}"'),
}


def test_policy_accepts_a_good_workflow() -> None:
    assert violations(GOOD) == []


@pytest.mark.parametrize("expected", sorted(BAD))
def test_policy_catches_each_broken_rule(expected: str) -> None:
    found = violations(BAD[expected])
    assert found and all(v.startswith(expected) for v in found), found


def test_policy_allows_push_only_workflows_on_any_runner() -> None:
    text = GOOD.replace("  pull_request:\n", "  schedule:\n    - cron: '0 2 * * *'\n").replace(
        "    if: github.event_name == 'pull_request' && github.event.pull_request.head.repo.full_name == github.repository\n", "")
    assert violations(text) == []


# -- the real workflows --------------------------------------------------------------------------

def test_the_workflows_exist() -> None:
    names = {p.name for p in WORKFLOWS}
    assert {"ci.yml", "config-check.yml", "examples.yml", "nightly.yml", "campaign.yml"} <= names


@pytest.mark.parametrize("path", WORKFLOWS, ids=lambda p: p.name)
def test_workflow_follows_the_security_policy(path: Path) -> None:
    assert violations(path.read_text()) == []


def test_reusable_workflow_contract() -> None:
    workflow = load((ROOT / ".github/workflows/config-check.yml").read_text())
    inputs = workflow["on"]["workflow_call"]["inputs"]
    assert {"config-path", "runner-label", "kafka-version", "min-effect"} <= set(inputs)
    jobs = workflow["jobs"]
    assert _github_hosted(jobs["lint"]["runs-on"]) and "if" not in jobs["lint"]  # every PR, forks too
    assert jobs["check"]["needs"] == "lint" and _guarded(jobs["check"]["if"])
    # both jobs run the step action (action.yml) of the kcliff they checked out, at the pin's ref
    actions = {job: [s for s in jobs[job]["steps"] if s.get("uses") == "./.kcliff"] for job in ("lint", "check")}
    assert [s["with"]["mode"] for s in actions["lint"]] == ["lint"]
    assert [s["with"]["mode"] for s in actions["check"]] == ["check"]
    assert {"base", "head", "comment", "work-dir"} <= set(actions["check"][0]["with"])
    assert jobs["lint"]["outputs"]["kcliff-ref"] == "${{ steps.pin.outputs.ref }}"
    kcliff_checkout = next(s for s in jobs["check"]["steps"] if (s.get("with") or {}).get("path") == ".kcliff")
    assert kcliff_checkout["with"]["ref"] == "${{ needs.lint.outputs.kcliff-ref }}"
    assert any("sticky-pull-request-comment" in str(s.get("uses", "")) for s in jobs["check"]["steps"])
    examples = load((ROOT / ".github/workflows/examples.yml").read_text())
    caller = examples["jobs"]["config-check"]
    assert caller["uses"] == "./.github/workflows/config-check.yml"
    assert caller["with"]["config-path"] == "examples/config-repo"


def test_campaign_spreads_shards_and_merges() -> None:
    workflow = load((ROOT / ".github/workflows/campaign.yml").read_text())
    inputs = workflow["on"]["workflow_dispatch"]["inputs"]
    assert {"kafka-version", "suite", "space", "strength", "repeats", "records", "shards"} <= set(inputs)
    assert workflow["jobs"]["measure"]["strategy"]["matrix"]["shard"] == "${{ fromJSON(needs.plan.outputs.shards) }}"
    runs = " ".join(str(s.get("run", "")) for _, s in steps(workflow))
    assert '--shard "$SHARD/$SHARDS"' in runs and "kcliff results merge" in runs


def test_the_nightly_measures_latency_at_rate_so_its_series_are_published() -> None:
    """The nightly's suites, the dispatch default and the scheduled one alike, include a scenario measured
    at a fixed rate (the canaries' linger-500), so the reference is measured at rate beside it and the
    night publishes p99_at_rate and e2e_p99_at_rate series."""
    from kcliff.results.metrics import Workload
    from kcliff.scenario.suites import load_suites, reading_reference

    workflow = load((ROOT / ".github/workflows/nightly.yml").read_text())
    dispatched = workflow["on"]["workflow_dispatch"]["inputs"]["suites"]["default"]
    scheduled = next(s for _, s in steps(workflow) if s.get("name") == "measure the suites and the reference")
    assert f"'{dispatched}' }}}}" in scheduled["env"]["SUITES"]  # the schedule's fallback is the same suites
    measured = reading_reference(load_suites(dispatched.split()))
    assert {"linger-500", "reference"} <= {sc.id for sc in measured if Workload.RATE in sc.workloads}


# -- actionlint ----------------------------------------------------------------------------------

def _actionlint() -> str:
    found = str(ACTIONLINT) if ACTIONLINT.exists() else shutil.which("actionlint")
    if found is None:
        pytest.fail("actionlint not found: run scripts/setup-actionlint.sh (make test does)")
    return found


def test_actionlint_passes_on_every_workflow() -> None:
    done = subprocess.run([_actionlint(), "-no-color", "-oneline", *map(str, WORKFLOWS)], capture_output=True,
                          text=True, cwd=ROOT)
    assert done.returncode == 0, done.stdout + done.stderr


def test_actionlint_rejects_a_broken_workflow(tmp_path: Path) -> None:
    broken = tmp_path / "broken.yml"
    broken.write_text("on: push\njobs:\n  a:\n    runs-on: ubuntu-24.04\n    steps:\n"
                      "      - run: echo ${{ github.nonexistent.thing }}\n        shel: bash\n")
    done = subprocess.run([_actionlint(), "-no-color", "-oneline", str(broken)], capture_output=True, text=True)
    assert done.returncode == 1 and "shel" in done.stdout


# -- the workflows' own scripts, run as a runner runs them -------------------------------------------

def run_step(workflow_file: str, job: str, name: str, env: dict[str, str], cwd: Path) -> tuple[int, str, str, str]:
    """Run one `run:` step of a workflow as a runner does: `shell: bash` (the workflows' default) is
    bash -eo pipefail; a custom shell such as `python3 {0}` gets the script as a file. With
    GITHUB_STEP_SUMMARY and GITHUB_OUTPUT files. Returns (exit code, output, summary, outputs)."""
    workflow = load((ROOT / ".github/workflows" / workflow_file).read_text())
    step = next(s for s in workflow["jobs"][job]["steps"] if s.get("name") == name)
    summary, outputs = cwd / "summary.md", cwd / "outputs.txt"
    summary.write_text("")
    outputs.write_text("")
    environment = {"PATH": f"{ROOT / '.venv' / 'bin'}:/usr/bin:/bin", "HOME": str(cwd),
                   "GITHUB_STEP_SUMMARY": str(summary), "GITHUB_OUTPUT": str(outputs), "GITHUB_ACTIONS": "true",
                   **env}
    shell = step.get("shell", "bash")
    if "{0}" in shell:
        script = cwd / "step-script"
        script.write_text(step["run"])
        command = shell.replace("{0}", str(script)).split()
    else:
        assert shell == "bash", shell
        command = ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", step["run"]]
    done = subprocess.run(command, cwd=cwd, env=environment, capture_output=True, text=True, timeout=300)
    return done.returncode, done.stdout + done.stderr, summary.read_text(), outputs.read_text()


def test_campaign_shard_list(tmp_path: Path) -> None:
    code, out, _, outputs = run_step("campaign.yml", "plan", "shard list", {"SHARDS": "3"}, tmp_path)
    assert code == 0, out
    assert outputs.strip() == "shards=[1, 2, 3]"
    code, out, _, outputs = run_step("campaign.yml", "plan", "shard list", {"SHARDS": "3; rm -rf /"}, tmp_path)
    assert code != 0 and outputs == "" and "shards must be a number" in out


# -- measuring at a rig profile (scripts/run-at-profile.sh, docs/profiles.md) --------------------------

NIGHT = {"SUITES": "canaries consumer", "RECORDS": "1000", "REPEATS": "1", "PRIME": "", "CLIENT_RTT_MS": "20",
         "KAFKA_VERSION": "4.2.0"}
NIGHT_ARGS = ["--suite", "canaries", "--suite", "consumer", "--records", "1000", "--repeats", "1",
              "--client-rtt-ms", "20", "--kafka-version", "4.2.0", "--out", "results/nightly.json"]


def stub_kcliff(cwd: Path, exit_code: int = 0) -> Path:
    """The step's working directory as a checkout with a kcliff that records its argv, one argument a line."""
    (cwd / "scripts").symlink_to(ROOT / "scripts")
    stub = cwd / ".venv" / "bin" / "kcliff"
    stub.parent.mkdir(parents=True)
    stub.write_text(f'#!/bin/sh\nprintf "%s\\n" "$@" > "$PWD/argv.txt"\nexit {exit_code}\n')
    stub.chmod(0o755)
    return cwd / "argv.txt"


@pytest.mark.parametrize("profile", ["cpu-bound", ""])
def test_the_nightly_measures_cpu_bound_on_the_compose_cluster(tmp_path: Path, profile: str) -> None:
    argv = stub_kcliff(tmp_path)
    code, out, _, _ = run_step("nightly.yml", "measure", "measure the suites and the reference",
                               {**NIGHT, "PROFILE": profile}, tmp_path)
    assert code == 0, out
    assert argv.read_text().splitlines() == ["run", "--backend", "compose", "--profile", "cpu-bound", *NIGHT_ARGS]


def test_the_nightly_measures_at_a_profile_on_the_capped_local_backend_one_argument_each(tmp_path: Path) -> None:
    argv = stub_kcliff(tmp_path)
    code, out, _, _ = run_step("nightly.yml", "measure", "measure the suites and the reference",
                               {**NIGHT, "PROFILE": "aws-m5.xlarge-gp3"}, tmp_path)
    assert code == 0, out
    assert argv.read_text().splitlines() == ["run", "--backend", "local", "--profile", "aws-m5.xlarge-gp3", *NIGHT_ARGS]
    # a value is an argument, never shell text: kcliff gets it whole (and refuses it: no such profile)
    code, out, _, _ = run_step("nightly.yml", "measure", "measure the suites and the reference",
                               {**NIGHT, "PROFILE": "x; touch pwned $(touch pwned2)"}, tmp_path)
    assert code == 0, out
    assert argv.read_text().splitlines()[:5] == ["run", "--backend", "local", "--profile", "x; touch pwned $(touch pwned2)"]
    assert not (tmp_path / "pwned").exists() and not (tmp_path / "pwned2").exists()


def test_a_runner_that_is_not_root_measures_under_sudo_and_gets_its_files_back(tmp_path: Path) -> None:
    argv = stub_kcliff(tmp_path, exit_code=3)
    bin_dir = tmp_path / "stub-bin"
    bin_dir.mkdir()
    (bin_dir / "id").write_text('#!/bin/sh\necho 1001\n')
    (bin_dir / "sudo").write_text('#!/bin/sh\necho "$*" >> "$PWD/sudo.txt"\n'
                                  '[ "$1" = -E ] || exit 0\nshift\nexec "$@"\n')
    for stub in ("id", "sudo"):
        (bin_dir / stub).chmod(0o755)
    code, out, _, _ = run_step("campaign.yml", "measure", "measure this shard",
                               {"SHARD": "2", "SHARDS": "3", "KAFKA_VERSION": "4.2.0", "RECORDS": "1000",
                                "REPEATS": "1", "PRIME": "5", "PROFILE": "aws-m5.xlarge-gp3",
                                "PATH": f"{bin_dir}:/usr/bin:/bin"}, tmp_path)
    assert code == 3, out  # kcliff's own exit code
    assert argv.read_text().splitlines() == [
        "run", "--backend", "local", "--profile", "aws-m5.xlarge-gp3", "--suite", "campaign/suite.yaml", "--shard",
        "2/3", "--kafka-version", "4.2.0", "--records", "1000", "--repeats", "1", "--prime", "5", "--out",
        "results/shard-2.json"]
    calls = (tmp_path / "sudo.txt").read_text().splitlines()
    assert calls[0].startswith(f"-E env PATH={bin_dir}:/usr/bin:/bin .venv/bin/kcliff run --backend local")
    assert calls[1] == f"chown -R 1001:1001 . {tmp_path}/.cache/kcliff"


def test_the_nightly_and_the_campaign_take_a_profile_and_the_night_is_published_at_it() -> None:
    nightly = load((ROOT / ".github/workflows/nightly.yml").read_text())
    campaign = load((ROOT / ".github/workflows/campaign.yml").read_text())
    for workflow in (nightly, campaign):
        assert "profile" in workflow["on"]["workflow_dispatch"]["inputs"]
        assert all("--backend compose" not in str(s.get("run", "")) for _, s in steps(workflow))  # the script decides
    assert nightly["env"]["PROFILE"] == "${{ inputs.profile || vars.KCLIFF_NIGHTLY_PROFILE || 'cpu-bound' }}"
    publish = next(s for _, s in steps(nightly) if s.get("name") == "history, baseline comparison and kcliff's report")
    assert '--profile "$PROFILE"' in publish["run"]
    shard = next(s for _, s in steps(campaign) if s.get("name") == "measure this shard")
    assert shard["env"]["PROFILE"] == "${{ inputs.profile }}"

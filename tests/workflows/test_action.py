"""The step action (action.yml at the root) and its script (scripts/action.sh), with no runner:

  structure  actionlint reads workflows only, so action.yml is checked here: a composite action
             whose every step names its shell, whose expressions name inputs and step ids that
             exist, whose scripts take values only through env:, and whose callers (the reusable
             workflow, the documented example) pass only inputs it declares
  script     scripts/action.sh run as the action runs it: lint on the example repo and on a cliff
             (annotation on the line, report in the summary, `code` output), check's verdict for
             every exit code, a bad mode
  docs       the example in docs/workflows.md is tests/data/workflows/step-action.yml, which
             tests/workflows/test_workflow_step_action.py runs under act

The action under a real runner: tests/workflows/test_workflow_step_action.py.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.workflows.test_workflows import check_injection, check_pinning, load, violations

ROOT = Path(__file__).resolve().parents[2]
ACTION = ROOT / "action.yml"
SCRIPT = ROOT / "scripts" / "action.sh"
EXAMPLE = ROOT / "tests" / "data" / "workflows" / "step-action.yml"
EXPRESSION = re.compile(r"\$\{\{(.*?)\}\}", re.S)


def action() -> dict[str, Any]:
    return load(ACTION.read_text())


def expressions(node: Any) -> list[str]:
    """Every ${{ }} expression anywhere in NODE (strings in nested dicts and lists)."""
    if isinstance(node, dict):
        return [e for k, v in node.items() for e in expressions(k) + expressions(v)]
    if isinstance(node, list):
        return [e for v in node for e in expressions(v)]
    return [m.strip() for m in EXPRESSION.findall(node)] if isinstance(node, str) else []


# -- structure ----------------------------------------------------------------------------------

def test_action_is_composite_and_every_step_names_its_shell() -> None:
    spec = action()
    assert spec["name"] and spec["description"]
    assert spec["runs"]["using"] == "composite"
    steps = spec["runs"]["steps"]
    assert steps and all("run" in s and s.get("shell") == "bash" for s in steps), steps


def test_every_input_and_step_the_action_names_exists() -> None:
    spec = action()
    inputs, ids = set(spec["inputs"]), {s["id"] for s in spec["runs"]["steps"] if "id" in s}
    named_inputs = {m for e in expressions(spec) for m in re.findall(r"\binputs\.([\w-]+)", e)}
    named_steps = {m for e in expressions(spec) for m in re.findall(r"\bsteps\.([\w-]+)\.", e)}
    assert named_inputs <= inputs, named_inputs - inputs
    assert inputs <= named_inputs, f"inputs no step reads: {inputs - named_inputs}"
    assert named_steps <= ids, named_steps - ids
    assert all(re.fullmatch(r"steps\.kcliff\.outputs\.[\w-]+", o["value"].strip("${} ")) for o in spec["outputs"].values())


def test_action_scripts_take_values_through_env_only() -> None:
    spec = action()
    as_workflow = {"jobs": {"action": {"steps": spec["runs"]["steps"]}}}
    assert check_injection(as_workflow) == [] and check_pinning(as_workflow, ACTION.read_text()) == []
    # every variable the steps hand over is one the script reads
    script = SCRIPT.read_text()
    handed = {k for s in spec["runs"]["steps"] for k in (s.get("env") or {})}
    assert all(re.search(rf"\${{?{k}\b", script) for k in handed), [k for k in handed if k not in script]


@pytest.mark.parametrize("caller", ["config-check.yml", "step-action.yml"])
def test_callers_pass_only_inputs_the_action_declares(caller: str) -> None:
    path = ROOT / ".github/workflows" / caller if caller == "config-check.yml" else EXAMPLE
    workflow = load(path.read_text())
    uses = [s for job in workflow["jobs"].values() for s in job.get("steps", [])
            if s.get("uses") == "./.kcliff" or str(s.get("uses", "")).startswith("<owner>/kcliff@")]
    assert len(uses) == 2, uses
    declared = set(action()["inputs"])
    for step in uses:
        assert set(step.get("with") or {}) <= declared, set(step["with"]) - declared
        assert step.get("with", {}).get("mode", "lint") in ("lint", "check")


def test_shellcheck_passes_on_the_script() -> None:
    shellcheck = shutil.which("shellcheck")
    if shellcheck is None:
        pytest.skip("SKIPPED, shellcheck not installed (scripts/setup-actionlint.sh installs it)")
    done = subprocess.run([shellcheck, str(SCRIPT)], capture_output=True, text=True)
    assert done.returncode == 0, done.stdout


# -- the script, as the action runs it -----------------------------------------------------------

def run_action(command: str, env: dict[str, str], cwd: Path) -> tuple[int, str, str, str]:
    """scripts/action.sh COMMAND in CWD, with the runner's files. Returns (exit code, output,
    summary, outputs). kcliff is this checkout's .venv, where the action's own install puts it."""
    summary, outputs = cwd / "summary.md", cwd / "outputs.txt"
    summary.write_text("")
    outputs.write_text("")
    environment = {"PATH": os.environ["PATH"], "HOME": os.environ.get("HOME", str(cwd)), "GITHUB_ACTIONS": "true",
                   "GITHUB_STEP_SUMMARY": str(summary), "GITHUB_OUTPUT": str(outputs), **env}
    done = subprocess.run([str(SCRIPT), command], cwd=cwd, env=environment, capture_output=True, text=True,
                          timeout=300)
    return done.returncode, done.stdout + done.stderr, summary.read_text(), outputs.read_text()


def test_lint_passes_the_example_repo(tmp_path: Path) -> None:
    shutil.copytree(ROOT / "examples" / "config-repo", tmp_path / "kafka")
    code, out, summary, outputs = run_action("run", {"MODE": "lint", "CONFIG_PATH": "kafka"}, tmp_path)
    assert code == 0, out
    assert summary.startswith("### kcliff lint") and "0 error(s)" in summary
    assert outputs == "code=0\n"


def test_lint_fails_a_cliff_with_an_annotation_on_its_line(tmp_path: Path) -> None:
    shutil.copytree(ROOT / "examples" / "config-repo", tmp_path / "cfg")
    subprocess.run(["git", "init", "--quiet", str(tmp_path)], check=True)  # a checkout, as actions/checkout leaves
    server = tmp_path / "cfg" / "brokers" / "server.properties"
    lines = server.read_text().splitlines() + ["log.flush.interval.messages=1"]
    server.write_text("\n".join(lines) + "\n")
    code, out, summary, outputs = run_action("run", {"MODE": "lint", "CONFIG_PATH": "cfg"}, tmp_path)
    assert code == 1, out
    annotation = next(line for line in out.splitlines() if line.startswith("::error "))
    # relative to the repository root, where GitHub looks for it
    assert f"file=cfg/brokers/server.properties,line={len(lines)}" in annotation
    assert "::error" not in summary and "log.flush.interval.messages" in summary
    assert outputs == "code=1\n"


@pytest.mark.parametrize("code, fail_on_inconclusive, expected", [
    ("0", "true", 0), ("1", "true", 1), ("2", "false", 1), ("3", "true", 1), ("3", "false", 0)])
def test_verdict(tmp_path: Path, code: str, fail_on_inconclusive: str, expected: int) -> None:
    result, out, _, _ = run_action("verdict", {"CODE": code, "FAIL_ON_INCONCLUSIVE": fail_on_inconclusive}, tmp_path)
    assert result == expected, out
    assert ("::warning" in out) == (code == "3") and ("::error" in out) == (code in ("1", "2"))


def test_check_without_base_and_head_is_bad_input(tmp_path: Path) -> None:
    code, out, _, outputs = run_action("run", {"MODE": "check", "BASE_DIR": "", "HEAD_DIR": "head"}, tmp_path)
    assert code == 2 and "::error title=kcliff::mode check needs the inputs base and head" in out, out
    assert outputs == ""


def sudo_stubs(tmp_path: Path, passwordless: bool) -> Path:
    """A runner user that is not root (`id -u` says 1001) and a sudo that records its arguments, then runs
    the command (passwordless) or refuses `-n` as sudo does where it would ask for a password."""
    bin_dir = tmp_path / "stub-bin"
    bin_dir.mkdir()
    (bin_dir / "id").write_text('#!/bin/sh\necho 1001\n')
    refuse = "" if passwordless else '[ "$1" != -n ] || exit 1\n'
    (bin_dir / "sudo").write_text(f'#!/bin/sh\necho "$*" >> "{tmp_path}/sudo.txt"\n{refuse}'
                                  '[ "$1" = -E ] || exit 0\nshift\nexec "$@"\n')
    for stub in ("id", "sudo"):
        (bin_dir / stub).chmod(0o755)
    return bin_dir


@pytest.mark.parametrize("passwordless, at_rate", [(True, "true"), (True, "false"), (False, "true")])
def test_check_runs_as_root_where_sudo_allows_and_hands_its_files_back(tmp_path: Path, passwordless: bool,
                                                                      at_rate: str) -> None:
    # a profile in kcliff.yaml caps links and disks, which needs root; a GitHub-hosted runner is not root
    # but has passwordless sudo. Base and head the same: the check passes with no cluster.
    for side in ("base", "head"):
        shutil.copytree(ROOT / "examples" / "config-repo", tmp_path / side)
    bin_dir, work, cache = sudo_stubs(tmp_path, passwordless), tmp_path / "work", tmp_path / "cache"
    code, out, summary, outputs = run_action("run", {
        "MODE": "check", "BASE_DIR": "base", "HEAD_DIR": "head", "BACKEND": "local", "KAFKA_VERSION": "4.2.0",
        "MIN_EFFECT": "0.10", "ROUNDS": "4", "REPEATS": "1", "FAIL_ON_INCONCLUSIVE": "true", "AT_RATE": at_rate,
        "COMMENT": "comment.md", "WORK_DIR": str(work), "KCLIFF_CACHE": str(cache),
        "PATH": f"{bin_dir}:{os.environ['PATH']}"}, tmp_path)
    assert code == 0 and "code=0\nverdict=pass\n" in outputs, out
    calls = (tmp_path / "sudo.txt").read_text().splitlines()
    assert calls[0] == "-n true", calls
    if not passwordless:  # kcliff runs as the runner's user, and says what needs root if anything does
        assert calls == ["-n true"], calls
        return
    assert calls[1].startswith(f"-E env PATH={bin_dir}:") and " check --base base --head head " in calls[1], calls
    assert (" --no-rate " in calls[1]) == (at_rate == "false"), calls  # at-rate: false measures flat out only
    assert calls[2:] == [f"chown -R 1001:1001 {work} {cache} comment.md"], calls


@pytest.mark.parametrize("command", ["install", "run"])
def test_an_unknown_mode_is_bad_input(tmp_path: Path, command: str) -> None:
    code, out, _, _ = run_action(command, {"MODE": "measure"}, tmp_path)
    assert code == 2 and "mode must be lint or check" in out, out


# -- the documented example ----------------------------------------------------------------------

def test_docs_show_the_tested_example() -> None:
    """docs/workflows.md's step-action example is the caller tests/workflows/test_workflow_step_action.py runs."""
    docs = (ROOT / "docs" / "workflows.md").read_text()
    assert f"```yaml\n{EXAMPLE.read_text()}```" in docs


def test_the_example_follows_the_security_policy() -> None:
    text = EXAMPLE.read_text().replace("<owner>/kcliff@<40-char sha> # <version>", f"acme/kcliff@{'a' * 40} # v1.0.0")
    assert violations(text) == []

"""Keeping pins current (docs/workflows.md, "Keeping pins current"):

  dependabot  .github/dependabot.yml is a version 2 config whose ecosystems cover the pinned actions
              (workflows and the root action.yml) and pyproject.toml, in directories that exist
  pin step    config-check.yml runs the kcliff its caller pinned (`uses: .../config-check.yml@<ref>`):
              kcliff-ref may be left out, and one that drifted from the pin fails the job, annotated
              on the pin's line (run here as the runner runs it; under act in
              tests/workflows/test_workflow_config_check.py)
  examples    the documented step-action example pins each action where the workflows do
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.workflows.test_workflows import load, run_step

ROOT = Path(__file__).resolve().parents[2]
SHA, OTHER = "1" * 40, "2" * 40
CALLER = ".github/workflows/kafka-config.yml"
USES = re.compile(r"uses:\s*([\w.-]+/[\w.-]+)@([0-9a-f]{40})\s+#\s*(\S+)")


# -- dependabot ----------------------------------------------------------------------------------

def dependabot() -> dict:
    return load((ROOT / ".github" / "dependabot.yml").read_text())


def test_dependabot_config_is_version_2_with_a_schedule_per_ecosystem() -> None:
    config = dependabot()
    assert config["version"] == 2
    for update in config["updates"]:
        assert set(update) <= {"package-ecosystem", "directory", "directories", "schedule", "groups", "commit-message",
                               "open-pull-requests-limit", "versioning-strategy", "labels", "ignore", "allow"}, update
        assert update["schedule"]["interval"] in ("daily", "weekly", "monthly"), update
        for group in (update.get("groups") or {}).values():
            assert group["patterns"], group


def test_dependabot_covers_the_pinned_actions_and_the_python_dependencies() -> None:
    updates = {u["package-ecosystem"]: u for u in dependabot()["updates"]}
    assert set(updates) == {"github-actions", "pip"}
    # "/" is where Dependabot reads both .github/workflows/ and a root action.yml
    assert updates["github-actions"]["directory"] == "/"
    assert (ROOT / ".github" / "workflows").is_dir() and (ROOT / "action.yml").is_file()
    assert USES.search((ROOT / ".github/workflows/ci.yml").read_text()), "no pinned action for it to keep current"
    pip = updates["pip"]
    assert (ROOT / pip["directory"].lstrip("/") / "pyproject.toml").is_file()
    # the dependencies are ranges: only a release outside one is worth a pull request
    assert pip["versioning-strategy"] == "increase-if-necessary"


# -- the reusable workflow's pin step --------------------------------------------------------------

def pin(tmp_path: Path, caller: str | None, kcliff_ref: str = "", kcliff_repository: str = "",
        workflow_ref: str = f"acme/cfg/{CALLER}@refs/pull/7/merge") -> tuple[int, str, str]:
    """config-check.yml's `kcliff pin` step on a caller repository (checked out at repo/, as the lint
    job does) whose CALLER workflow holds CALLER_TEXT. Returns (exit code, output, outputs)."""
    if caller is not None:
        (tmp_path / "repo" / CALLER).parent.mkdir(parents=True)
        (tmp_path / "repo" / CALLER).write_text(caller)
    env = {"GITHUB_REPOSITORY": "acme/cfg", "GITHUB_WORKFLOW_REF": workflow_ref,
           "KCLIFF_REF": kcliff_ref, "KCLIFF_REPOSITORY": kcliff_repository}
    code, out, _, outputs = run_step("config-check.yml", "lint", "kcliff pin", env, tmp_path)
    return code, out, outputs


def caller(*pins: str, extra: str = "") -> str:
    jobs = "".join(f"  check{i}:\n    uses: {p}\n    with:\n      config-path: kafka\n{extra}"
                   for i, p in enumerate(pins))
    return f"name: kafka config\non:\n  pull_request:\njobs:\n{jobs}"


def line_of(text: str, needle: str) -> int:
    return next(i for i, line in enumerate(text.splitlines(), 1) if needle in line)


def test_the_pin_says_which_kcliff_runs(tmp_path: Path) -> None:
    code, out, outputs = pin(tmp_path, caller(f"kc/kcliff/.github/workflows/config-check.yml@{SHA} # v1.2.0"))
    assert code == 0, out
    assert outputs == f"repository=kc/kcliff\nref={SHA}\n"


def test_a_kcliff_ref_equal_to_the_pin_is_accepted(tmp_path: Path) -> None:
    code, out, outputs = pin(tmp_path, caller(f"'kc/kcliff/.github/workflows/config-check.yml@{SHA}'"), SHA, "kc/kcliff")
    assert code == 0, out
    assert outputs == f"repository=kc/kcliff\nref={SHA}\n"


def test_a_kcliff_ref_drifted_from_the_pin_fails_on_the_pins_line(tmp_path: Path) -> None:
    """What Dependabot leaves behind: the `@` pin moved, `kcliff-ref:` not."""
    text = caller(f"kc/kcliff/.github/workflows/config-check.yml@{SHA} # v1.3.0", extra=f"      kcliff-ref: {OTHER}\n")
    code, out, outputs = pin(tmp_path, text, OTHER)
    assert code == 1 and outputs == "", out
    line = line_of(text, "config-check.yml@")
    assert f"::error file={CALLER},line={line},title=kcliff pin::kcliff-ref {OTHER} differs from this pin {SHA}" in out


def test_a_kcliff_repository_other_than_the_pins_fails(tmp_path: Path) -> None:
    code, out, _ = pin(tmp_path, caller(f"kc/kcliff/.github/workflows/config-check.yml@{SHA}"), "", "fork/kcliff")
    assert code == 1 and "kcliff-repository fork/kcliff differs from this pin's repository kc/kcliff" in out, out


def test_two_different_pins_in_one_caller_fail_on_the_second(tmp_path: Path) -> None:
    text = caller(f"kc/kcliff/.github/workflows/config-check.yml@{SHA}", f"kc/kcliff/.github/workflows/config-check.yml@{OTHER}")
    code, out, _ = pin(tmp_path, text)
    assert code == 1 and f"line={line_of(text, OTHER)}," in out, out


def test_a_local_call_gives_its_ref_and_repository(tmp_path: Path) -> None:
    """As examples.yml calls it: `uses: ./.github/workflows/config-check.yml` has no pin to read."""
    examples = (ROOT / ".github/workflows/examples.yml").read_text()
    assert "uses: ./.github/workflows/config-check.yml" in examples and "kcliff-ref:" in examples
    code, out, outputs = pin(tmp_path, examples, SHA, "kc/kcliff")
    assert code == 0 and outputs == f"repository=kc/kcliff\nref={SHA}\n", out


def test_without_a_caller_file_kcliff_ref_is_taken_from_the_callers_repository(tmp_path: Path) -> None:
    """No GITHUB_WORKFLOW_REF (a runner that does not set it): the inputs say which kcliff runs."""
    code, out, outputs = pin(tmp_path, None, SHA, workflow_ref="")
    assert code == 0 and outputs == f"repository=acme/cfg\nref={SHA}\n", out


def test_no_pin_and_no_kcliff_ref_cannot_tell_which_kcliff_runs(tmp_path: Path) -> None:
    code, out, outputs = pin(tmp_path, caller("./.github/workflows/config-check.yml"))
    assert code == 1 and outputs == "" and "cannot tell which kcliff to run" in out and "kcliff-ref" in out, out


# -- the documented step-action example ------------------------------------------------------------

def pins(text: str) -> dict[str, set[str]]:
    found: dict[str, set[str]] = {}
    for name, sha, _ in USES.findall(text):
        found.setdefault(name, set()).add(sha)
    return found


@pytest.mark.parametrize("example", ["tests/data/workflows/step-action.yml", "README.md", "docs/workflows.md"])
def test_examples_pin_each_action_where_the_workflows_do(example: str) -> None:
    """Dependabot moves the workflows' pins; an example left behind fails here instead of going stale."""
    ours: dict[str, set[str]] = {}
    for path in (ROOT / ".github" / "workflows").glob("*.yml"):
        for name, shas in pins(path.read_text()).items():
            ours.setdefault(name, set()).update(shas)
    assert all(len(shas) == 1 for shas in ours.values()), {n: s for n, s in ours.items() if len(s) > 1}
    for name, shas in pins((ROOT / example).read_text()).items():
        assert shas == ours.get(name), f"{example} pins {name} at {shas}, the workflows at {ours.get(name)}"

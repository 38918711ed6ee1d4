"""A real install: the sdist and wheel built from this checkout (uv build: the sdist, then the wheel
from it, as pip builds one), the wheel installed by pip into a fresh virtualenv outside the
checkout, and kcliff run from a directory outside it, finding its scenarios, cliff rules and
baselines in the package. No Kafka; pip fetches the dependencies from PyPI or its cache."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import zipfile
from dataclasses import dataclass
from pathlib import Path

import pytest
from conftest import ROOT
from kcliff import resources
from kcliff.scenario import suites as scenario

SHIPPED = {"scenarios": "scenarios", "compose": "compose", "reports": "reports", "baselines": "baselines"}


@dataclass(frozen=True)
class Installed:
    wheel: Path
    venv: Path
    work: Path  # outside the checkout: where kcliff runs

    def run(self, *args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
        return subprocess.run([str(self.venv / "bin" / "kcliff"), *args], cwd=cwd or self.work,
                              capture_output=True, text=True, timeout=120, env=clean_env())


def clean_env() -> dict[str, str]:
    """The environment without this checkout's virtualenv or import path."""
    return {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME")}


def check(argv: list[str | Path], **kwargs: object) -> str:
    done = subprocess.run([str(a) for a in argv], capture_output=True, text=True, env=clean_env(), **kwargs)
    assert done.returncode == 0, f"{argv}:\n{done.stdout}\n{done.stderr}"
    return done.stdout


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Installed:
    root = tmp_path_factory.mktemp("install")
    assert ROOT not in root.parents
    # the virtualenv inside some git repository, as in a project's .venv: kcliff must not take its HEAD
    check(["git", "init", "--quiet", root])
    check(["git", "-C", root, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "--quiet", "--allow-empty",
           "-m", "not kcliff"])
    uv = check([ROOT / "scripts" / "setup-uv.sh", sys.executable]).strip()
    check([uv, "build", "--quiet", "--out-dir", root / "dist", ROOT], timeout=600)
    wheel = next((root / "dist").glob("kcliff-*.whl"))
    check([sys.executable, "-m", "venv", root / "venv"], timeout=300)
    # --no-compile: byte-compiling pandas and scipy took half of this test's minute
    check([root / "venv" / "bin" / "pip", "install", "--quiet", "--disable-pip-version-check", "--no-compile", wheel],
          timeout=900)
    (root / "work").mkdir()
    return Installed(wheel, root / "venv", root / "work")


def tracked(under: str) -> list[str]:
    return check(["git", "-C", ROOT, "ls-files", under]).split()


def test_the_wheel_holds_every_module_and_every_shipped_file(installed: Installed) -> None:
    names = set(zipfile.ZipFile(installed.wheel).namelist())
    want = {p.removeprefix("runner/") for p in tracked("runner/kcliff")}
    for directory, inside in SHIPPED.items():
        want |= {f"kcliff/shipped/{inside}/{p.removeprefix(directory + '/')}" for p in tracked(directory)
                 if not p.startswith("compose/image/")}  # the stand-in image is built by setup, not shipped
    assert sorted(want - names) == []


def test_the_installed_kcliff_runs_from_its_virtualenv_not_the_checkout(installed: Installed) -> None:
    out = check([installed.venv / "bin" / "python", "-c",
                 "import kcliff, kcliff.resources as r; print(kcliff.__file__); print(r.checkout()); "
                 "print(r.shipped('scenarios'))"], cwd=installed.work)
    module, checkout, scenarios = out.splitlines()
    assert Path(module).is_relative_to(installed.venv) and checkout == "None"
    assert Path(scenarios).is_relative_to(installed.venv) and Path(scenarios, "cliffs.yaml").is_file()


def test_the_revision_is_the_installers_record_never_a_surrounding_repositorys(installed: Installed) -> None:
    python = installed.venv / "bin" / "python"
    revision = [python, "-c", "from kcliff.measure import environment; print(environment.git_revision())"]
    assert check(revision, cwd=installed.work).strip() == "unknown"  # a wheel file records no commit
    record = next(installed.venv.glob("lib/python*/site-packages/kcliff-*.dist-info/direct_url.json"))
    kept = record.read_text()
    try:  # what pip writes for `pip install git+https://...@sha` (PEP 610)
        record.write_text(json.dumps({"url": "https://example.invalid/kcliff.git",
                                      "vcs_info": {"vcs": "git", "commit_id": "ab" * 20}}))
        assert check(revision, cwd=installed.work).strip() == "ab" * 20
    finally:
        record.write_text(kept)


def test_lint_finds_a_cliff_on_its_line_outside_the_checkout(installed: Installed) -> None:
    repo = installed.work / "config-repo"
    shutil.copytree(ROOT / "examples" / "config-repo", repo)
    check(["git", "init", "--quiet", repo])  # a config repo of its own: annotation paths are relative to it
    clean = installed.run("lint", "--format", "github", ".", cwd=repo)
    assert clean.returncode == 0, clean.stdout + clean.stderr
    assert "::error" not in clean.stdout

    server = repo / "brokers" / "server.properties"
    server.write_text(server.read_text() + "log.flush.interval.messages=1\n")
    line = len(server.read_text().splitlines())
    cliff = installed.run("lint", "--format", "github", ".", cwd=repo)
    assert cliff.returncode == 1, cliff.stdout + cliff.stderr
    errors = [e for e in cliff.stdout.splitlines() if e.startswith("::error")]
    assert len(errors) == 1, cliff.stdout
    assert errors[0].startswith(f"::error file=brokers/server.properties,line={line},title=kcliff flush-every-message")
    assert "canary flush-1" in errors[0]  # the rule's evidence, from the shipped cliffs.yaml and baselines


def test_scenarios_show_reads_the_shipped_suites(installed: Installed) -> None:
    done = installed.run("scenarios", "show")
    assert done.returncode == 0, done.stderr
    rows = done.stdout.splitlines()
    assert rows[0].split()[0] == "id" and rows[1].startswith("pw-01")
    assert len(rows) == 1 + len(scenario.load_file(str(ROOT / "scenarios" / "pairwise.yaml")))


def test_in_the_checkout_its_own_directories_are_used() -> None:
    """make setup's editable install: an edited scenario counts without a reinstall."""
    assert resources.checkout() == ROOT
    assert [resources.shipped(d) for d in resources.DIRECTORIES] == [ROOT / d for d in resources.DIRECTORIES]

"""`kcliff lint` on config repos in the shapes teams keep (tests/data/real-repos, described in its
README.md): each repo's expect.yaml says the exit code, the rule findings that must appear on their
file:line, and the notes that must (a note on a file or line holding given substrings).

Every key in these repos is one Kafka accepts at the repo's release, so lint may refuse none of them:
a run that exits 2 fails with what lint said.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from conftest import ROOT, run_kcliff
from ruamel.yaml import YAML

REPOS = ROOT / "tests" / "data" / "real-repos"
NAMES = sorted(p.name for p in REPOS.iterdir() if (p / "expect.yaml").is_file())


def _expect(repo: Path) -> dict[str, Any]:
    data = YAML(typ="safe").load((repo / "expect.yaml").read_text())
    assert isinstance(data, dict) and set(data) <= {"exit_code", "findings", "notes"}, f"{repo}/expect.yaml"
    return data


def _relative(path: str, repo: Path) -> str:
    """A path from lint's JSON (relative to the checkout, as annotations name files) relative to `repo`."""
    return (ROOT / path).resolve().relative_to(repo.resolve()).as_posix()


def _where(at: str) -> tuple[str, int | None]:
    path, _, line = at.partition(":")
    return path, int(line) if line else None


def test_corpus_is_complete():
    """The shapes of #26, #44 and #45 are all here, so a repo cannot drop out of the parametrization unseen."""
    assert NAMES == ["aiven-terraform", "app-producer", "argo-bitnami", "bitnami-kraft", "compacted-topics",
                     "compose-kraft-isolated", "confluent-cloud-stack", "confluent-platform-7", "connect-platform",
                     "consumer-services", "cp-all-in-one", "cp-ansible-inventory", "cp-helm-charts", "digitalocean-kafka", "flux-bitnami",
                     "k8s-statefulset", "kraft-production", "librdkafka-services", "make-kafka-slow", "msk-default",
                     "multi-env", "strimzi-37", "zookeeper-era"]


@pytest.mark.parametrize("name", NAMES)
def test_lint_reads_real_repo(name: str):
    repo = REPOS / name
    expect = _expect(repo)
    done = run_kcliff("lint", str(repo), "--format", "json", "--verbose", timeout=120)
    assert done.returncode == expect["exit_code"], (
        f"kcliff lint {name} exited {done.returncode}, expected {expect['exit_code']}:\n"
        f"{done.stderr.strip()}\n{done.stdout[-3000:]}")
    report = json.loads(done.stdout)

    found = {(f["rule"], _relative(f["path"], repo), f["line"]) for f in report["findings"] if f["kind"] == "cliff"}
    missing = [w for w in expect.get("findings") or [] if (w["rule"], *_where(w["at"])) not in found]
    assert not missing, f"findings missing: {missing}\nlint found: {sorted(found, key=str)}"

    notes = [(_relative(n["path"], repo), n["line"], n["message"]) for n in report.get("notes", [])]

    def noted(want: dict[str, Any]) -> bool:
        path, line = _where(want["at"]) if "at" in want else (None, None)
        return any((path is None or path == p) and (line is None or line == ln)
                   and all(s in message for s in want["contains"]) for p, ln, message in notes)

    absent = [w for w in expect.get("notes") or [] if not noted(w)]
    assert not absent, f"notes missing: {absent}\nlint noted:\n" + "\n".join(f"{p}:{ln}: {m}" for p, ln, m in notes)

"""Runs the repository's own workflow files under nektos/act, this machine as the runner.

A test builds a small "GitHub" (bare repositories under KCLIFF_ACT_GITHUB), runs one workflow with
an event payload, and asserts on what act reports (job results, annotations, job summaries) and on
what the stand-in actions under tests/actions recorded. Every third-party action a workflow pins is
mapped to its stand-in with act's --local-repository; every `run:` step, `if:`, `needs:`, matrix,
input and env runs for real. Artifacts go through act's own artifact server.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import socket
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
ACT = ROOT / ".venv" / "bin" / "act"
STANDINS = ROOT / "tests" / "actions"
EXAMPLE_REPO = ROOT / "examples" / "config-repo"
CALLER_WORKFLOW = ".github/workflows/kafka-config.yml"  # a config repository's workflow in these tests
RUNNER_LABEL = "ubuntu-24.04"
# the real action -> its stand-in folder under tests/actions
STANDIN_FOR = {
    "actions/checkout": "checkout", "actions/setup-python": "setup-python", "actions/setup-java": "setup-java",
    "actions/upload-artifact": "upload-artifact", "actions/download-artifact": "download-artifact",
    "actions/upload-pages-artifact": "upload-pages-artifact", "actions/deploy-pages": "deploy-pages",
    "marocchino/sticky-pull-request-comment": "sticky-pull-request-comment",
    "benchmark-action/github-action-benchmark": "github-action-benchmark",
}
USES = re.compile(r"uses:\s*['\"]?([\w.-]+/[\w.-]+)(?:/[^@\s'\"]*)?@([0-9a-f]{40})")
ACT_TIMEOUT_S = 1500
# A workflow's own setup builds the stand-in when this variable names it (no registry here). It stands in for
# apache/kafka's contract kcliff uses: KAFKA_* turned into server.properties by Kafka's own KafkaDockerWrapper,
# the data volume, the broker as PID 1 (docs/compose.md). Not stood in for: Alpine's musl and Temurin 21 (the
# shim's musl build is proven in tests/backends/test_capped_resources.py), the image's CDS archive.
STANDIN_IMAGE = {"KCLIFF_KAFKA_IMAGE": "kcliff/kafka-standin"}


def git(*args: str, cwd: Path) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True).stdout.strip()


def commit_all(repo: Path, message: str) -> str:
    git("add", "-A", cwd=repo)
    git("-c", "user.name=test", "-c", "user.email=test@localhost", "commit", "--quiet", "--allow-empty", "-m",
        message, cwd=repo)
    return git("rev-parse", "HEAD", cwd=repo)


def kcliff_tree() -> list[str]:
    """The files of this checkout as a clone would have them, with uncommitted edits."""
    listed = git("ls-files", "-z", "--cached", "--others", "--exclude-standard", cwd=ROOT)
    return [f for f in listed.split("\0") if f and (ROOT / f).is_file()]


@dataclass
class Annotation:
    level: str
    message: str
    file: str | None
    line: int | None
    title: str | None
    job: str


@dataclass
class ActRun:
    returncode: int
    events: list[dict[str, Any]]
    log: str
    record: Path
    artifacts: Path  # act's artifact server's folder of this run: <artifact name>/<files>
    run_id: str      # GITHUB_RUN_ID of this run

    def job_results(self, job_id: str) -> list[str]:
        """The results of a job's runs (one per matrix entry); empty when it never ran."""
        return [e["jobResult"] for e in self.events if e.get("jobID") == job_id and "jobResult" in e]

    def job_result(self, job_id: str) -> str | None:
        results = self.job_results(job_id)
        return None if not results else ("failure" if "failure" in results else results[-1])

    def step_result(self, job_id: str, step: str) -> str | None:
        found = [e["stepResult"] for e in self.events if e.get("jobID") == job_id and "stepResult" in e
                 and e.get("stage") == "Main" and step in str(e.get("step"))]
        return found[-1] if found else None

    def annotations(self, level: str = "error") -> list[Annotation]:
        found = []
        for e in self.events:
            if e.get("command") == level:
                kv = e.get("kvPairs") or {}
                found.append(Annotation(level, e.get("arg", ""), kv.get("file"),
                                        int(kv["line"]) if kv.get("line") else None, kv.get("title"), e.get("jobID", "")))
        return found

    def summary(self, job_id: str) -> str:
        return "".join(e.get("content", "") for e in self.events
                       if e.get("command") == "summary" and e.get("jobID") == job_id)

    def output(self, job_id: str) -> str:
        return "".join(e.get("msg", "") for e in self.events if e.get("jobID") == job_id and e.get("raw_output"))

    def recorded(self, action: str) -> list[dict[str, Any]]:
        path = self.record / f"{action}.jsonl"
        return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []

    def explain(self) -> str:
        """The tail of act's log, for an assertion message."""
        return "\n".join(self.log.splitlines()[-60:])


@dataclass
class GitHub:
    """Bare repositories standing in for github.com, and act runs against them."""
    root: Path
    runs: int = 0
    record: Path = field(init=False)
    pages: Path = field(init=False)

    def __post_init__(self) -> None:
        self.record = self.root / "record"
        self.pages = self.root / "pages"
        (self.root / "github").mkdir(parents=True, exist_ok=True)

    def bare(self, full_name: str) -> Path:
        return self.root / "github" / f"{full_name}.git"

    def repository(self, full_name: str, files: dict[str, str | Path], message: str = "initial") -> Path:
        """A working clone of a new repository FULL_NAME holding FILES (text, or a file to copy), pushed
        as main; its origin names github.com so act reads the repository's name from it."""
        work = self.root / "work" / full_name
        work.mkdir(parents=True)
        git("init", "--quiet", "-b", "main", cwd=work)
        self.write(work, files)
        commit_all(work, message)
        bare = self.bare(full_name)
        git("init", "--quiet", "--bare", str(bare), cwd=self.root)
        git("push", "--quiet", str(bare), "main", cwd=work)
        git("symbolic-ref", "HEAD", "refs/heads/main", cwd=bare)
        git("remote", "add", "origin", f"https://github.com/{full_name}.git", cwd=work)
        return work

    @staticmethod
    def write(work: Path, files: dict[str, str | Path]) -> None:
        for name, content in files.items():
            target = work / name
            target.parent.mkdir(parents=True, exist_ok=True)
            if isinstance(content, Path):
                shutil.copy2(content, target)
            else:
                target.write_text(content)

    def push(self, work: Path, full_name: str, branch: str) -> None:
        git("push", "--quiet", "--force", str(self.bare(full_name)), f"HEAD:refs/heads/{branch}", cwd=work)

    def config_pull_request(self, full_name: str, workflow: str, change: dict[str, tuple[str, str]], number: int,
                            config: str = "kafka", extra: dict[str, str] | None = None) -> tuple[Path, dict[str, Any]]:
        """A config repository FULL_NAME made from examples/config-repo (under CONFIG) and the EXTRA files
        (path under CONFIG: text) with WORKFLOW as .github/workflows/kafka-config.yml, and its pull request
        NUMBER, which changes each FILE: (old text, new text). Returns the clone at the head and the
        pull_request event."""
        files: dict[str, str | Path] = {f"{config}/{p.relative_to(EXAMPLE_REPO)}": p
                                        for p in EXAMPLE_REPO.rglob("*") if p.is_file()}
        files.update({f"{config}/{path}": text for path, text in (extra or {}).items()})
        files[CALLER_WORKFLOW] = workflow
        work = self.repository(full_name, files)
        base = git("rev-parse", "HEAD", cwd=work)
        for path, (old, new) in change.items():
            target = work / path
            text = target.read_text()
            assert old in text, f"{path} has no {old!r}"
            target.write_text(text.replace(old, new))
        head = commit_all(work, f"PR {number}")
        self.push(work, full_name, f"pr-{number}")
        owner, name = full_name.split("/")
        repo = {"full_name": full_name, "name": name, "owner": {"login": owner}}
        event = {"action": "opened", "number": number, "repository": repo,
                 "pull_request": {"number": number, "head": {"sha": head, "ref": f"pr-{number}", "repo": repo},
                                  "base": {"sha": base, "ref": "main", "repo": repo}}}
        return work, event

    def kcliff(self, full_name: str = "kcliff/kcliff") -> tuple[Path, str]:
        """This checkout (with uncommitted edits) as the repository FULL_NAME; returns (clone, sha)."""
        work = self.repository(full_name, {f: ROOT / f for f in kcliff_tree()}, "kcliff under test")
        return work, git("rev-parse", "HEAD", cwd=work)

    def act(self, work: Path, workflow: str, event_name: str, event: dict[str, Any], *,
            inputs: dict[str, str] | None = None, variables: dict[str, str] | None = None,
            local: dict[str, Path] | None = None, matrix: list[str] = ()) -> ActRun:
        """Run WORKFLOW (a path in WORK) for EVENT_NAME with EVENT as its payload."""
        self.runs += 1
        run_dir = self.root / f"act-{self.runs}"
        run_dir.mkdir()
        event_path = run_dir / "event.json"
        event_path.write_text(json.dumps(event))
        command = [str(ACT), event_name, "-W", workflow, "-e", str(event_path), "--json",
                   "-P", f"{RUNNER_LABEL}=-self-hosted", "--no-skip-checkout", "--container-daemon-socket", "-",
                   "--action-cache-path", str(run_dir / "cache"), "--artifact-server-path", str(run_dir / "artifacts"),
                   "--artifact-server-addr", "127.0.0.1", "--artifact-server-port", str(free_port()),
                   "--concurrent-jobs", "1", "--env", f"GITHUB_RUN_ID={1000 + self.runs}",
                   "--env", f"GITHUB_WORKFLOW_REF={self.workflow_ref(work, workflow, event)}"]
        for spec, directory in {**self.standin_map(work), **(local or {})}.items():
            command += ["--local-repository", f"{spec}={directory}"]
        for key, value in (inputs or {}).items():
            command += ["--input", f"{key}={value}"]
        for key, value in (variables or {}).items():
            command += ["--var", f"{key}={value}"]
        for entry in matrix:
            command += ["--matrix", entry]
        env = {**os.environ, "KCLIFF_STANDINS": str(STANDINS), "KCLIFF_ACT_GITHUB": str(self.root / "github"),
               "KCLIFF_ACT_RECORD": str(self.record), "KCLIFF_ACT_PAGES": str(self.pages)}
        for leak in ("GITHUB_ACTIONS", "GITHUB_STEP_SUMMARY", "GITHUB_OUTPUT", "GITHUB_ENV", "GITHUB_PATH"):
            env.pop(leak, None)  # when the tests themselves run in GitHub Actions
        done = subprocess.run(command, cwd=work, env=env, capture_output=True, text=True, timeout=ACT_TIMEOUT_S)
        events = []
        for line in done.stdout.splitlines():
            try:
                events.append(json.loads(line))
            except ValueError:
                continue
        (run_dir / "act.log").write_text(done.stdout + done.stderr)
        run_id = str(1000 + self.runs)
        return ActRun(done.returncode, events, done.stdout + done.stderr, self.record,
                      run_dir / "artifacts" / run_id, run_id)

    def workflow_ref(self, work: Path, workflow: str, event: dict[str, Any]) -> str:
        """GITHUB_WORKFLOW_REF as GitHub sets it on every runner (the top-level workflow, even inside a
        reusable one), e.g. acme/cfg/.github/workflows/x.yml@refs/pull/7/merge; act sets none."""
        full_name = work.relative_to(self.root / "work").as_posix()
        ref = f"refs/pull/{event['number']}/merge" if "pull_request" in event else "refs/heads/main"
        return f"{full_name}/{workflow}@{ref}"

    @staticmethod
    def standin_map(work: Path) -> dict[str, Path]:
        """owner/name@sha -> stand-in folder, for every third-party action pinned in WORK's workflows."""
        found = {}
        for path in (work / ".github" / "workflows").glob("*.yml"):
            for name, sha in USES.findall(path.read_text()):
                if name in STANDIN_FOR:
                    found[f"{name}@{sha}"] = STANDINS / STANDIN_FOR[name]
        return found


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


"""The bad-input corpus (tests/bad_inputs/): every file through the real CLI gives exit 2, one
message naming the file (and line where there is one) and what would be valid, no traceback, and
nothing written, started or executed. A repo holding five bad inputs gets five findings in one run,
in text, GitHub annotations, JSON and SARIF (#26, "every finding at once")."""

import json
import shutil
import subprocess
from pathlib import Path
from urllib.parse import unquote

import pytest
from conftest import ROOT, run_kcliff

from tests.lint.test_lint_formats import sarif_validator, valid

CORPUS = Path(__file__).parents[1] / "bad_inputs"
PWNED = Path("/tmp/kcliff-pwned")

# (corpus path, command, expected line or None, words the message must contain)
RUN, LINT, SPACE, HISTORY, RESUME, COMPARE = "run", "lint", "space", "history", "resume", "compare"
CASES = [
    ("scenario/malformed.yaml", RUN, 3, "invalid YAML"),
    ("scenario/empty.yaml", RUN, None, "file is empty"),
    ("scenario/binary.yaml", RUN, None, "not UTF-8"),
    ("scenario/top-level-list.yaml", RUN, 1, "expected a mapping"),
    ("scenario/unknown-key.yaml", RUN, 3, "did you mean 'linger.ms'"),
    ("scenario/wrong-scope.yaml", RUN, 3, "is a producer setting"),
    ("scenario/wrong-type.yaml", RUN, 3, "expected an integer"),
    ("scenario/negative.yaml", RUN, 3, "out of range"),
    ("scenario/out-of-range.yaml", RUN, 3, "<= 1000"),
    ("scenario/float-for-int.yaml", RUN, 3, "expected an integer"),
    ("scenario/bool-for-int.yaml", RUN, 3, "expected an integer"),
    ("scenario/duplicate-ids.yaml", RUN, 4, "duplicate scenario id 'a'"),
    ("scenario/duplicate-key.yaml", RUN, 4, "duplicate key"),
    ("scenario/invariant-acks.yaml", RUN, 3, "fixed at 'all'"),
    ("scenario/invariant-min-isr.yaml", RUN, 3, "fixed at 2"),
    ("scenario/bad-id.yaml", RUN, 1, "scenario id must match"),
    ("scenario/shell-semicolon.yaml", RUN, 3, "expected an integer"),
    ("scenario/shell-subst.yaml", RUN, 3, "expected one of none, gzip"),
    ("scenario/shell-backticks.yaml", RUN, 3, "expected one of uncompressed"),
    ("scenario/shell-newline.yaml", RUN, 3, "expected one of none"),
    ("scenario/shell-in-key.yaml", RUN, 3, "unknown producer setting"),
    ("scenario/cliff-bad-metric.yaml", RUN, 4, "cliff.metric must be one of"),
    ("scenario/empty-suite.yaml", RUN, 1, "non-empty list"),
    ("space/unknown-setting.yaml", SPACE, 3, "did you mean 'log.flush.interval.messages'"),
    ("space/duplicate-level.yaml", SPACE, 6, "duplicate level 5"),
    ("space/empty-levels.yaml", SPACE, 4, "empty level list"),
    ("space/constraint-unknown-value.yaml", SPACE, 14, "7 is not a level"),
    ("space/forbids-everything.yaml", SPACE, 12, "forbid every combination"),
    ("repo-unknown-key", LINT, 3, "did you mean 'log.flush.interval.messages'"),
    ("repo-negative", LINT, 2, "out of range"),
    ("repo-binary-props", LINT, None, "NUL bytes"),
    ("repo-shell-value", LINT, 2, "expected a 32-bit integer"),
    ("repo-subst-value", LINT, 1, "expected one of"),
    ("repo-topics-malformed", LINT, 3, "invalid YAML"),
    ("repo-topics-wrong-type", LINT, 2, "expected an integer"),
    ("repo-topics-empty", LINT, None, "file is empty"),
    ("results/truncated.json", HISTORY, 1, "truncated"),
    ("results/newer-schema.json", HISTORY, None, "newer than this kcliff reads"),
    ("results/not-results.json", HISTORY, None, "not a kcliff results file"),
    ("results/binary.json", HISTORY, None, "cannot read results file"),
    ("results/truncated.json", RESUME, 1, "truncated"),
    ("results/newer-schema.json", RESUME, None, "newer than this kcliff reads"),
    ("results/newer-schema.json", COMPARE, None, "newer than this kcliff reads"),
]


def command(kind: str, path: Path, tmp: Path) -> list[str]:
    return {
        RUN: ["run", "--suite", str(path), "--workdir", str(tmp / "work")],
        LINT: ["lint", str(path)],
        SPACE: ["scenarios", "generate", "--space", str(path), "--out", str(tmp / "out.yaml")],
        HISTORY: ["history", "add", str(path), "--dir", str(tmp / "history")],
        RESUME: ["run", "--resume", str(path), "--workdir", str(tmp / "work")],
        COMPARE: ["compare", str(path), "--baseline", str(tmp / "baselines")],
    }[kind]


def assert_refused(done, path: Path, line: int | None, words: str) -> None:
    assert done.returncode == 2, (done.returncode, done.stdout, done.stderr)
    assert "Traceback" not in done.stderr + done.stdout
    names = {str(path), str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else str(path)}
    assert any((f"{n}:{line}:" if line else f"{n}:") in done.stderr for n in names), done.stderr
    assert words in done.stderr, done.stderr
    assert len(done.stderr.strip().splitlines()) <= 2, done.stderr


@pytest.mark.parametrize("rel,kind,line,words", CASES, ids=[f"{k}:{r}" for r, k, _, _ in CASES])
def test_corpus_case_is_refused_cleanly(rel, kind, line, words, tmp_path):
    PWNED.unlink(missing_ok=True)
    path = CORPUS / rel
    done = run_kcliff(*command(kind, path, tmp_path), timeout=120)
    named = next(path.iterdir()) if path.is_dir() else path  # a repo directory holds one bad file
    assert_refused(done, named, line, words)
    assert not PWNED.exists(), "a value reached a shell"
    assert not (tmp_path / "work").exists() and not (tmp_path / "out.yaml").exists()
    assert not (tmp_path / "history").exists() or not any((tmp_path / "history").rglob("*.json"))


def test_huge_scenario_file_is_refused_without_reading_it_all(tmp_path):
    path = tmp_path / "huge.yaml"
    path.write_text("id: a\ndescription: " + "x" * (5 * 1024 * 1024) + "\n")
    assert_refused(run_kcliff("run", "--suite", str(path), "--workdir", str(tmp_path / "w")), path, None,
                   "kcliff reads YAML files up to")


def test_huge_properties_file_is_refused(tmp_path):
    repo = tmp_path / "repo"
    repo.mkdir()
    path = repo / "producer.properties"
    path.write_text("".join(f"# filler {i}\n" for i in range(600_000)) + "linger.ms=5\n")
    done = run_kcliff("lint", str(repo))
    assert done.returncode == 2 and "Traceback" not in done.stderr and str(path) in done.stderr, done.stderr


@pytest.mark.parametrize("args,words", [
    (["run", "--records", "-5"], "expected a positive integer"),
    (["run", "--bootstrap-servers", "host;rm -rf /"], "expected host:port"),
    (["run", "--only", "no-such-canary"], "unknown scenario id(s) no-such-canary"),
    (["run", "--suite", "no-such-suite"], "unknown suite 'no-such-suite'"),
    (["run", "--shard", "3/2"], "expected i/n with 1 <= i <= n"),
    (["run", "--broker-cpus", "0;id"], "expected a CPU list"),
    (["kafka", "fetch", "--kafka-version", "4.2.0; id"], "Kafka version must look like 4.2.0"),
    (["run", "--confirm"], "no pairwise design rows in the suites canaries; add --suite pairwise"),
    (["run", "--suite", "pairwise", "--confirm", "--shard", "1/2"], "it cannot be sharded"),
    (["run", "--suite", "pairwise", "--confirm", "--confirm-rounds", "0"], "expected a positive integer"),
])
def test_bad_arguments_are_refused(args, words, tmp_path):
    workdir = ["--workdir", str(tmp_path / "w")] if args[0] == "run" else []
    done = run_kcliff(*args, *workdir, timeout=60)
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert words in done.stderr and "Traceback" not in done.stderr
    assert not (tmp_path / "w").exists()


def test_corpus_has_at_least_thirty_cases():
    assert len(CASES) >= 30
    used = {(CORPUS / rel) for rel, *_ in CASES} | {CORPUS / rel for rel in EVERY_FINDING}
    files = {p for p in CORPUS.rglob("*") if p.is_file()}
    assert all(f in used or f.parent in used for f in files), "a corpus file no case uses"


# --- every finding at once -----------------------------------------------------------------------

# corpus repo -> its bad inputs: (file, line, words of the message). Five in each, as lint must report
# them in one run: reading errors (topics.yaml) and validation errors (producer.properties) alike.
EVERY_FINDING = {
    "repo-five-bad-topics": [
        ("topics.yaml", 12, "unknown topic key 'partiton'"),
        ("topics.yaml", 17, "topic name 'payments events' is not one Kafka accepts"),
        ("topics.yaml", 20, "topic 'payments' is defined twice (first at line 4)"),
        ("topics.yaml", 23, "unknown topic key 'topic'"),
        ("topics.yaml", 23, "each topic needs a 'name'"),
    ],
    "repo-five-bad-inputs": [
        ("producer.properties", 19, "producer setting 'acks': 'everyone' is not valid: expected one of all, -1, 0, 1"),
        ("producer.properties", 28, "producer setting 'linger.ms': -10 is out of range"),
        ("producer.properties", 29, "producer setting 'compression.type': 'zstandard' is not valid: expected one of none, gzip"),
        ("producer.properties", 35, "unknown producer setting 'batch.timeout.ms'"),
        ("topics.yaml", 19, "topic name 'orders events v2' is not one Kafka accepts"),
    ],
}
CONFIG = "kafka"  # where each repo lies in its checkout


def lint(root: Path, *args: str):
    done = run_kcliff("lint", *args, CONFIG, cwd=root)
    assert done.returncode == 2 and "Traceback" not in done.stderr + done.stdout, (done.stdout, done.stderr)
    return done


def assert_every_finding(tmp_path: Path, repo: str) -> None:
    """Five bad inputs, five findings in each of text, GitHub annotations, JSON and SARIF, one run each."""
    root = tmp_path / "checkout"
    shutil.copytree(CORPUS / repo, root / CONFIG)
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    expected = EVERY_FINDING[repo]
    where = sorted((f"{CONFIG}/{name}", line) for name, line, _ in expected)

    text = lint(root)
    errors = [line.removeprefix("kcliff: error: ") for line in text.stderr.splitlines()]
    assert text.stdout == "" and len(errors) == 5, text.stderr
    assert all(any(e.startswith(f"{CONFIG}/{name}:{line}: ") and words in e for e in errors)
               for name, line, words in expected), errors

    github = lint(root, "--format", "github").stdout.splitlines()
    assert len(github) == 5 and all(a.startswith("::error file=") for a in github), github
    assert all(any(a.startswith(f"::error file={CONFIG}/{name},line={line},title=kcliff%3A bad input::") and words in a
                   for a in github) for name, line, words in expected), github

    doc = json.loads(lint(root, "--format", "json").stdout)
    assert doc["exit_code"] == 2 and doc["counts"]["bad_inputs"] == 5 and len(doc["findings"]) == 5
    assert {f["kind"] for f in doc["findings"]} == {"bad-input"}
    assert sorted((f["path"], f["line"]) for f in doc["findings"]) == where
    assert all(any(words in f["message"] for f in doc["findings"]) for _, _, words in expected)

    out = tmp_path / "kcliff.sarif"
    assert lint(root, "--format", "sarif", "--output", str(out)).stdout == ""
    run = valid(sarif_validator(), json.loads(out.read_text(encoding="utf-8")))["runs"][0]
    results = run["results"]
    assert len(results) == 5 and {r["ruleId"] for r in results} == {"kcliff/bad-input"}
    assert {r["level"] for r in results} == {"error"}
    assert run["invocations"][0]["executionSuccessful"] is False and run["invocations"][0]["exitCode"] == 2
    assert run["tool"]["driver"]["rules"][results[0]["ruleIndex"]]["id"] == "kcliff/bad-input"
    located = sorted((unquote(r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]),
                      r["locations"][0]["physicalLocation"]["region"]["startLine"]) for r in results)
    assert located == where


def test_five_bad_topics_in_one_file_are_five_findings_in_every_format(tmp_path):
    assert_every_finding(tmp_path, "repo-five-bad-topics")


def test_five_bad_inputs_across_two_files_are_five_findings_in_every_format(tmp_path):
    assert_every_finding(tmp_path, "repo-five-bad-inputs")

"""`kcliff scenarios generate|check|show` through the installed CLI, as CI and users run it."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
KCLIFF = Path(sys.executable).parent / "kcliff"  # .venv/bin/kcliff
SUITE = ROOT / "scenarios" / "pairwise.yaml"

SMALL = """\
description: a small space for CLI tests
settings:
  - scope: broker
    name: num.io.threads
    short: io
    levels: [{value: 2, reason: few}, {value: 4, reason: some}, {value: 8, reason: default}]
  - scope: topic
    name: partitions
    levels: [{value: 3, reason: one per broker}, {value: 6, reason: two per broker}]
  - scope: producer
    name: linger.ms
    short: linger
    levels: [{value: 0, reason: at once}, {value: 5, reason: default}, {value: 20, reason: batch}]
  - scope: producer
    name: batch.size
    short: batch
    levels: [{value: 16384, reason: default}, {value: 65536, reason: bigger}]
constraints:
  - forbid: {producer: {linger.ms: 0, batch.size: 65536}}
    reason: a test constraint
seeds:
  - name: prod
    reason: a test seed
    broker: {num.io.threads: 8}
    producer: {linger.ms: 20, batch.size: 65536}
"""


def kcliff(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    return subprocess.run([str(KCLIFF), *args], cwd=cwd, capture_output=True, text=True, timeout=300)


def test_committed_suite_passes_check():
    done = kcliff("scenarios", "check", "scenarios/pairwise.yaml")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "cover all 519 allowed pairs" in done.stdout
    assert "note:" not in done.stderr  # generated from the space as committed


def test_check_notes_a_suite_generated_from_another_version_of_the_space(tmp_path):
    changed = tmp_path / "space.yaml"
    changed.write_text((ROOT / "scenarios" / "space.yaml").read_text().replace("Kafka's default (1 GiB)", "1 GiB"))
    done = kcliff("scenarios", "check", "scenarios/pairwise.yaml", "--space", str(changed))
    assert done.returncode == 0  # same levels, so still complete; only the reasons changed
    assert done.stderr.startswith("note: scenarios/pairwise.yaml was generated from another version of")


def test_committed_suite_regenerates_byte_for_byte():
    # The committed file was made with the default budget; regenerating takes ~10 s of CPU.
    done = kcliff("scenarios", "generate", "--out", "-")
    assert done.returncode == 0, done.stderr
    assert done.stdout == SUITE.read_text(), "scenarios/pairwise.yaml is stale or generation is not deterministic"


def test_check_lists_the_pairs_a_removed_row_held(tmp_path):
    text = SUITE.read_text()
    blocks = re.split(r"(?m)^(?=  - id: )", text)
    assert len(blocks) > 2
    trimmed = tmp_path / "trimmed.yaml"
    trimmed.write_text("".join(blocks[:3] + blocks[4:]))  # drop the third scenario
    done = kcliff("scenarios", "check", str(trimmed))
    assert done.returncode == 1
    assert "FAILED" in done.stdout and "  missing: " in done.stdout
    assert "Traceback" not in done.stdout + done.stderr


def test_generate_small_space_check_show_and_determinism(tmp_path):
    space = tmp_path / "space.yaml"
    space.write_text(SMALL)
    out1, out2 = tmp_path / "one.yaml", tmp_path / "two.yaml"
    for out in (out1, out2):
        done = kcliff("scenarios", "generate", "--space", str(space), "--out", str(out), "--stall-steps", "2000")
        assert done.returncode == 0, done.stderr
        assert "independent check passed" in done.stdout
    assert out1.read_text().replace("one.yaml", "two.yaml") == out2.read_text()
    text = out1.read_text()
    assert text.startswith("# GENERATED FILE - do not edit by hand")
    assert "io=8 partitions=" in text and "linger=20 batch=64K (seed prod)" in text
    assert "linger.ms: 0\n      batch.size: 65536" not in text  # the constraint holds

    check = kcliff("scenarios", "check", str(out1), "--space", str(space))
    assert check.returncode == 0, check.stdout + check.stderr

    stdout_run = kcliff("scenarios", "generate", "--space", str(space), "--out", "-", "--stall-steps", "2000")
    assert stdout_run.returncode == 0 and stdout_run.stdout.startswith("# GENERATED FILE")

    table = kcliff("scenarios", "show", str(out1), "--space", str(space))
    assert table.returncode == 0
    assert table.stdout.splitlines()[0].split() == ["id", "io", "partitions", "linger", "batch"]
    markdown = kcliff("scenarios", "show", str(out1), "--space", str(space), "--format", "markdown")
    assert "| id | io | partitions | linger | batch |" in markdown.stdout and "| pw-01 |" in markdown.stdout


def test_strength_three(tmp_path):
    space = tmp_path / "space.yaml"
    space.write_text(SMALL)
    out = tmp_path / "three.yaml"
    done = kcliff("scenarios", "generate", "--space", str(space), "--strength", "3", "--out", str(out),
                  "--stall-steps", "2000")
    assert done.returncode == 0, done.stderr
    assert "  - id: pw3-01" in out.read_text()
    assert kcliff("scenarios", "check", str(out), "--space", str(space), "--strength", "3").returncode == 0
    # A pairwise-only suite is not 3-way.
    pairs = tmp_path / "pairs.yaml"
    assert kcliff("scenarios", "generate", "--space", str(space), "--out", str(pairs)).returncode == 0
    assert kcliff("scenarios", "check", str(pairs), "--space", str(space), "--strength", "3").returncode == 1


@pytest.mark.parametrize("old,new,needle,message", [
    ("name: linger.ms", "name: linger.msec", "linger.msec", "unknown producer setting 'linger.msec': did you mean"),
    ("{value: 4, reason: some}", "{value: 2, reason: some}", "levels: [{value: 2, reason: few}", "duplicate level 2"),
    ("levels: [{value: 3, reason: one per broker}, {value: 6, reason: two per broker}]", "levels: []",
     "levels: []", "empty level list"),
    ("{linger.ms: 0, batch.size: 65536}", "{linger.ms: 7, batch.size: 65536}", "linger.ms: 7",
     "7 is not a level of producer linger.ms"),
    ("{linger.ms: 0, batch.size: 65536}", "{linger.ms: [0, 5, 20], batch.size: [16384, 65536]}",
     "constraints:", "forbid every combination"),
    ("producer: {linger.ms: 20, batch.size: 65536}", "producer: {linger.ms: 0, batch.size: 65536}",
     "- name: prod", "breaks the constraint"),
])
def test_bad_space_files_exit_2_with_file_and_line(tmp_path, old, new, needle, message):
    assert old in SMALL
    text = SMALL.replace(old, new, 1)
    line = next(i for i, t in enumerate(text.splitlines(), start=1) if needle in t)
    space = tmp_path / "bad-space.yaml"
    space.write_text(text)
    for args in (["generate", "--out", str(tmp_path / "out.yaml")], ["check", str(SUITE)]):
        done = kcliff("scenarios", *args, "--space", str(space))
        assert done.returncode == 2, (args, done.stdout, done.stderr)
        assert done.stderr.startswith(f"kcliff: error: {space}:{line}: "), done.stderr
        assert message in done.stderr
        assert "Traceback" not in done.stderr and done.stderr.count("\n") == 1
    assert not (tmp_path / "out.yaml").exists()


def test_check_of_a_bad_suite_file_exits_2(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("scenarios:\n  - id: pw-01\n    producer:\n      linger.msec: 5\n")
    done = kcliff("scenarios", "check", str(bad))
    assert done.returncode == 2 and done.stderr.startswith(f"kcliff: error: {bad}:4: ")
    missing = kcliff("scenarios", "check", str(tmp_path / "nope.yaml"))
    assert missing.returncode == 2 and "cannot read file" in missing.stderr

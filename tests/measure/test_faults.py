"""Faults injected into real runs: a broker killed mid-scenario, kcliff itself interrupted and resumed."""

import json
import os
import signal
import subprocess
from pathlib import Path

import pytest
from conftest import KCLIFF, ROOT, run_kcliff, wait_for

from tests.backends.test_local_cluster import jvms_under

pytestmark = pytest.mark.kafka


def broker_pid(workdir: Path, node: int) -> int | None:
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            cmd = (proc / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if b"kafka.Kafka" in cmd and any(a.endswith(f"node-{node}/server.properties".encode()) and
                                          str(workdir).encode() in a for a in cmd):
            return int(proc.name)
    return None


def test_broker_killed_mid_scenario_is_faulted_healed_and_retried(tmp_path):
    work, out = tmp_path / "w", tmp_path / "results.json"
    proc = subprocess.Popen([*KCLIFF, "run", "--suite", "canaries", "--only", "flush-1", "--records", "15000", "--prime", "0",
                             "--repeats", "2", "--workdir", str(work), "--out", str(out), "--quiet"],
                            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        wait_for(lambda: list(work.glob("runs/*/perf/flush-1-warmup.log")), 600, "the canary's warm-up")
        pid = wait_for(lambda: broker_pid(work, 2), 30, "broker 2's pid")
        os.kill(pid, signal.SIGKILL)
        _, err = proc.communicate(timeout=600)
    finally:
        if proc.poll() is None:
            proc.kill()
    doc = json.loads(out.read_text())
    assert doc["status"] == "complete", err[-2000:]
    by_id = {e["id"]: e for e in doc["scenarios"]}
    assert by_id["reference"]["status"] == "ok" and by_id["reference"]["summary"]
    hit = by_id["flush-1"]
    assert hit["faulted_attempt"]["status"] == "faulted"
    assert "died" in hit["faulted_attempt"]["status_reason"]
    assert hit["status"] in ("ok", "cliff") and len(hit["runs"]) >= 1, (hit["status_reason"], err[-2000:])
    assert jvms_under(tmp_path) == []


def test_interrupted_run_resumes_from_first_unfinished_scenario(tmp_path):
    """The reference and canaries are measured as one interleaved group, then the plain scenario;
    stopped in the plain one, the run resumes there and keeps the group as measured."""
    work, out, extra = tmp_path / "w", tmp_path / "results.json", tmp_path / "extra.yaml"
    # its consumer reads keep it measuring for ~10 s after its warm-up starts: with the producer alone (~5 s)
    # a SIGTERM sent on the warm-up's log once landed after the scenario had finished (exit 0, not 130)
    extra.write_text("description: one plain scenario after the canaries\nscenarios:\n"
                     "  - id: linger-20\n    description: linger 20 ms\n    producer:\n      linger.ms: 20\n"
                     "    workloads: [produce, consume]\n")
    args = ["run", "--suite", "canaries", "--suite", str(extra), "--only", "batching-off,linger-20", "--records", "8000", "--repeats", "2",
            "--prime", "0", "--workdir", str(work)]
    proc = subprocess.Popen([*KCLIFF, *args, "--out", str(out)], cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        wait_for(lambda: list(work.glob("runs/*/perf/linger-20-warmup.log")), 600, "the plain scenario")
        proc.send_signal(signal.SIGTERM)
        proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130
    first = json.loads(out.read_text())
    assert first["status"] == "interrupted"
    assert jvms_under(tmp_path) == []
    # the scenario cut short is recorded as interrupted, and measured again on --resume
    assert [(e["id"], e["status"]) for e in first["scenarios"]][2:] == [("linger-20", "interrupted")]
    finished = first["scenarios"][:2]
    kept = {e["id"]: e["started"] for e in finished}
    assert list(kept) == ["reference", "batching-off"]
    assert all(e["status"] in ("ok", "cliff") for e in finished)
    # a canary decided on its cliff (warm-up and first round stopped on it) sits out the later rounds
    assert [len(e["runs"]) for e in finished] in ([2, 2], [2, 1])

    done = run_kcliff("run", "--resume", str(out), "--workdir", str(work), timeout=900)
    assert done.returncode in (0, 1), done.stderr[-2000:]
    doc = json.loads(out.read_text())
    assert doc["status"] == "complete" and doc["run_id"] == first["run_id"]
    assert [e["id"] for e in doc["scenarios"]][:len(kept)] == list(kept)
    assert {e["id"]: e["started"] for e in doc["scenarios"][:len(kept)]} == kept
    assert [e["id"] for e in doc["scenarios"]] == ["reference", "batching-off", "linger-20"]
    assert len(doc["resumes"]) == 1
    assert jvms_under(tmp_path) == []

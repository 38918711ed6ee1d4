"""`kcliff check` of a Kafka upgrade on real clusters: the example repo's head names a newer Kafka
in a kafka-version file, so the head is measured on a second local cluster of that version,
interleaved with the base on the first. Brief: it proves the two clusters, not a verdict."""

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import ROOT, run_kcliff

EXAMPLE = ROOT / "examples" / "config-repo"
UPGRADE = "4.3.1"  # the newest 4.x whose broker and tool jars Maven Central serves here (docs/gate.md)
BRIEF = ["--records", "10000", "--repeats", "1", "--rounds", "3", "--run-seconds", "2", "--prime", "5",
         "--canaries", "batching-off", "--format", "github"]


@pytest.mark.kafka
def test_an_upgrade_is_measured_on_a_cluster_of_each_version(tmp_path: Path):
    base, head = tmp_path / "base", tmp_path / "head"
    shutil.copytree(EXAMPLE, base)
    shutil.copytree(EXAMPLE, head)
    (head / "kafka-version").write_text(f"{UPGRADE}\n")
    out, results, work = tmp_path / "verdict.json", tmp_path / "results.json", tmp_path / "w"
    done = run_kcliff("check", "--base", str(base), "--head", str(head), *BRIEF, "--json", str(out),
                      "--results", str(results), "--workdir", str(work), timeout=900)
    verdict = json.loads(out.read_text())
    assert done.returncode == verdict["exit_code"] != 2, done.stderr[-3000:]
    assert any(f"Kafka version changed: 4.2.0 -> {UPGRADE}" in n for n in verdict["notes"]), verdict["notes"]
    doc = json.loads(results.read_text())
    sides = {e["id"]: e for e in doc["scenarios"]}
    assert doc["environment"]["kafka_version"] == "4.2.0"
    assert sides["head"]["kafka_version"] == UPGRADE and sides["base"]["kafka_version"] is None
    assert sides["head"]["runs"] and sides["base"]["runs"]
    run_dir = next((work / "runs").iterdir())
    for name, version in (("cluster", "4.2.0"), ("cluster-head", UPGRADE)):
        logs = [p.read_text() for p in sorted((run_dir / name).glob("node-*/broker.log"))]
        assert len(logs) == 3 and all(f"Kafka version: {version}" in log for log in logs), name
    left = subprocess.run(["pgrep", "-f", str(run_dir)], capture_output=True, text=True).stdout.split()
    assert not left, f"processes of this check still running: {left}"  # both clusters were ended

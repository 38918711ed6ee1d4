"""`kcliff check` of a Kafka upgrade on real clusters: the example repo's base names Kafka 3.9.2 in a
kafka-version file and its head names none (kcliff's default, a 4.x), so the base and the reference
are measured on a 3.9.2 cluster with 3.9.2's own tools and the head on a second cluster of the
default version, interleaved. Brief: it proves the two clusters and 3.x's tools, not a verdict."""

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import ROOT, run_kcliff
from kcliff.kafka import dist as kafka_dist

EXAMPLE = ROOT / "examples" / "config-repo"
OLD = "3.9.2"  # the newest 3.x: the upgrade most teams plan (docs/gate.md, "A Kafka upgrade")
NEW = kafka_dist.DEFAULT_VERSION
# flat out only (--no-rate): latency at rate has its own real-cluster test (test_check_real.py). No
# self-test and one round: the point is two clusters and 3.x's tools, and a verdict would need more
# rounds than a test can spend (in CI this check took 230 s with the self-test and 3 rounds).
BRIEF = ["--records", "10000", "--repeats", "1", "--rounds", "1", "--run-seconds", "2", "--prime", "5",
         "--canaries", "", "--no-rate", "--format", "github"]


@pytest.mark.kafka
def test_an_upgrade_is_measured_on_a_cluster_of_each_version(tmp_path: Path):
    base, head = tmp_path / "base", tmp_path / "head"
    shutil.copytree(EXAMPLE, base)
    shutil.copytree(EXAMPLE, head)
    (base / "kafka-version").write_text(f"# the brokers' release before the upgrade\n{OLD}\n")
    out, results, work = tmp_path / "verdict.json", tmp_path / "results.json", tmp_path / "w"
    done = run_kcliff("check", "--base", str(base), "--head", str(head), *BRIEF, "--json", str(out),
                      "--results", str(results), "--workdir", str(work), timeout=900)
    verdict = json.loads(out.read_text())
    assert done.returncode == verdict["exit_code"] != 2, done.stderr[-3000:]
    assert any(f"Kafka version changed: {OLD} -> {NEW}" in n for n in verdict["notes"]), verdict["notes"]
    doc = json.loads(results.read_text())
    sides = {e["id"]: e for e in doc["scenarios"]}
    assert doc["environment"]["kafka_version"] == OLD
    assert sides["head"]["kafka_version"] == NEW and sides["base"]["kafka_version"] is None
    assert sides["head"]["runs"] and sides["base"]["runs"]
    # the reference was measured on 3.9.2 with 3.9.2's producer tool (its 3.x flags, whole runs)
    assert [r["mb_per_sec"] > 0 for r in sides["reference"]["runs"]] == [True]
    run_dir = next((work / "runs").iterdir())
    ref_log = (run_dir / "perf" / "reference-run1.log").read_text()  # alone, without canaries: a run, not a round
    assert "--producer-props" in ref_log and "--warmup-records" not in ref_log
    assert "-Dlog4j.configuration=file:" in ref_log
    head_logs = [p.read_text() for p in sorted((run_dir / "perf").glob("head-*.log"))
                 if not p.name.endswith(".stderr.log")]  # the tool's own stderr is kept beside its log
    # the head's 4.x tool, measuring whole runs as the base's 3.x one must (suite.steady_state)
    assert head_logs and all("--command-property" in log and "--warmup-records" not in log for log in head_logs)
    for name, version in (("cluster", OLD), ("cluster-head", NEW)):
        logs = [p.read_text() for p in sorted((run_dir / name).glob("node-*/broker.log"))]
        assert len(logs) == 3 and all(f"Kafka version: {version}" in log for log in logs), name
    left = subprocess.run(["pgrep", "-f", str(run_dir)], capture_output=True, text=True).stdout.split()
    assert not left, f"processes of this check still running: {left}"  # both clusters were ended

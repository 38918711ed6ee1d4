"""The committed pairwise suite runs on the real cluster: every row applied (dynamic broker settings
read back from every broker) and measured with the real perf tool."""

import json

import pytest

from conftest import run_kcliff
from kcliff.scenario import load_file, resolve_suite

pytestmark = pytest.mark.kafka


def test_whole_pairwise_suite_runs_on_the_real_cluster(shared_cluster, tmp_path):
    out = tmp_path / "pairwise.json"
    done = run_kcliff("run", "--suite", "pairwise", "--records", "3000", "--warmup-records", "1000", "--prime", "0",
                      "--repeats", "1", "--workdir", str(shared_cluster), "--out", str(out), "--quiet",
                      timeout=1500)
    doc = json.loads(out.read_text())
    assert doc["status"] == "complete", done.stderr[-3000:]
    rows = {s.id: s for s in load_file(resolve_suite("pairwise"))}
    measured = {e["id"]: e for e in doc["scenarios"]}
    assert set(rows) <= set(measured)
    for sid, sc in rows.items():
        entry = measured[sid]
        assert entry["status"] in ("ok", "cliff"), (sid, entry["status_reason"])
        assert entry["summary"]["mb_per_sec"]["median"] > 0
        assert entry["applied"] == json.loads(json.dumps(sc.as_applied()))
    assert not any(e["restart_forced"] for e in doc["scenarios"])

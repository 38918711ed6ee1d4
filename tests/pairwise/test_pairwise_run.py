"""The committed pairwise suite runs on the real cluster: every row applied (dynamic broker settings
read back from every broker) and measured with the real perf tool, then the factor model's
prediction measured beside the fastest row and the reference (--confirm)."""

import json

import pytest
from conftest import run_kcliff
from kcliff.pairwise import confirm, design
from kcliff.results import model
from kcliff.scenario.suites import load_file, resolve_suite

pytestmark = pytest.mark.kafka


def test_whole_pairwise_suite_runs_on_the_real_cluster(shared_cluster, tmp_path):
    out = tmp_path / "pairwise.json"
    done = run_kcliff("run", "--suite", "pairwise", "--records", "3000", "--warmup-records", "1000", "--prime", "0",
                      "--repeats", "1", "--confirm", "--confirm-rounds", "3", "--workdir", str(shared_cluster), "--out", str(out),
                      "--quiet", timeout=1500)
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
    assert done.returncode == 0, done.stderr[-3000:]
    confirmed = model.ResultsDoc.model_validate(doc)
    record = confirmed.confirmation
    assert record is not None and record.fastest_row in rows
    group = [record.reference_id, record.fastest_id, *(p.id for p in record.predictions)]
    for sid in group:
        entry = measured[sid]
        assert entry["status"] in ("ok", "cliff"), (sid, entry["status_reason"])
        assert sorted([sid, *entry["interleaved_with"]]) == sorted(group)
        assert len(entry["runs"]) == 3 or entry["status"] == "cliff"
    assert measured[record.fastest_id]["applied"] == measured[record.fastest_row]["applied"]
    for prediction in record.predictions:
        applied = measured[prediction.id]["applied"]
        for factor, level in prediction.levels.items():
            scope, name = design.split(factor)
            assert design.label(applied[scope][name]) == level, (factor, applied)
    for checked in confirm.check(confirmed):
        assert checked.outcome is not confirm.Held.NOT_MEASURED
        assert confirm.sentence(checked, record.fastest_row) in done.stdout

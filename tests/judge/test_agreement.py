"""One results file with stopped runs: the run table, `kcliff run`'s exit code, baseline update,
compare, the gate and the report all give each canary the same verdict (canary.canary_verdict).

The file is a REAL run (benchmarks/data/early-stop-100k-on.json, early stop on: batching-off and
inflight-1 were stopped on their cliff after one run) with one change, said here: flush-1 gets the
max_ratio the older canaries suite gave it (0.5, as in results-canaries-local-2c.json), which its
real 0.60 ratio does not meet, and two runs stopped early (the real stopped runs of batching-off and
inflight-1) beside its three finished ones. Counted in, those stopped runs' low interim figures would
pull its median below 0.5 and hide the miss; the model leaves them out beside finished runs. No Kafka.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import ROOT
from kcliff.commands import check, run
from kcliff.judge import baseline_verdict, canary, verdict
from kcliff.judge.family import Family
from kcliff.report import table
from kcliff.report.site import build_site
from kcliff.results import baseline, metrics, model
from kcliff.results.metrics import ChangeKind
from kcliff.results.model import ResultsDoc

REAL = ROOT / "benchmarks" / "data" / "early-stop-100k-on.json"
EXPECTED = {"batching-off": True, "flush-1": False, "inflight-1": True}  # did each canary show its cliff?


def with_stopped_runs() -> dict:
    doc = json.loads(REAL.read_text(encoding="utf-8"))
    by_id = {e["id"]: e for e in doc["scenarios"]}
    flush = by_id["flush-1"]
    flush["cliff"]["max_ratio"] = 0.5
    flush["runs"] += [by_id["batching-off"]["runs"][0], by_id["inflight-1"]["runs"][0]]
    summary = model.summarise([model.Run.model_validate(r) for r in flush["runs"]]) or {}
    flush["summary"] = {key: stat.model_dump() for key, stat in summary.items()}  # as the suite writes it
    return doc


@pytest.fixture()
def stopped(tmp_path: Path) -> tuple[Path, ResultsDoc]:
    path = tmp_path / "stopped.json"
    path.write_text(json.dumps(with_stopped_runs()), encoding="utf-8")
    return path, model.load(path)


def test_the_file_has_stopped_runs_beside_finished_ones_and_counted_in_they_would_hide_the_miss(stopped):
    _, doc = stopped
    flush = doc.entry("flush-1")
    assert flush is not None and flush.status is model.Status.OK
    assert [r.stopped_early for r in flush.runs] == [False, False, False, True, True]
    assert all(r.stop_kind is model.StopKind.CLIFF for r in flush.runs if r.stopped_early)  # derived: older file
    every_run = sorted(v for v in flush.values(metrics.THROUGHPUT) if v is not None)[2]
    reference = doc.reference()
    assert reference is not None and every_run / (reference.median(metrics.THROUGHPUT) or 0) < 0.5
    assert flush.median(metrics.THROUGHPUT) == 7.58  # the finished runs only


def test_every_reader_gives_each_canary_the_same_verdict(stopped, tmp_path, capsys):
    path, doc = stopped
    verdicts = {v.id: v.seen for v in canary.canary_verdicts(doc)}
    assert verdicts == EXPECTED

    # the run table's canary column
    column = {r[0]: r[-1] for r in table.rows(doc)}
    assert {c: column[c] == table.SEEN for c in EXPECTED} == EXPECTED
    assert column["flush-1"] == table.NOT_SEEN and column["reference"] == ""

    # kcliff run's exit code: every scenario measured, one canary missed
    assert run.exit_code(doc) == 1
    err = capsys.readouterr().err
    assert "canary flush-1 did not show its cliff" in err
    assert "batching-off" not in err and "inflight-1" not in err

    # baseline update refuses it for that canary, and only that one
    with pytest.raises(baseline.Refused) as refused:
        baseline_verdict.admit(baseline.new_baseline("4.2.0", "local-2c-24g"), doc)
    assert refused.value.code == 1 and "failed canary: flush-1 (" in str(refused.value)
    assert "batching-off" not in str(refused.value) and "inflight-1" not in str(refused.value)

    # compare: the same canaries, and the miss makes it inconclusive
    base, _ = baseline.update(baseline.new_baseline("4.2.0", "local-2c-24g"), model.load(REAL))
    compared = baseline_verdict.compare(doc, base)
    assert {c.id: c.seen for c in compared.canaries} == EXPECTED
    assert compared.verdict is verdict.Outcome.INCONCLUSIVE
    assert any(r.startswith("canary flush-1 did not show its cliff") for r in compared.reasons)

    # the gate judges its canaries by the same rule
    gated = check.judge(doc, [], [], 0.10, Family.of([ChangeKind.PRODUCER], [metrics.Workload.PRODUCE]))
    assert {c.id: c.seen for c in gated.canaries} == EXPECTED

    # the report's canary cards
    index = build_site(None, tmp_path / "site", results=path).read_text(encoding="utf-8")
    assert index.count('<div class="verdict">cliff seen</div>') == 2
    assert index.count('<div class="verdict">cliff NOT seen</div>') == 1


def test_the_real_file_as_recorded_passes_everywhere(capsys):
    doc = model.load(REAL)
    assert all(v.seen for v in canary.canary_verdicts(doc))
    assert all(r[-1] == table.SEEN for r in table.rows(doc) if r[0] in EXPECTED)
    assert run.exit_code(doc) == 0 and capsys.readouterr().err == ""
    updated, _ = baseline.update(baseline.new_baseline("4.2.0", "local-2c-24g"), doc)
    assert [s.run_id for s in updated.sources] == [doc.run_id]
    assert not [r for r in baseline_verdict.compare(doc, updated).reasons if r.startswith("canary")]

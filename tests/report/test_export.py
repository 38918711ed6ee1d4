"""github-action-benchmark custom JSON from SYNTHETIC results files."""

import json

import synthetic
from kcliff.report import export
from kcliff.results.metrics import METRICS
from kcliff.results.model import ResultsDoc


def _doc(n=0, **kw):
    return synthetic.results(n, synthetic.START, seed=n, **kw)


def _valid_entries(entries, unit):
    for e in entries:
        assert set(e) == {"name", "unit", "value", "range", "extra"}
        assert e["unit"] == unit
        assert isinstance(e["value"], float) and e["value"] > 0
        assert isinstance(e["range"], str) and e["range"].startswith("± ")
        assert isinstance(e["extra"], str) and "status ok" in e["extra"]


def test_export_writes_bigger_and_smaller_is_better_files(tmp_path, kcliff):
    src = synthetic.write(_doc(), tmp_path / "results.json")
    done = kcliff("export", str(src), "--out-dir", str(tmp_path / "out"))
    assert done.returncode == 0, done.stderr
    throughput = json.loads((tmp_path / "out" / "throughput.json").read_text())
    p99 = json.loads((tmp_path / "out" / "p99.json").read_text())
    _valid_entries(throughput, "MB/s")
    _valid_entries(p99, "ms")
    ids = [sc.id for sc in synthetic.scenarios()]
    assert [e["name"] for e in throughput] == [f"{i} throughput" for i in ids]
    assert [e["name"] for e in p99] == [f"{i} p99" for i in ids]
    doc = json.loads(src.read_text())
    ref = doc["scenarios"][0]
    assert throughput[0]["value"] == round(ref["summary"]["mb_per_sec"]["median"], 4)
    assert "1.00x reference" in throughput[0]["extra"]


def test_names_are_stable_across_runs_so_series_line_up():
    a = [e["name"] for e in export.entries(ResultsDoc.model_validate(_doc(0)), METRICS["throughput"])]
    b = [e["name"] for e in export.entries(ResultsDoc.model_validate(_doc(1, factors={"flush-1": 0.5})), METRICS["throughput"])]
    assert a == b


def test_unmeasured_scenarios_and_missing_percentiles_are_left_out():
    doc = _doc()
    doc["scenarios"][1]["status"] = "failed"
    doc["scenarios"][1]["summary"] = None
    del doc["scenarios"][2]["summary"]["p99_ms"]
    doc = ResultsDoc.model_validate(doc)
    names = [e["name"] for e in export.entries(doc, METRICS["throughput"])]
    assert "flush-1 throughput" not in names and "inflight-1 throughput" in names
    assert "inflight-1 p99" not in [e["name"] for e in export.entries(doc, METRICS["p99"])]


def test_export_of_a_bad_file_exits_2_naming_it(tmp_path, kcliff):
    bad = tmp_path / "cut.json"
    bad.write_text('{"schema": "kcliff.results", "schema_version": 1, "scenarios": [')
    done = kcliff("export", str(bad), "--out-dir", str(tmp_path / "out"))
    assert done.returncode == 2 and str(bad) in done.stderr
    assert not (tmp_path / "out").exists()

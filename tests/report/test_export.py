"""github-action-benchmark custom JSON from SYNTHETIC results files, and from a real run at a fixed rate."""

import json
from pathlib import Path

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


# On a real run at a fixed rate (tests/data/results/run-linger500-at-rate.json: the reference and linger-500,
# two runs each at 1,024 records/s on this machine's local cluster).
AT_RATE_RUN = Path(__file__).resolve().parents[1] / "data" / "results" / "run-linger500-at-rate.json"


def test_latency_at_rate_is_published_as_its_own_smaller_is_better_series(tmp_path, kcliff):
    done = kcliff("export", str(AT_RATE_RUN), "--out-dir", str(tmp_path))
    assert done.returncode == 0, done.stderr
    p99 = {e["name"]: e for e in json.loads((tmp_path / "p99.json").read_text())}
    throughput = {e["name"] for e in json.loads((tmp_path / "throughput.json").read_text())}
    for sid in ("reference", "linger-500"):
        assert {f"{sid} p99", f"{sid} p99_at_rate", f"{sid} e2e_p99_at_rate"} <= set(p99)
        assert f"{sid} throughput" in throughput and not any("at_rate" in n for n in throughput)
    linger = p99["linger-500 p99_at_rate"]
    doc = json.loads(AT_RATE_RUN.read_text())
    assert linger["unit"] == "ms" and linger["value"] == doc["scenarios"][1]["summary"]["rate_p99_ms"]["median"]
    assert linger["extra"].startswith("at 1024 records/s; median of 2 runs") and "x reference" in linger["extra"]


def test_a_scenario_that_did_not_hold_its_rate_publishes_no_latency_at_rate():
    raw = json.loads(AT_RATE_RUN.read_text())
    raw["scenarios"][1]["read_runs"][0]["rate_held"] = False  # one of linger-500's two runs fell behind
    doc = ResultsDoc.model_validate(raw)
    names = {e["name"] for m in METRICS.values() for e in export.entries(doc, m)}
    assert "linger-500 p99_at_rate" not in names and "linger-500 e2e_p99_at_rate" not in names
    assert {"linger-500 p99", "linger-500 throughput", "reference p99_at_rate"} <= names


# Real checks of one host (tests/data/results/, see tests/results/test_rig.py): one measured at the rig
# profile aws-m5.xlarge-gp3 (runner class local-2c-24g@aws-m5.xlarge-gp3), one CPU-bound (local-2c-24g).
AT_PROFILE = Path(__file__).resolve().parents[1] / "data" / "results" / "profile-check-aws-m5.xlarge-gp3.json"
CPU_BOUND_RUN = Path(__file__).resolve().parents[1] / "data" / "results" / "check-cpu-bound.json"


def _published(results, tmp_path):
    return {e["name"]: e for path in export.export(results, tmp_path) for e in json.loads(path.read_text())}


def test_a_profiles_series_carry_its_name_so_two_profiles_trends_never_mix(tmp_path):
    at_profile = _published(AT_PROFILE, tmp_path / "profile")
    cpu_bound = _published(CPU_BOUND_RUN, tmp_path / "cpu")
    assert {"reference throughput @aws-m5.xlarge-gp3", "reference p99 @aws-m5.xlarge-gp3",
            "consumer-fetch-1 consumed @aws-m5.xlarge-gp3"} <= set(at_profile)
    assert all(n.endswith(" @aws-m5.xlarge-gp3") for n in at_profile)
    assert {"reference throughput", "batching-off p99"} <= set(cpu_bound)  # the names CPU-bound series always had
    assert not set(at_profile) & set(cpu_bound)


def test_extra_says_the_rig_and_what_bound_the_producer_runs(tmp_path):
    at_profile = _published(AT_PROFILE, tmp_path)
    batching = at_profile["batching-off throughput @aws-m5.xlarge-gp3"]["extra"]
    assert ("rig aws-m5.xlarge-gp3 (each broker's link 22.22 Mbit/s, disk 2.33 MB/s; disk meant to bind); "
            "bound by cpu (cpu 96%)") in batching
    assert "bound by wait (cpu 46%)" in at_profile["reference p99 @aws-m5.xlarge-gp3"]["extra"]
    # the bound is the producer runs': a consumer's figure does not claim it
    consumed = at_profile["consumer-fetch-1 consumed @aws-m5.xlarge-gp3"]["extra"]
    assert "rig aws-m5.xlarge-gp3" in consumed and "bound by" not in consumed
    assert "rig cpu-bound (no caps: CPU binds)" in _published(CPU_BOUND_RUN, tmp_path / "cpu")["reference throughput"]["extra"]


def test_runs_through_a_fault_are_a_file_of_their_own_written_only_where_measured(tmp_path):
    """The action fails on a file with no series ("No benchmark result was found"), and seconds and records
    must not share the latency page's ms: failover.json holds them, and only a run through a fault writes it."""
    healthy = export.export(CPU_BOUND_RUN, tmp_path / "healthy")
    assert [p.name for p in healthy] == ["throughput.json", "p99.json"]
    failover = Path(__file__).resolve().parents[1] / "data" / "results" / "run-failover.json"
    written = {p.name: json.loads(p.read_text()) for p in export.export(failover, tmp_path / "failover")}
    assert set(written) == {"throughput.json", "p99.json", "failover.json"}
    through = {e["name"]: e for e in written["failover.json"]}
    assert through["reference unavailable"]["unit"] == "s" and through["reference lost"]["value"] == 0
    assert "broker-session-30s unavailable" in through
    assert not any(e["unit"] in ("s", "records") for e in written["p99.json"])


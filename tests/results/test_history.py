"""History: one file per run, append-only, refuses truncated and newer files; the regressions gate.
Inputs are SYNTHETIC results files (tests/synthetic.py) until the lead's integration test adds real runs."""

import json

import pytest
import synthetic
from kcliff.errors import InputError
from kcliff.judge import regressions
from kcliff.results import history
from kcliff.results.documents import RESULTS


def _write(tmp_path, n=0, **kw):
    return synthetic.write(synthetic.results(n, synthetic.START, seed=n, **kw), tmp_path / f"r{n}.json")


def test_add_files_one_run_per_file_keyed_by_date_revision_kafka_and_runner_class(tmp_path):
    src = _write(tmp_path, 3, kafka_version="4.2.0")
    path, new = history.add(src, tmp_path / "hist")
    assert new
    assert path.parent.name == synthetic.RUNNER_CLASS
    assert path.name == "20260104T030000Z_syn0003_kafka-4.2.0_20260104T030000Z-syn003.json"
    assert path.read_bytes() == src.read_bytes()
    runs = history.load(tmp_path / "hist")
    assert [r.key.run_id for r in runs] == ["20260104T030000Z-syn003"]
    assert runs[0].key.revision == "syn0003" and runs[0].key.kafka_version == "4.2.0"


def test_load_orders_runs_by_start_time_not_by_adding_order(tmp_path):
    for n in (4, 1, 3):
        history.add(_write(tmp_path, n), tmp_path / "hist")
    assert [r.key.started.day for r in history.load(tmp_path / "hist")] == [2, 4, 5]


def test_adding_the_same_run_again_is_a_no_op_and_a_different_file_is_refused(tmp_path):
    src = _write(tmp_path, 0)
    first, _ = history.add(src, tmp_path / "hist")
    assert history.add(src, tmp_path / "hist") == (first, False)
    doc = json.loads(src.read_text())
    doc["scenarios"][0]["summary"]["mb_per_sec"]["median"] = 1.0
    src.write_text(json.dumps(doc))
    before = first.read_bytes()
    with pytest.raises(InputError, match="append-only"):
        history.add(src, tmp_path / "hist")
    assert first.read_bytes() == before


def test_truncated_results_file_is_refused_with_its_name_and_line(tmp_path):
    src = _write(tmp_path, 0)
    text = src.read_text()
    src.write_text(text[: len(text) // 2])
    with pytest.raises(InputError) as err:
        history.add(src, tmp_path / "hist")
    assert err.value.path == str(src) and err.value.line and err.value.line > 1
    assert not (tmp_path / "hist").exists()


def test_truncated_file_inside_the_history_stops_load_naming_it(tmp_path):
    path, _ = history.add(_write(tmp_path, 0), tmp_path / "hist")
    path.write_text(path.read_text()[:200])
    with pytest.raises(InputError) as err:
        history.load(tmp_path / "hist")
    assert err.value.path == str(path)


def test_newer_schema_version_is_refused_and_left_untouched(tmp_path):
    doc = synthetic.results(0, synthetic.START, seed=0)
    doc["schema_version"] = RESULTS.version + 1
    src = synthetic.write(doc, tmp_path / "new.json")
    before = src.read_bytes()
    with pytest.raises(InputError, match="newer"):
        history.add(src, tmp_path / "hist")
    assert src.read_bytes() == before


def test_a_run_still_running_needs_allow_running(tmp_path):
    doc = synthetic.results(0, synthetic.START, seed=0)
    doc["status"] = "running"
    src = synthetic.write(doc, tmp_path / "running.json")
    with pytest.raises(InputError, match="still running"):
        history.add(src, tmp_path / "hist")
    assert history.add(src, tmp_path / "hist", allow_running=True)[1]


def test_series_never_mix_runner_classes(tmp_path):
    for n in range(3):
        history.add(_write(tmp_path, n), tmp_path / "hist")
    history.add(_write(tmp_path, 5, runner_class="other-8c"), tmp_path / "hist")
    runs = history.load(tmp_path / "hist")
    assert {len(s.points) for s in regressions.build_series(runs)} == {1}  # newest run's class: other-8c
    mine = regressions.build_series(runs, synthetic.RUNNER_CLASS)
    assert {len(s.points) for s in mine} == {3}
    ref = next(s for s in mine if s.key == "reference throughput")
    assert len(ref.points[0].observations) == 3


def test_cli_add_list_and_bad_input_exit_codes(tmp_path, kcliff):
    src = _write(tmp_path, 0)
    hist = tmp_path / "hist"
    done = kcliff("history", "add", str(src), "--dir", str(hist))
    assert done.returncode == 0, done.stderr
    assert "added" in done.stdout
    listed = kcliff("history", "list", "--dir", str(hist))
    assert listed.returncode == 0 and "20260101T030000Z-syn000" in listed.stdout and "1 runs" in listed.stdout
    broken = tmp_path / "broken.json"
    broken.write_text('{"schema": "kcliff.results", "schema_version": 1,\n "run_id": ')
    bad = kcliff("history", "add", str(broken), "--dir", str(hist))
    assert bad.returncode == 2
    assert str(broken) in bad.stderr and "Traceback" not in bad.stderr


def _history(tmp_path, runs, step_at, step):
    hist = tmp_path / "hist"
    for f in synthetic.history_files(tmp_path / "results", runs, step_at=step_at, step=step):
        history.add(f, hist)
    return hist


def test_regressions_exits_1_when_the_newest_run_starts_a_regression(tmp_path, kcliff):
    hist = _history(tmp_path, 10, step_at=9, step={"pairwise-05": 0.7})
    done = kcliff("history", "regressions", "--dir", str(hist))
    assert done.returncode == 1, done.stdout + done.stderr
    assert "REGRESSION pairwise-05 throughput" in done.stdout
    assert "20260110T030000Z-syn009" in done.stdout


def test_regressions_exits_0_when_the_change_is_older_or_an_improvement(tmp_path, kcliff):
    older = _history(tmp_path / "a", 10, step_at=5, step={"pairwise-05": 0.7})
    done = kcliff("history", "regressions", "--dir", str(older))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "no regression starts at the newest run" in done.stdout
    better = _history(tmp_path / "b", 10, step_at=9, step={"pairwise-05": 1.4})
    assert kcliff("history", "regressions", "--dir", str(better)).returncode == 0


def test_a_consumer_regression_is_a_change_point_of_its_own_series(tmp_path):
    from kcliff.judge import changepoint

    hist = synthetic.reading_history(tmp_path, 10, step_at=6, factor=0.6)
    series = {s.key: s for s in regressions.build_series(history.load(hist))}
    assert {"reference consumed", "reference e2e_p99", "reference throughput"} <= series.keys()
    found = changepoint.detect_all([series["reference consumed"], series["reference throughput"]])
    consumed = found["reference consumed"]
    assert [(cp.run_id, cp.regression) for cp in consumed] == [("20260107T030000Z-read", True)], consumed
    assert found["reference throughput"] == []  # the producer's figures did not move

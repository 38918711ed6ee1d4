"""E-Divisive change points through the isolated engine, on SYNTHETIC series with known steps."""

import random

import pytest
from kcliff.errors import InputError
from kcliff.judge import changepoint
from kcliff.judge.changepoint import Point, Series
from kcliff.results.metrics import METRICS


def _series(levels, metric="throughput", repeats=3, noise=0.02, seed=3, kafka=None):
    rng = random.Random(seed)
    points = []
    for i, level in enumerate(levels):
        obs = tuple(level * (1 + rng.gauss(0, noise)) for _ in range(repeats))
        points.append(Point(run_id=f"run{i:02d}", date=f"2026-01-{i + 1:02d} 03:00", revision="abc",
                            kafka_version=(kafka or {}).get(i, "4.2.0"), settings_hash="h", median=sorted(obs)[len(obs) // 2],
                            low=min(obs), high=max(obs), observations=obs))
    return Series("reference", METRICS[metric], tuple(points))


def test_a_step_lands_at_the_run_where_it_happened_with_its_magnitude():
    found = changepoint.detect(_series([50.0] * 6 + [35.0] * 4))
    assert [cp.index for cp in found] == [6]
    cp = found[0]
    assert cp.run_id == "run06" and cp.previous_run_id == "run05" and cp.date == "2026-01-07 03:00"
    assert cp.before == pytest.approx(50, rel=0.05) and cp.after == pytest.approx(35, rel=0.05)
    assert cp.magnitude == pytest.approx(-0.3, abs=0.03)
    assert cp.regression


def test_direction_latency_up_is_a_regression_throughput_up_is_not():
    assert changepoint.detect(_series([100.0] * 5 + [160.0] * 5, metric="p99"))[0].regression
    assert not changepoint.detect(_series([100.0] * 5 + [160.0] * 5))[0].regression


def test_a_step_at_the_newest_run_is_found_from_its_repeats():
    found = changepoint.detect(_series([50.0] * 9 + [40.0]))
    assert [cp.index for cp in found] == [9]


def test_noise_alone_gives_no_change_point_and_the_answer_is_reproducible():
    flat = _series([50.0] * 15, noise=0.03, seed=11)
    assert changepoint.detect(flat) == []
    stepped = _series([50.0] * 7 + [30.0] * 7 + [45.0] * 7)
    first = changepoint.detect(stepped)
    assert [cp.index for cp in first] == [7, 14]
    assert changepoint.detect(stepped) == first


def test_what_else_changed_at_the_run_is_noted():
    found = changepoint.detect(_series([50.0] * 5 + [60.0] * 5, kafka={i: "4.3.0" for i in range(5, 10)}))
    assert found[0].notes == ("Kafka 4.2.0 -> 4.3.0",)


def test_too_short_a_series_is_not_sent_to_the_engine(monkeypatch):
    monkeypatch.setenv(changepoint.ENGINE_ENV, "/nonexistent/python")
    assert changepoint.detect(_series([50.0], repeats=1)) == []


def test_a_missing_engine_is_an_input_error_naming_the_setup_script(monkeypatch):
    monkeypatch.setenv(changepoint.ENGINE_ENV, "/nonexistent/python")
    with pytest.raises(InputError, match="setup-changepoint.sh"):
        changepoint.detect(_series([50.0] * 5 + [30.0] * 5))


@pytest.mark.parametrize("tau, expected", [(6, 2), (7, 2), (8, 3), (9, 3), (0, 0)])
def test_a_split_inside_a_run_moves_to_the_nearest_run_boundary(tau, expected):
    # runs of 3 observations start at 0, 3, 6, 9
    assert changepoint._run_boundary(tau, [0, 3, 6, 9], 12) == expected


def test_shifts_below_min_magnitude_are_merged_away():
    series = _series([50.0] * 6 + [48.5] * 6 + [35.0] * 6, noise=0.005)
    assert [cp.index for cp in changepoint.detect(series, min_magnitude=0.0)] == [6, 12]
    kept = changepoint.detect(series, min_magnitude=0.05)
    assert [cp.index for cp in kept] == [12]
    assert kept[0].before == pytest.approx(49.25, rel=0.02)  # the merged segment's median

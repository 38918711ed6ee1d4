"""Properties of the gate's statistic under SYNTHETIC, seeded noise (lognormal, the shape of
throughput noise): false alarms on A/A comparisons and detection of a 20% drop, over many draws.
These are properties of the statistic, not measurements of Kafka; the real-cluster rates come from
the check benchmark."""

from __future__ import annotations

import numpy as np
import pytest
from kcliff.judge import stats, verdict


def lognormal(rng: np.random.Generator, n: int, cv: float, scale: float = 1.0) -> list[float]:
    sigma = np.sqrt(np.log(1 + cv * cv))
    return list(scale * rng.lognormal(-sigma * sigma / 2, sigma, n))


def outcomes(seed: int, draws: int, n: int, cv: float, effect: float, metric: str = "throughput") -> dict[str, int]:
    rng = np.random.default_rng(seed)
    counts: dict[str, int] = {}
    for _ in range(draws):
        d = verdict.decide(lognormal(rng, n, cv), lognormal(rng, n, cv, effect), metric, n_boot=1000)
        counts[d.outcome] = counts.get(d.outcome, 0) + 1
    return counts


@pytest.mark.parametrize("n, cv", [(10, 0.10), (20, 0.15)])
def test_a_a_false_alarms_at_most_1_in_50(n, cv):
    counts = outcomes(seed=11, draws=250, n=n, cv=cv, effect=1.0)
    assert counts.get("regression", 0) <= 250 / 50, counts


@pytest.mark.parametrize("n, cv", [(20, 0.10), (30, 0.15)])
def test_a_20_percent_drop_is_detected_19_times_in_20(n, cv):
    counts = outcomes(seed=12, draws=200, n=n, cv=cv, effect=0.8)
    assert counts.get("regression", 0) >= 200 * 19 / 20, counts


@pytest.mark.parametrize("n, cv", [(10, 0.10), (30, 0.15)])
def test_a_real_5_percent_drop_is_failed_at_most_1_time_in_20(n, cv):
    # half the minimum effect: the tolerance the test is made against (verdict.TOLERANCE_SHARE)
    counts = outcomes(seed=24, draws=200, n=n, cv=cv, effect=0.95)
    assert counts.get("regression", 0) <= 200 / 20, counts


def test_p99_regressions_are_upward():
    counts = outcomes(seed=13, draws=100, n=20, cv=0.15, effect=1.3, metric="p99")
    assert counts.get("regression", 0) >= 95, counts
    assert outcomes(seed=14, draws=100, n=20, cv=0.15, effect=0.8, metric="p99").get("regression", 0) == 0


def test_too_noisy_is_inconclusive_rather_than_pass():
    # 20% CV and 4 runs a side cannot rule out a 20% drop: most such comparisons must say so.
    counts = outcomes(seed=15, draws=100, n=4, cv=0.20, effect=1.0)
    assert counts.get("inconclusive", 0) >= 50 and counts.get("regression", 0) <= 2, counts


def test_mann_whitney_is_calibrated_under_a_a():
    rng = np.random.default_rng(16)
    p = [stats.shift_p_value(lognormal(rng, 8, 0.15), lognormal(rng, 8, 0.15), "lower") for _ in range(600)]
    rate = np.mean(np.asarray(p) < 0.05)
    assert 0.025 <= rate <= 0.08, rate


def test_bootstrap_interval_covers_the_true_ratio():
    rng = np.random.default_rng(17)
    covered = 0
    for _ in range(200):
        base, head = lognormal(rng, 20, 0.15), lognormal(rng, 20, 0.15, 0.8)
        low, high = stats.bootstrap_ratio_interval(base, head, 0.95, n_boot=1000, seed=1)
        covered += low <= 0.8 <= high
    assert covered >= 0.88 * 200, covered


def test_the_interval_is_reproducible_for_the_same_runs():
    rng = np.random.default_rng(18)
    base, head = lognormal(rng, 5, 0.1), lognormal(rng, 5, 0.1)
    assert stats.bootstrap_ratio_interval(base, head) == stats.bootstrap_ratio_interval(base, head)


def test_one_outlier_run_does_not_make_a_regression():
    rng = np.random.default_rng(19)
    base = lognormal(rng, 10, 0.05)
    head = lognormal(rng, 10, 0.05)
    head[3] = head[3] / 10  # one run hit a 10x stall (a GC pause, a noisy neighbour)
    assert verdict.decide(base, head).outcome == "pass"


def test_clean_drops_values_that_are_not_measurements():
    assert stats.clean([1.0, None, float("nan"), 0.0, -2.0, 3]) == [1.0, 3.0]
    assert stats.cv([1.0]) is None


def drifting_rounds(rng: np.random.Generator, rounds: int, drift_cv: float, cv: float,
                    effect: float) -> tuple[list[float], list[float]]:
    """Base and head measured in the same rounds: each round's cluster speed (drift, shared by both
    runs of the round) times each run's own noise."""
    speed = lognormal(rng, rounds, drift_cv, 20.0)
    return ([s * x for s, x in zip(speed, lognormal(rng, rounds, cv))],
            [s * x for s, x in zip(speed, lognormal(rng, rounds, cv, effect))])


def paired_outcomes(seed: int, draws: int, rounds: int, effect: float, drift_cv: float = 0.25,
                    cv: float = 0.05) -> dict[str, int]:
    rng = np.random.default_rng(seed)
    counts: dict[str, int] = {}
    for _ in range(draws):
        d = verdict.decide(*drifting_rounds(rng, rounds, drift_cv, cv, effect), paired=True)
        counts[d.outcome] = counts.get(d.outcome, 0) + 1
    return counts


def test_paired_rounds_see_through_drift_that_hides_a_drop_from_mann_whitney():
    # 25% drift between rounds, 5% noise inside a round, 5 rounds: what kcliff check measures
    rng = np.random.default_rng(20)
    unpaired = [verdict.decide(*drifting_rounds(rng, 5, 0.25, 0.05, 0.8), n_boot=500).outcome for _ in range(50)]
    assert unpaired.count("regression") <= 10, unpaired
    assert paired_outcomes(seed=21, draws=200, rounds=5, effect=0.8).get("regression", 0) >= 190


def test_paired_a_a_false_alarms_at_most_1_in_50():
    counts = paired_outcomes(seed=22, draws=500, rounds=5, effect=1.0, cv=0.10)
    assert counts.get("regression", 0) <= 10, counts


def test_the_paired_interval_covers_the_true_ratio():
    rng = np.random.default_rng(23)
    covered = 0
    for _ in range(300):
        ratio, low, high = stats.paired_ratio(stats.log_ratios(*drifting_rounds(rng, 6, 0.2, 0.08, 0.8)))
        covered += low <= 0.8 <= high
    assert covered >= 0.9 * 300, covered


def test_a_round_missing_either_side_is_left_out_of_the_pairs():
    assert stats.log_ratios([10.0, None, 10.0, 0.0], [5.0, 5.0, None, 5.0]) == [pytest.approx(np.log(0.5))]

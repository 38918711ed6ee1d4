"""Factor analysis on SYNTHETIC runs whose true per-level effects are known (synthetic.EFFECTS)."""

import math

import pytest

import synthetic
from kcliff import factors
from kcliff.model import ResultsDoc


def _analysis(noise=0.0, seed=1):
    return factors.analyse(ResultsDoc.model_validate(synthetic.results(0, synthetic.START, seed=seed, noise=noise)))


def _effect(fa, setting, level):
    rows = fa.levels[(fa.levels["setting"] == setting) & (fa.levels["level"].str.split(" ").str[0] == level)]
    return rows.iloc[0]


def test_the_regression_recovers_the_true_effects_of_a_noise_free_run():
    fa = _analysis()
    for (scope, name), levels in synthetic.EFFECTS.items():
        for level, multiplier in levels.items():
            row = _effect(fa, name, str(level))
            assert row["scope"] == scope
            # the baseline is Kafka's default level; flush's default (Long.MAX) acts like 10000 here
            default = levels.get(factors.settings.lookup(scope, name).default, 1.0)
            assert row["regression effect"] == pytest.approx(multiplier / default, rel=1e-6), (name, level)


def test_per_level_averages_are_plain_means_of_scenario_medians():
    doc = synthetic.results(0, synthetic.START, seed=4)
    fa = factors.analyse(ResultsDoc.model_validate(doc))
    medians = [sc["summary"]["mb_per_sec"]["median"] for sc in doc["scenarios"]
               if sc["applied"]["producer"].get("batch.size") == 262144]
    row = _effect(fa, "batch.size", "262144")
    assert row["scenarios"] == len(medians) == 3
    assert row["average MB/s"] == pytest.approx(sum(medians) / len(medians))


def test_confounded_averages_and_regression_can_disagree_and_the_warning_says_so():
    fa = _analysis()
    # in this design the big-batch rows happen to carry flush=1: their average is low, the effect is not
    assert _effect(fa, "batch.size", "262144")["average vs baseline"] < 1
    assert _effect(fa, "batch.size", "262144")["regression effect"] == pytest.approx(1.6)
    assert any("confounded" in w for w in fa.warnings)


def test_what_to_change_first_puts_the_biggest_gain_first():
    ranking = _analysis(noise=0.02).ranking
    assert list(ranking["setting"][:2]) == ["batch.size", "linger.ms"]
    assert list(ranking["set it to"][:2]) == ["262144", "20"]
    flush = ranking[ranking["setting"] == "log.flush.interval.messages"].iloc[0]
    assert flush["avoid"] == "1" and flush["best / worst"] > 10
    assert flush["set it to"] != "1"


def test_with_standard_errors_when_there_is_noise_to_measure():
    fa = _analysis(noise=0.05, seed=9)
    se = fa.levels["std. error (log)"].dropna()
    assert len(se) > 0 and all(0 < v < 1 for v in se)
    assert all(math.isfinite(v) for v in fa.levels["regression effect"])


def test_a_run_without_varied_settings_has_no_analysis_and_says_why():
    doc = synthetic.results(0, synthetic.START, seed=1)
    doc["scenarios"] = doc["scenarios"][:1]
    fa = factors.analyse(ResultsDoc.model_validate(doc))
    assert fa.empty and "No factor analysis" in fa.warnings[0]

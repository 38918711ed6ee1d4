"""Verdict logic over plain lists: outcomes per metric, canaries, the cliff tier, and how judge()
combines them (cliff > regression > inconclusive > pass) into exit codes."""

from __future__ import annotations

import json

import numpy as np
import pytest
from kcliff.judge import sequential, verdict
from kcliff.judge.canary import CanaryVerdict, canary_verdict
from kcliff.report import markdown as report_md
from kcliff.results import metrics, model

BASE = [40.0, 41.0, 39.5, 40.5, 40.2, 39.8, 40.7, 39.9]


def scaled(values: list[float], factor: float) -> list[float]:
    return [v * factor for v in values]


def test_too_few_runs_is_inconclusive():
    d = verdict.decide([40.0, 41.0], [30.0, 31.0])
    assert d.outcome == "inconclusive" and "too few runs" in d.reason and d.ratio is None


def test_none_and_zero_runs_do_not_count():
    d = verdict.decide([40.0, None, 41.0, 0.0, 39.0, 40.5, 39.5, 40.2], [40.0, 41.0, 39.0, 40.1, 39.9])
    assert d.n_base == 6 and d.outcome == "pass"


def test_sample_sizes_that_can_never_reach_alpha_are_inconclusive():
    # 3 runs a side: Mann-Whitney's smallest one-sided p is 1/20 > 0.025, so even a halving cannot count.
    d = verdict.decide(BASE[:3], scaled(BASE[:3], 0.5))
    assert d.outcome == "inconclusive" and "reach p < 0.025" in d.reason
    # Against a baseline of many runs, 3 head runs can reach it.
    assert verdict.decide(BASE * 3, scaled(BASE[:3], 0.5)).outcome == "regression"


def test_a_drop_beyond_the_minimum_effect_that_noise_could_explain_is_not_a_pass():
    base = [40.0, 40.4, 39.6, 40.2, 39.8]
    head = [35.2, 35.0, 35.6, 34.6, 41.0]  # 0.88x, but one head run overlaps the base
    d = verdict.decide(base, head)
    assert d.ratio < 0.9 and d.low > 0.8 and d.p_value >= 0.01
    assert d.outcome == "inconclusive" and "cannot show it is more than 5% worse" in d.reason
    # p99 has no resolution check: within noise is a pass there.
    assert verdict.decide(head, base, "p99").outcome == "pass"
    noisy = verdict.decide([40.0, 52.0, 33.0, 47.0, 38.0, 44.0], [35.0, 46.0, 30.0, 41.0, 33.0, 39.0])
    assert noisy.outcome == "inconclusive" and "cannot rule out a 20% worsening" in noisy.reason


def test_a_clear_drop_is_a_regression_and_a_clear_gain_an_improvement():
    down = verdict.decide(BASE, scaled(BASE, 0.7))
    assert down.outcome == "regression" and down.ratio == pytest.approx(0.7)
    assert down.high < 1 and down.p_value < verdict.DEFAULT_ALPHA
    up = verdict.decide(BASE, scaled(BASE, 1.3))
    assert up.outcome == "improvement"


def test_a_real_change_smaller_than_the_minimum_effect_passes():
    d = verdict.decide(BASE, scaled(BASE, 0.95))
    assert d.outcome == "pass" and "minimum effect" in d.reason
    assert verdict.decide(BASE, scaled(BASE, 0.95), min_effect=0.03).outcome == "regression"


def test_a_drop_past_the_minimum_effect_is_a_regression_only_once_a_small_one_is_ruled_out():
    # 18 paired rounds at 0.87x with 22% scatter a round (a CI check of linger 5 -> 10, whose 40-round
    # check here measured 1.00x): beyond "no change" (p ~ 0.007), but a
    # worsening of only 5% (half the minimum effect) is still within the 95% interval.
    rng = np.random.default_rng(5)
    logs = rng.normal(0, 0.22, 18)
    logs = logs - logs.mean() + np.log(0.87)
    base = [40.0] * 18
    head = [40.0 * float(np.exp(x)) for x in logs]
    d = verdict.decide(base, head, paired=True)
    assert d.ratio == pytest.approx(0.87) and d.high > 0.95 and d.outcome == "inconclusive", d
    assert verdict.decide(base, head, paired=True, tolerance=0.0).outcome == "regression"
    far = [h * 0.85 for h in head]  # 0.74x: its whole interval is beyond 0.95
    assert verdict.decide(base, far, paired=True).outcome == "regression"


def test_p99_worse_means_higher():
    p99 = [300.0, 310.0, 295.0, 305.0, 298.0, 302.0, 307.0, 299.0]
    assert verdict.decide(p99, scaled(p99, 1.5), "p99").outcome == "regression"
    assert verdict.decide(p99, scaled(p99, 0.5), "p99").outcome == "improvement"


# End-to-end p99 (ms) of a benign check's 10 paired rounds in CI (max.poll.records 500 -> 1000, loopback):
# 1.24x, 1.06-1.44, which a 10% minimum effect failed; other checks of the same change measured 0.73-1.18x.
E2E_BASE = [12.0, 26.0, 14.0, 14.0, 18.0, 15.0, 12.0, 17.0, 15.0, 14.0]
E2E_HEAD = [17.0, 46.0, 14.0, 19.0, 22.0, 21.0, 14.0, 24.0, 13.0, 14.0]


def test_end_to_end_p99_counts_only_beyond_its_floor():
    assert verdict.decide(E2E_BASE, E2E_HEAD, "p99", paired=True).outcome == "regression"  # the same runs as p99
    kept = verdict.decide(E2E_BASE, E2E_HEAD, "e2e_p99", paired=True)
    assert kept.outcome == "pass" and kept.min_effect == metrics.E2E_P99.min_effect_floor
    assert verdict.decide(E2E_BASE, scaled(E2E_HEAD, 2.0), "e2e_p99", paired=True).outcome == "regression"
    assert verdict.decide(E2E_BASE, E2E_HEAD, "e2e_p99", paired=True, min_effect=0.6).min_effect == 0.6


def test_the_report_says_which_metric_was_judged_at_its_floor():
    sv = verdict.compare_scenario("head", {"e2e_p99": E2E_BASE}, {"e2e_p99": E2E_HEAD}, paired=True)
    v = verdict.judge([sv], [], [], settings={"min_effect": 0.1, "paired": True})
    assert "e2e_p99 counts only beyond 50%" in report_md.render(v)
    sv = verdict.compare_scenario("head", {"p99": E2E_BASE}, {"p99": E2E_HEAD}, paired=True)
    assert "floor" not in report_md.render(verdict.judge([sv], [], [], settings={"min_effect": 0.1, "paired": True}))


def test_the_sequential_rule_judges_end_to_end_p99_at_its_floor():
    plan = sequential.Plan(max_rounds=10, first_look=6)
    assert sequential.decide_so_far(E2E_BASE, E2E_HEAD, plan, "e2e_p99").outcome == "pass"


def test_unknown_metric_is_a_programming_error():
    with pytest.raises(ValueError):
        verdict.decide(BASE, BASE, "p50")


def entry(sid: str, metric: str, values: list[float], max_ratio: float | None = None) -> model.Entry:
    """A results entry whose runs have `values` of `metric`; a canary when `max_ratio` is given."""
    key = metrics.METRICS[metric].key
    cliff = model.CliffSpec(stands_for="test", metric=metric, max_ratio=max_ratio) if max_ratio else None
    return model.Entry(id=sid, cliff=cliff, runs=[model.Run(records=1000, **{key: v}) for v in values])


def check_canary(sid: str, metric: str, max_ratio: float, canary: list[float],
                 reference: list[float]) -> CanaryVerdict:
    return canary_verdict(entry(sid, metric, canary, max_ratio), entry("reference", metric, reference))


def test_canary_checks_follow_the_cliff_definition():
    reference = [40.0, 41.0, 39.0]
    shows = check_canary("flush-1", "throughput", 0.5, [2.0, 2.1, 1.9], reference)
    assert shows.seen and shows.ratio == pytest.approx(0.05)
    fails = check_canary("inflight-1", "throughput", 0.7, [35.0, 36.0, 34.0], reference)
    assert not fails.seen and fails.shows_cliff is False and "not below 0.7" in fails.reason
    # p99 canary: the reference's p99 must be below max_ratio x the canary's.
    assert check_canary("slow", "p99", 0.5, [1000.0] * 3, [100.0] * 3).seen
    empty = check_canary("empty", "throughput", 0.5, [], reference)
    assert not empty.seen and empty.shows_cliff is None  # not measured proves nothing


def test_a_canary_measured_at_zero_shows_its_cliff():
    # CI, compose behind 100 ms: inflight-1's one round stopped on its cliff right after its first
    # steady-state line (1 record at 0.2 records/s), a median that rounds to 0.0 MB/s
    zero = check_canary("inflight-1", "throughput", 0.7, [0.0], [2.43])
    assert zero.seen and zero.ratio == 0.0 and "below 0.7" in zero.reason


def test_landing_in_the_canaries_cliff_ceiling_is_a_cliff():
    canaries = [check_canary("flush-1", "throughput", 0.5, [2.0] * 3, [40.0] * 3),
                check_canary("inflight-1", "throughput", 0.7, [14.0, 14.5, 13.5], [40.0] * 3)]
    ceiling = verdict.cliff_ceiling(canaries)
    assert ceiling == 14.0
    fell = verdict.compare_scenario("repo", {"throughput": BASE}, {"throughput": [12.0, 12.5, 11.8, 12.2]}, ceiling)
    assert fell.verdict == "cliff" and fell.head_in_tier and not fell.base_in_tier
    already = verdict.compare_scenario("repo", {"throughput": [3.0, 3.1, 2.9, 3.05, 2.95]},
                                       {"throughput": [3.0, 3.2, 2.9, 3.1, 2.95]}, ceiling)
    assert already.verdict == "pass" and "already in the canaries' cliff tier" in already.notes[0]


def test_judge_precedence_and_exit_codes():
    ok = verdict.compare_scenario("a", {"throughput": BASE}, {"throughput": BASE})
    bad = verdict.compare_scenario("b", {"throughput": BASE}, {"throughput": scaled(BASE, 0.6)})
    few = verdict.compare_scenario("c", {"throughput": BASE}, {"throughput": BASE[:2]})
    good_canary = check_canary("flush-1", "throughput", 0.5, [2.0] * 3, [40.0] * 3)
    failed_canary = check_canary("flush-1", "throughput", 0.5, [39.0] * 3, [40.0] * 3)
    assert verdict.judge([ok], [good_canary]).verdict == "pass"
    assert verdict.judge([ok], [good_canary]).exit_code == 0
    assert verdict.judge([ok, few]).verdict == "inconclusive"
    assert verdict.judge([ok, few]).exit_code == 3
    # A canary that did not show its cliff turns a pass into inconclusive, but a regression the rig
    # did see stays a regression.
    assert verdict.judge([ok], [failed_canary]).verdict == "inconclusive"
    assert verdict.judge([ok, bad, few], [failed_canary]).verdict == "regression"
    rule = {"severity": "error", "rule": "flush-every-message", "path": "server.properties", "line": 5}
    cliff = verdict.judge([ok, bad], [good_canary], [rule])
    assert cliff.verdict == "cliff" and cliff.exit_code == 1
    assert any("server.properties:5" in r for r in cliff.reasons)
    warning = {**rule, "severity": "warning"}
    assert verdict.judge([ok], [good_canary], [warning]).verdict == "pass"
    assert verdict.judge([]).verdict == "inconclusive"


def test_verdict_json_is_plain_data():
    v = verdict.judge([verdict.compare_scenario("a", {"throughput": BASE, "p99": BASE},
                                                {"throughput": BASE, "p99": BASE})])
    doc = json.loads(json.dumps(v.to_dict()))
    assert doc["verdict"] == "pass" and doc["exit_code"] == 0
    assert {d["metric"] for d in doc["scenarios"][0]["decisions"]} == {"throughput", "p99"}


def test_decide_is_deterministic_for_the_lead_check_api():
    rng = np.random.default_rng(3)
    base, head = list(rng.normal(40, 4, 10)), list(rng.normal(36, 4, 10))
    assert verdict.decide(base, head, "throughput", 0.10) == verdict.decide(base, head, "throughput", 0.10)


def test_paired_decisions_say_how_many_rounds_paired_up():
    base, head = [10.0, 14.0, 18.0, 22.0, 26.0], [9.9, 14.1, 17.8, 22.3, 25.7]
    unpaired = verdict.decide(base, head)
    paired = verdict.decide(base, head, paired=True)
    assert unpaired.outcome == "inconclusive"  # the drift between rounds swamps the unpaired interval
    assert paired.outcome == "pass" and paired.method == "paired" and paired.n_pairs == 5
    assert 0.97 < paired.low < 1.0 < paired.high < 1.03
    assert verdict.decide(base, [None, None, None, 22.3, 25.7], paired=True).outcome == "inconclusive"
    assert verdict.decide(base, scaled(head, 0.8), paired=True).outcome == "regression"


def test_a_regression_leads_the_reasons_and_an_inconclusive_metric_is_named():
    """The slow-fetch head's reason read 'regression (too noisy to tell: ...; e2e_p50_at_rate up to
    37.87x ...)': what fails the check comes first, and the undecided metric says which it is."""
    noisy_base, noisy_head = [50.0, 80.0, 60.0, 90.0], [70.0, 50.0, 95.0, 55.0]
    sv = verdict.compare_scenario("head", {"consumed": noisy_base, "e2e_p50_at_rate": [5.0, 5.2, 4.9, 5.1]},
                                  {"consumed": noisy_head, "e2e_p50_at_rate": [190.0, 185.0, 195.0, 188.0]},
                                  paired=True)
    assert [d.outcome for d in sv.decisions] == [verdict.Outcome.INCONCLUSIVE, verdict.Outcome.REGRESSION]
    detail = verdict.unsettled(sv)
    assert detail.startswith("e2e_p50_at_rate up to") and "; consumed too noisy to tell" in detail, detail

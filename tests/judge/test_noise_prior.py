"""The failover metrics' noise prior (results/metrics.Noise, judge/stats.pair_spread): pooled with a check's own
pairs, it lets three A/A rounds through a fault pass where their own 2 degrees of freedom cannot, and it is
no smaller than what the recorded A/A failover checks measured."""

from __future__ import annotations

import dataclasses
import json
import math
import statistics
from pathlib import Path

import pytest
from kcliff.judge import sequential, stats, verdict
from kcliff.judge.verdict import Outcome
from kcliff.measure.plan import FAULT_ROUNDS
from kcliff.results.metrics import FAILOVER_METRICS, METRICS, UNAVAILABLE, Noise

CAMPAIGN = Path(__file__).resolve().parents[2] / "benchmarks" / "data" / "aa-failover-local-2c.json"
PLAN = sequential.Plan.for_rounds(FAULT_ROUNDS, len(FAILOVER_METRICS), through_faults=True)
# three rounds of an A/A broker-failover check (2026-11-30): base and head's unavailable, in seconds
BASE, HEAD = [11.153, 12.595, 11.594], [11.894, 11.012, 13.673]


def test_the_prior_pools_by_degrees_of_freedom():
    logs = [0.0, 0.4, -0.4]
    sd, df = stats.pair_spread(logs, Noise(0.2, 10))
    assert df == 12
    assert sd == pytest.approx(math.sqrt((10 * 0.2 ** 2 + 2 * 0.4 ** 2) / 12))
    assert stats.pair_spread(logs) == (pytest.approx(0.4), 2)


def test_no_prior_leaves_the_paired_interval_as_the_t_interval():
    from scipy import stats as sps

    logs = [0.1, -0.05, 0.2, 0.03]
    _, low, high = stats.paired_ratio(logs, 0.9)
    half = sps.t.ppf(0.95, 3) * statistics.stdev(logs) / 2
    assert (math.log(low), math.log(high)) == pytest.approx((statistics.mean(logs) - half, statistics.mean(logs) + half))


def test_three_a_a_rounds_through_a_fault_pass_with_the_prior_and_not_without():
    logs = sequential.round_logs(BASE, HEAD)
    step = sequential.judge_rounds(logs, PLAN, UNAVAILABLE.name)
    assert step.outcome is Outcome.PASS, step.reason
    plain = dataclasses.replace(UNAVAILABLE, noise=None)
    saved, METRICS[UNAVAILABLE.name] = METRICS[UNAVAILABLE.name], plain
    try:
        assert sequential.judge_rounds(logs, PLAN, UNAVAILABLE.name).outcome is None
    finally:
        METRICS[UNAVAILABLE.name] = saved


def test_the_fixed_rule_uses_the_same_prior():
    """At the last look a check's verdict is verdict.decide's: its interval is pooled the same way."""
    d = verdict.decide(BASE, HEAD, UNAVAILABLE.name, paired=True)
    _, low, high = stats.paired_ratio(stats.log_ratios(BASE, HEAD), verdict.DEFAULT_CONFIDENCE, UNAVAILABLE.noise)
    assert (d.low, d.high) == pytest.approx((low, high))


def test_a_fencing_timeout_made_six_times_longer_still_fails_at_the_first_look():
    head = [66.0, 64.5, 70.2]
    step = sequential.judge_rounds(sequential.round_logs(BASE, head), PLAN, UNAVAILABLE.name)
    assert step.outcome is Outcome.REGRESSION, step.reason


@pytest.mark.parametrize("metric", [m for m in FAILOVER_METRICS], ids=lambda m: m.name)
def test_no_prior_is_smaller_than_the_a_a_checks_measured(metric):
    variances = []
    for check in json.loads(CAMPAIGN.read_text()):
        base, head = check["rounds"][metric.name]
        logs = stats.log_ratios(base, head)
        if len(logs) > 1:
            variances.append((statistics.variance(logs), len(logs) - 1))
    assert len(variances) >= 5
    pooled = math.sqrt(sum(v * d for v, d in variances) / sum(d for _, d in variances))
    assert metric.noise is not None and metric.noise.sd >= pooled

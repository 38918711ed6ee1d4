"""A service's latency budget (kcliff.yaml `latency:`, scenario/latency_budget.py) in the gate
(verdict.within_budget): a latency at rate that worsens within what the service tolerates passes,
and does not keep the check measuring (stopping.judged_decided)."""

from __future__ import annotations

import numpy as np
import pytest
from kcliff.judge import sequential, stopping, verdict
from kcliff.judge.family import Family
from kcliff.results.metrics import P99, RATE_E2E_P50, RATE_E2E_P99, RATE_P50, RATE_P99, THROUGHPUT, ChangeKind, Workload
from kcliff.scenario.latency_budget import LatencyBudget, parse_budget

from tests.judge.test_family import lognormal, lognormal_rounds


@pytest.mark.parametrize("raw, budget", [
    ({"p99": "50 ms"}, LatencyBudget(99, 50.0)),
    ({"p99": 50}, LatencyBudget(99, 50.0)),  # a bare number is ms, as Kafka's *.ms settings count
    ({"p50": "0.02 s"}, LatencyBudget(50, 20.0)),
    ({"p50": " 7.5ms "}, LatencyBudget(50, 7.5)),
])
def test_a_budget_is_a_percentile_kcliff_measures_at_rate_and_a_time(raw, budget):
    assert parse_budget(raw) == budget


@pytest.mark.parametrize("raw, said", [
    ({"p95": "50 ms"}, "unknown percentile 'p95': expected one of p50, p99"),
    ({"p99": "0 ms"}, "is not a positive time"),
    ({"p99": "fast"}, "is not a positive time"),
    ({"p99": True}, "is not a positive time"),
    ({"p50": "5 ms", "p99": "50 ms"}, "expected a mapping of p50 or p99 to a time"),
    ("50 ms", "expected a mapping of p50 or p99 to a time"),
])
def test_anything_else_is_refused_with_the_valid_forms(raw, said):
    with pytest.raises(ValueError, match=said.replace("(", r"\(")):
        parse_budget(raw)


def _decision(metric: str, base: float, head: float, spread: float = 0.03, rounds: int = 8) -> verdict.Decision:
    rng = np.random.default_rng(3)
    return verdict.decide(lognormal(rng, base, spread, rounds), lognormal(rng, head, spread, rounds), metric,
                          paired=True, alpha=0.004)


def test_a_median_at_rate_that_doubles_within_the_services_p99_budget_passes_and_says_why():
    # batch.size 16 -> 256 KiB with linger.ms 0 -> 20 at the profile: p50 at rate 2.07x (about 7 -> 14 ms)
    doubled = _decision(RATE_P50.name, 7.0, 14.5)
    assert doubled.outcome is verdict.Outcome.REGRESSION
    within = verdict.within_budget(doubled, LatencyBudget(99, 50.0))
    assert within.outcome is verdict.Outcome.PASS
    assert "within the service's p99 50 ms budget" in within.reason and f"{doubled.ratio:.2f}x" in within.reason
    assert within.ratio == doubled.ratio and within.p_value == doubled.p_value  # the figures stay as measured


def test_a_latency_beyond_the_budget_or_above_its_percentile_or_flat_out_stays_a_regression():
    beyond = _decision(RATE_P50.name, 7.0, 60.0)
    assert verdict.within_budget(beyond, LatencyBudget(99, 50.0)) == beyond
    tail = _decision(RATE_P99.name, 10.0, 30.0)
    assert verdict.within_budget(tail, LatencyBudget(50, 50.0)) == tail  # a median's budget says nothing of p99
    flat_out = _decision(P99.name, 10.0, 30.0)  # flat out is saturation, not the service's rate
    assert verdict.within_budget(flat_out, LatencyBudget(99, 500.0)) == flat_out
    assert verdict.within_budget(tail, None) == tail
    # the upper end of the ratio's interval counts, not the head's median alone: a noisy head near the budget
    noisy = _decision(RATE_E2E_P50.name, 20.0, 45.0, spread=0.4)
    assert noisy.outcome is not verdict.Outcome.PASS and noisy.base_median * noisy.high > 50
    assert verdict.within_budget(noisy, LatencyBudget(99, 50.0)).outcome is noisy.outcome


def test_a_latency_trade_within_the_budget_neither_fails_nor_keeps_the_check_measuring():
    # the head doubles every median at rate and halves the tails (bigger batches, fewer requests), throughput
    # unchanged: without a budget a certain regression ends the check; within one the check passes and
    # stops once throughput and the medians are decided
    family = Family.of({ChangeKind.PRODUCER}, (Workload.PRODUCE, Workload.RATE))
    plan = sequential.Plan.for_rounds(18, family.size)
    rounds = lognormal_rounds(np.random.default_rng(5), {
        THROUGHPUT.name: (20, 20, 0.03), P99.name: (40, 40, 0.1), RATE_P50.name: (7, 14, 0.05),
        RATE_P99.name: (20, 10, 0.2), RATE_E2E_P50.name: (8, 16, 0.05), RATE_E2E_P99.name: (22, 11, 0.2)})
    failed, _ = stopping.replay(rounds, family, plan)
    assert failed.verdict is verdict.Outcome.REGRESSION
    passed, stop = stopping.replay(rounds, family, plan, LatencyBudget(99, 50.0))
    assert passed.verdict is verdict.Outcome.PASS and stop < 18, (passed, stop)
    outcomes = {d.metric: d.outcome for d in passed.decisions}
    assert outcomes[RATE_P50.name] is outcomes[RATE_E2E_P50.name] is verdict.Outcome.PASS
    assert outcomes[RATE_E2E_P99.name] is verdict.Outcome.IMPROVEMENT
    # a budget the head's medians exceed fails as before
    tight, _ = stopping.replay(rounds, family, plan, LatencyBudget(50, 10.0))
    assert tight.verdict is verdict.Outcome.REGRESSION

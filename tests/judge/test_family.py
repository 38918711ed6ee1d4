"""Which metrics a check judges (results/metrics.judged, configrepo.changed_kinds) and the
family-wise split of alpha across them (judge/family.py), on the fixed rule and the sequential one.
benchmarks/bench_family.py prints the same figures with more draws and on the stored gate streams."""

from __future__ import annotations

import math
import shutil
from pathlib import Path

import numpy as np
import pytest
from kcliff import configrepo
from kcliff.judge import sequential, stopping, verdict
from kcliff.judge.family import Family
from kcliff.results.metrics import (
    CONSUMED,
    E2E_P99,
    METRICS,
    P99,
    RATE_E2E_P50,
    RATE_E2E_P99,
    RATE_P50,
    RATE_P99,
    READ_SIDE,
    THROUGHPUT,
    ChangeKind,
    Metric,
    Workload,
    judged,
)

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "config-repo"
ALPHA = verdict.DEFAULT_ALPHA
EVERY = (Workload.PRODUCE, *READ_SIDE)  # flat out and the consumer's: the four metrics a check judges today
K = ChangeKind


@pytest.mark.parametrize(("changed", "expected"), [
    ({K.BROKER}, (THROUGHPUT, P99, CONSUMED, E2E_P99)),
    ({K.TOPIC}, (THROUGHPUT, P99, CONSUMED, E2E_P99)),
    ({K.PRODUCER}, (THROUGHPUT, P99, CONSUMED, E2E_P99)),  # the consumer reads the producer's batches
    ({K.CONSUMER}, (CONSUMED, E2E_P99)),
    ({K.CONSUMER, K.PRODUCER}, (THROUGHPUT, P99, CONSUMED, E2E_P99)),
    (set(), (THROUGHPUT, P99, CONSUMED, E2E_P99)),  # nothing changed, measured anyway: an A/A check judges all
])
def test_each_kind_of_change_judges_the_metrics_it_can_move(changed, expected):
    assert judged(changed, EVERY) == expected
    # a producer-only scenario measures no read side: only what it measures can be judged
    assert judged(changed, (Workload.PRODUCE,)) == tuple(m for m in expected if m.workload is Workload.PRODUCE)


@pytest.mark.parametrize(("changed", "expected"), [
    ({K.PRODUCER}, (RATE_P50, RATE_P99, RATE_E2E_P50, RATE_E2E_P99)),
    ({K.BROKER}, (RATE_P50, RATE_P99, RATE_E2E_P50, RATE_E2E_P99)),
    ({K.CONSUMER}, (RATE_E2E_P50, RATE_E2E_P99)),  # a consumer's fetch waits show end to end, never in the produce latency
])
def test_latency_at_rate_is_judged_where_the_change_can_move_it(changed, expected):
    assert judged(changed, (Workload.PRODUCE, Workload.RATE)) == tuple(
        m for m in (THROUGHPUT, P99) if m.moved(changed)) + expected


def test_a_metric_that_names_no_kinds_is_judged_on_every_change():
    latency = Metric("latency_at_rate", "rate_p99_ms", "ms", False)  # as a new metric would be declared
    assert all(latency.moved({kind}) for kind in K)


def repo(tmp_path: Path, name: str, edits: dict[str, tuple[str, str]] | None = None,
         extra: dict[str, str] | None = None) -> tuple[configrepo.ConfigRepo, configrepo.RepoScenario]:
    root = tmp_path / name
    shutil.copytree(EXAMPLE, root)
    for file, (old, new) in (edits or {}).items():
        text = (root / file).read_text()
        assert old in text
        (root / file).write_text(text.replace(old, new, 1))
    for file, text in (extra or {}).items():
        (root / file).write_text(text)
    loaded = configrepo.load([str(root)])
    return loaded, configrepo.to_scenario(loaded, name, name)


@pytest.mark.parametrize(("edits", "kinds"), [
    ({"brokers/server.properties": ("num.io.threads=8", "num.io.threads=16")}, {K.BROKER}),
    ({"topics/topics.yaml": ("partitions: 12", "partitions: 6")}, {K.TOPIC}),
    ({"producers/app-producer.properties": ("linger.ms=5", "linger.ms=100")}, {K.PRODUCER}),
    ({"consumers/app-consumer.properties": ("max.poll.records=500", "max.poll.records=500\nfetch.min.bytes=1048576")},
     {K.CONSUMER}),
    ({"producers/app-producer.properties": ("acks=all\nenable.idempotence=true", "acks=1\nenable.idempotence=false")},
     {K.PRODUCER}),  # durability counts as its scope's
    ({"producers/app-producer.properties": ("linger.ms=5", "linger.ms=5\n# tuned later")}, set()),  # a comment
])
def test_the_kinds_of_change_between_two_repos(tmp_path, edits, kinds):
    _, base = repo(tmp_path, "base")
    _, head = repo(tmp_path, "head", edits)
    assert configrepo.changed_kinds(base, head) == frozenset(kinds)


def test_a_kafka_upgrade_is_a_broker_change_and_a_declared_unchanged_version_is_none(tmp_path):
    base_repo, base = repo(tmp_path, "base")
    same_repo, same = repo(tmp_path, "same", extra={"kafka-version": "# what production runs\n4.2.0\n"})
    up_repo, up = repo(tmp_path, "up", extra={"kafka-version": "4.3.1\n"})
    unchanged = configrepo.version_change(base_repo.kafka_version, same_repo.kafka_version, "4.2.0")
    upgrade = configrepo.version_change(base_repo.kafka_version, up_repo.kafka_version, "4.2.0")
    assert unchanged is None and configrepo.changed_kinds(base, same, unchanged) == frozenset()
    assert upgrade is not None and upgrade.kind is K.BROKER
    assert configrepo.changed_kinds(base, up, upgrade) == frozenset({K.BROKER})
    # every metric but the failover ones, which only the settings FAILOVER_SETTINGS names bring in
    assert Family.of(configrepo.changed_kinds(base, up, upgrade), tuple(Workload)).judged == tuple(
        m for m in METRICS.values() if m.workload is not Workload.FAILOVER)


def test_metrics_not_judged_never_fail_nor_make_a_verdict_inconclusive():
    family = Family.of({K.CONSUMER}, EVERY)
    steady = [20.0, 21.0, 19.5, 20.5, 20.2, 19.8]
    collapsed = [v * 0.4 for v in steady]
    noisy = [20.0, 5.0, 40.0, 9.0, 30.0, 12.0]
    sv = verdict.compare_scenario("head", {"throughput": steady, "p99": steady, "consumed": steady},
                                  {"throughput": collapsed, "p99": noisy, "consumed": steady[1:] + steady[:1]}, 30.0,
                                  family, paired=True)
    assert sv.verdict is verdict.Outcome.PASS and not sv.head_in_tier  # no throughput cliff tier for a consumer change
    assert [d.outcome for d in sv.decisions] == ["not judged", "not judged", "pass"]
    nothing = verdict.compare_scenario("head", {"throughput": steady}, {"throughput": steady}, None, family, paired=True)
    assert nothing.verdict is verdict.Outcome.INCONCLUSIVE  # what it judges was not measured


def worse_by_tolerance(metric: Metric) -> float:
    """The least favourable null of a metric's regression question: worse by exactly its tolerance,
    where each test says regression with probability alpha (a true A/A ratio of 1 is far below that)."""
    tolerance = verdict.default_tolerance(verdict.metric_min_effect(metric.name, verdict.DEFAULT_MIN_EFFECT))
    return math.log(1 - tolerance) if metric.higher_is_better else math.log(1 + tolerance)


# per-round sd of the log ratios: the v3 gate stream's throughput (0.171) and p99 (0.238); the read side's
# are not in any stream yet, so the consumer's is taken as the producer's and end-to-end's as p99's
SPREAD = {THROUGHPUT: 0.171, P99: 0.238, CONSUMED: 0.171, E2E_P99: 0.238}


def any_regression(draws: int, family: Family, seed: int, rule: str) -> tuple[float, float]:
    """Seeded checks at every judged metric's least favourable null, drawn independently (where a
    union bound is tightest): the share where ANY judged metric says regression with the family's
    split, and the same rounds with every metric at the full alpha (each decision's p against it)."""
    rng = np.random.default_rng(seed)
    plan = sequential.Plan.for_rounds(18, family.size)
    split = unsplit = 0
    for _ in range(draws):
        rounds = {m.name: ([1.0] * 18, list(np.exp(rng.normal(worse_by_tolerance(m), SPREAD[m], 18))))
                  for m in family.judged}
        if rule == "fixed":
            sv = verdict.compare_scenario("head", {n: b for n, (b, _) in rounds.items()},
                                          {n: h for n, (_, h) in rounds.items()}, None, family, paired=True)
        else:
            sv, _ = stopping.replay(rounds, family, plan)
        split += sv.verdict is verdict.Outcome.REGRESSION
        unsplit += any(d.p_value is not None and d.p_value < ALPHA and verdict._worse(d.metric, d.ratio, d.min_effect)
                       for d in sv.decisions)
    return split / draws, unsplit / draws


@pytest.mark.parametrize(("rule", "draws"), [("fixed", 1200), ("sequential", 800)])
def test_the_chance_of_any_false_regression_across_four_metrics_stays_at_alpha(rule, draws):
    family = Family.of({K.BROKER}, EVERY)
    assert family.size == 4 and family.regression_alpha(ALPHA) == ALPHA / 4
    split, unsplit = any_regression(draws, family, seed=28, rule=rule)
    # Monte Carlo error of a rate at alpha over these draws, computed, not guessed: 3 of them is the bound
    error = math.sqrt(ALPHA * (1 - ALPHA) / draws)
    assert split <= ALPHA + 3 * error, (split, error)
    # each metric at the full alpha makes any regression about 1 - 0.975^4 = 9.6% likely: the split is needed
    assert unsplit > ALPHA + 3 * error and unsplit > 2.5 * split, (unsplit, split)


def lognormal(rng: np.random.Generator, level: float, spread: float, rounds: int = 18) -> list[float]:
    """A metric's values over `rounds` rounds: `level` with log-normal noise of `spread` a round."""
    return list(level * np.exp(rng.normal(0, spread, rounds)))


def lognormal_rounds(rng: np.random.Generator, levels: dict[str, tuple[float, float, float]],
                     rounds: int = 18) -> dict[str, tuple[list[float], list[float]]]:
    """Base's and head's values for each metric name: (base level, head level, spread), base drawn first."""
    return {name: (lognormal(rng, base, spread, rounds), lognormal(rng, head, spread, rounds))
            for name, (base, head, spread) in levels.items()}


def test_a_certain_regression_of_latency_at_rate_ends_the_check_before_its_last_round():
    # linger.ms 5 -> 100 at rate: the median 5x with a few % noise, flat out unchanged; latency at rate has no
    # resolution, so before, only throughput's pass could end the check and it ran to its last round
    family = Family.of({K.PRODUCER}, (Workload.PRODUCE, Workload.RATE))
    plan = sequential.Plan.for_rounds(18, family.size)
    rng = np.random.default_rng(7)
    rounds = lognormal_rounds(rng, {THROUGHPUT.name: (10, 10, 0.15), P99.name: (50, 50, 0.2),
                                    RATE_P50.name: (5, 25, 0.05), RATE_P99.name: (10, 60, 0.3),
                                    RATE_E2E_P50.name: (6, 30, 0.05), RATE_E2E_P99.name: (12, 70, 0.3)})
    sv, stop = stopping.replay(rounds, family, plan)
    assert sv.verdict is verdict.Outcome.REGRESSION and stop < 18, stop
    unmoved = {n: (b, lognormal(rng, float(np.median(b)), 0.05)) for n, (b, _) in rounds.items()}
    assert stopping.replay(unmoved, family, plan)[0].verdict is verdict.Outcome.PASS


def test_a_pass_waits_for_the_medians_at_rate_to_rule_out_their_resolution():
    # A/A: throughput certain early, the medians at rate as noisy as the A/A campaign's worst (about 10% a
    # round) or far noisier. The quiet ones are certain by throughput's stop; the noisy ones keep the check
    # measuring, and at its last round cannot rule out a 30% worsening: inconclusive, never a pass.
    family = Family.of({K.PRODUCER}, (Workload.PRODUCE, Workload.RATE))
    assert RATE_P50.resolution == RATE_E2E_P50.resolution == 0.3 and RATE_P99.resolution is None
    plan = sequential.Plan.for_rounds(18, family.size)
    rng = np.random.default_rng(11)

    def rounds(p50_spread: float) -> dict[str, tuple[list[float], list[float]]]:
        return lognormal_rounds(rng, {THROUGHPUT.name: (60, 60, 0.03), P99.name: (200, 200, 0.4),
                                      RATE_P50.name: (5, 5, p50_spread), RATE_P99.name: (12, 12, 0.4),
                                      RATE_E2E_P50.name: (6, 6, p50_spread), RATE_E2E_P99.name: (13, 13, 0.4)})

    quiet, quiet_stop = stopping.replay(rounds(0.05), family, plan)
    assert quiet.verdict is verdict.Outcome.PASS and quiet_stop < 18, quiet_stop
    noisy_sv, noisy_stop = stopping.replay(rounds(0.8), family, plan)
    assert noisy_stop == 18 and noisy_sv.verdict is verdict.Outcome.INCONCLUSIVE, noisy_sv

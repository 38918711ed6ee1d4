"""Factor analysis: on SYNTHETIC runs whose true effects are known, and on the committed full runs
benchmarks/data/early-stop-100k-{off,on}.json (18 pairwise rows + reference + 3 canaries; -on has two
design rows stopped early as cliffs)."""

import math
from pathlib import Path

import numpy as np
import pytest
import synthetic
from kcliff.pairwise import censored, design, factors, study
from kcliff.results import metrics, model
from kcliff.results.model import ResultsDoc
from kcliff.scenario.suites import parse_scenario

DATA = Path(__file__).resolve().parents[2] / "benchmarks" / "data"
POWERS = {"log.flush.interval.messages": 0.3, "max.in.flight.requests.per.connection": 0.8,
          "batch.size": 0.5, "linger.ms": -0.1}
FLUSH = "broker log.flush.interval.messages"


@pytest.fixture(scope="module")
def off():
    return model.load(DATA / "early-stop-100k-off.json")


@pytest.fixture(scope="module")
def on():
    return model.load(DATA / "early-stop-100k-on.json")


def _power_law_doc():
    """A synthetic run whose design rows follow MB/s = 40 x prod(level^power) exactly (linger: level+1)."""
    doc = synthetic.results(0, synthetic.START, seed=1)
    for sc in doc["scenarios"]:
        if sc["source"].endswith("pairwise.yaml"):
            applied = {**sc["applied"]["broker"], **sc["applied"]["producer"]}
            mb = 40.0
            for name, power in POWERS.items():
                mb *= (applied[name] + (1 if name == "linger.ms" else 0)) ** power
            for run in sc["runs"]:
                run["mb_per_sec"], run["p99_ms"] = mb, 4000.0 / mb
            sc["summary"] = None
    return ResultsDoc.model_validate(doc)


def _level(fa, setting, level):
    return fa.levels[(fa.levels["setting"] == setting) & (fa.levels["level"] == level)].iloc[0]


def test_the_model_recovers_known_powers_for_both_metrics_from_a_noise_free_run():
    fa = factors.analyse(_power_law_doc())
    for name, power in POWERS.items():
        scope = "broker" if name.startswith("log.") else "producer"
        assert fa.fits["throughput"].slope[f"{scope} {name}"] == pytest.approx(power, abs=1e-3), name
        assert fa.fits["p99"].slope[f"{scope} {name}"] == pytest.approx(-power, abs=5e-3), name
    assert fa.best.settings["producer"]["max.in.flight.requests.per.connection"] == 5
    assert fa.best.settings["producer"]["linger.ms"] == 0  # a negative power: the lowest level is best


def test_only_pairwise_rows_are_design_rows_the_reference_and_canaries_stand_beside():
    fa = factors.analyse(ResultsDoc.model_validate(synthetic.results(0, synthetic.START, seed=4)))
    assert fa.rows == 9
    assert sorted(fa.beside["scenario"]) == ["flush-1", "inflight-1", "reference"]
    # a scenario from another file (a hand-written one, a config check's head) is not a design row
    entry = model.Entry(id="my-head", source="/repo/scenarios/cliffs.yaml", status="ok")
    assert not design.is_design_row(entry)
    assert design.is_design_row(entry.model_copy(update={"source": "/x/scenarios/pairwise-3way.yaml"}))
    assert not design.is_design_row(entry.model_copy(update={"id": model.REFERENCE_ID,
                                                             "source": "/x/scenarios/pairwise.yaml"}))


def test_per_level_averages_are_plain_means_over_the_design_rows():
    doc = synthetic.results(0, synthetic.START, seed=4)
    fa = factors.analyse(ResultsDoc.model_validate(doc))
    medians = [sc["summary"]["mb_per_sec"]["median"] for sc in doc["scenarios"]
               if sc["source"].endswith("pairwise.yaml") and sc["applied"]["producer"].get("batch.size") == 262144]
    row = _level(fa, "batch.size", "262144")
    assert row["scenarios"] == len(medians) == 3
    assert row["average MB/s"] == pytest.approx(sum(medians) / len(medians))
    assert row["min MB/s"] == min(medians) and row["max MB/s"] == max(medians)


def test_a_run_without_design_rows_has_no_analysis_and_says_why():
    doc = synthetic.results(0, synthetic.START, seed=1)
    doc["scenarios"] = doc["scenarios"][:3]  # reference and canaries only
    fa = factors.analyse(ResultsDoc.model_validate(doc))
    assert fa.empty and "No factor analysis" in fa.warnings[0] and len(fa.beside) == 3


def test_the_full_run_analyses_its_18_design_rows_and_nothing_else(off):
    built = design.build(off)
    assert sorted(built.table["_scenario"]) == [f"pw-{i:02d}" for i in range(1, 19)]
    assert sorted(e.id for e in built.beside) == ["batching-off", "flush-1", "inflight-1", "reference"]
    # the default flush level (Long.MAX) was the reference + two canaries: no longer a level at all
    assert sorted(built.table[FLUSH].unique(), key=float) == ["1", "1000", "10000"]
    fa = factors.analyse(off)
    flush = fa.levels[fa.levels["setting"] == "log.flush.interval.messages"]
    assert list(flush["scenarios"]) == [6, 6, 6]
    pw = [e for e in off.scenarios if e.id.startswith("pw-")]
    at_10000 = [e.median(metrics.THROUGHPUT) for e in pw if e.applied["broker"]["log.flush.interval.messages"] == 10000]
    assert _level(fa, "log.flush.interval.messages", "10000")["average MB/s"] == pytest.approx(np.mean(at_10000))


def test_both_metrics_are_fitted_with_a_model_the_design_identifies(off):
    fa = factors.analyse(off)
    assert set(fa.fits) == {"throughput", "p99"}
    assert fa.fits["throughput"].rows == fa.fits["p99"].rows == 18
    assert "13 parameters per metric on 18 design rows" in fa.model_note and "aliased" in fa.model_note
    assert all(math.isfinite(se) and se > 0 for se in fa.fits["throughput"].se.values())
    assert fa.levels["model p99 x best"].notna().all()


def test_cliff_rows_enter_as_bounds(on, off):
    built = design.build(on)
    cliffs = built.table[built.table["_censored"]]
    assert sorted(cliffs["_scenario"]) == ["pw-08", "pw-14"]
    mb_cap, p99_floor = design.cliff_bounds(on)
    assert (cliffs["_mb"] <= mb_cap).all() and (cliffs["_p99"] == p99_floor).all()
    # the bounds hold: the same rows measured in full (early stop off) are within them
    for sid in ("pw-08", "pw-14"):
        full = off.entry(sid)
        assert full.median(metrics.THROUGHPUT) <= cliffs.set_index("_scenario").loc[sid, "_mb"]
        assert full.median(metrics.P99) >= p99_floor
    assert factors.analyse(on).fits["throughput"].bounded == 2


def test_the_censored_fit_lets_cliff_rows_lie_below_their_bound(on):
    """Both cliff rows are batch=16K: read as upper bounds, the small batch's cost can only look
    bigger than when the bounds are taken as measured values."""
    built = design.build(on)
    encodings = {f: factors.encode(built.table[f].unique().tolist()) for f in built.factors}
    fit = factors.fit_metric(built.table, encodings, "_mb", censored.AT_MOST)
    naive = factors.fit_metric(built.table.assign(_censored=False), encodings, "_mb", censored.AT_MOST)
    batch = "producer batch.size"
    assert fit.bounded == 2 and naive.bounded == 0
    assert fit.slope[batch] >= naive.slope[batch] > 0


def test_study_tables_tiers_and_pairs_on_the_full_run(off, on):
    for doc in (off, on):
        fa = factors.analyse(doc)
        assert fa.tier_factor == "producer batch.size"
        assert fa.tiers["scenarios"].sum() == 18 and list(fa.tiers["level"])[-1] == "16384"
        assert {"model rank", "study rank", "model range x", "study range x"} <= set(fa.ranking.columns)
        assert fa.ranking.iloc[0]["setting"] == "batch.size" and fa.ranking.iloc[0]["study rank"] == 1
        pair = fa.pairs.iloc[0]
        assert (pair["faster"], pair["slower"], pair["differences"]) == ("pw-15", "pw-14", 4)
        assert pair["ratio x"] > 10
    # a pairwise design's rows differ in most settings: none of the committed ones within 2
    assert study.contrasting_pairs(design.build(off), max_differences=2).empty


def test_the_prediction_is_a_scenario_and_respects_the_p99_bound(off):
    fa = factors.analyse(off)
    assert fa.best is not None
    chosen = fa.best.settings
    assert set(chosen) == {"broker", "topic", "producer"}
    assert chosen["producer"]["batch.size"] == 1048576 and isinstance(chosen["topic"]["partitions"], int)
    parse_scenario({"id": "predicted", "description": "the model's best", **chosen}, "<prediction>")
    p99 = fa.fits["p99"]
    lowest = math.exp(p99.intercept + sum(min(c.values()) for c in p99.contributions.values()))
    assert lowest < fa.best.p99_ms  # so a bound between them must change the choice
    bound = math.sqrt(lowest * fa.best.p99_ms)
    bounded = factors.analyse(off, p99_bound_ms=bound).bounded
    assert bounded is not None and bounded.p99_ms <= bound and bounded.levels != fa.best.levels
    assert bounded.mb_per_sec < fa.best.mb_per_sec
    assert factors.analyse(off, p99_bound_ms=1e-6).bounded is None
    assert list(fa.measured["scenario"][:1]) == ["pw-09"]
    assert any("never measured" in w for w in fa.warnings)

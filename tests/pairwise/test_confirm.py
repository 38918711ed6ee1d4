"""`kcliff run --confirm`'s plan and verdict, on committed real runs (no Kafka here)."""

from pathlib import Path

import pytest
from kcliff.errors import InputError
from kcliff.pairwise import confirm, design, factors
from kcliff.results import model
from kcliff.results.model import REFERENCE_ID
from kcliff.scenario.suites import load_suites

DATA = Path(__file__).resolve().parents[2] / "benchmarks" / "data"
STUDY = DATA / "study-repro-local-2c.json"


@pytest.fixture(scope="module")
def pairwise_run() -> model.ResultsDoc:
    return model.load(DATA / "early-stop-100k-off.json")


def test_plan_measures_the_prediction_beside_the_fastest_row_and_the_reference(pairwise_run):
    suite = load_suites(["pairwise", "canaries"])
    planned = confirm.plan(pairwise_run, suite, None)
    fa = factors.analyse(pairwise_run)
    ids = [sc.id for sc in planned.scenarios]
    assert ids[:2] == [confirm.REFERENCE, confirm.FASTEST] and confirm.PREDICTED["best"] in ids
    fastest_row = str(fa.measured.iloc[0]["scenario"])
    assert planned.record.fastest_row == fastest_row
    by_id = {sc.id: sc for sc in suite}
    again = planned.scenarios[1]
    assert (again.broker, again.topic, again.producer) == (by_id[fastest_row].broker, by_id[fastest_row].topic,
                                                           by_id[fastest_row].producer)
    reference = planned.scenarios[0]
    assert reference.topic == by_id[REFERENCE_ID].topic and reference.cliff is None
    predicted = planned.scenarios[ids.index(confirm.PREDICTED["best"])]
    for factor, level in fa.best.levels.items():
        scope, name = design.split(factor)
        assert design.label(predicted.settings_in(scope)[name]) == level
    # the confirmation's scenarios come from no suite file: never design rows, whatever they measure
    assert all(sc.source == confirm.SOURCE and not design.is_design_source(sc.source) for sc in planned.scenarios)
    record = planned.record.predictions[0]
    assert record.predicted_mb_per_sec == pytest.approx(fa.best.mb_per_sec)


def test_a_run_without_design_rows_has_nothing_to_confirm():
    canaries = model.load(DATA / "results-canaries-local-2c.json")
    with pytest.raises(InputError, match="nothing to confirm"):
        confirm.plan(canaries, load_suites(["canaries"]), None)


def test_the_committed_reproduction_has_a_judged_confirmation():
    doc = model.load(STUDY)
    checked = confirm.check(doc)
    assert doc.confirmation is not None and checked
    fastest = doc.entry(doc.confirmation.fastest_id)
    for c in checked:
        assert c.outcome is not confirm.Held.NOT_MEASURED
        entry = doc.entry(c.config.id)
        assert entry is not None and entry.interleaved_with and fastest.id in entry.interleaved_with
        if c.vs_fastest is not None:
            assert c.vs_fastest.method == "paired" and c.vs_fastest.n_pairs == len(entry.runs)
    # confirmation entries stay out of the design: the analysis is the same without them
    without = doc.model_copy(deep=True)
    without.scenarios = [e for e in without.scenarios if e.source != confirm.SOURCE]
    assert factors.analyse(doc).ranking.equals(factors.analyse(without).ranking)

"""A canary's bound on a rig whose links or disks are capped (a rig profile): the canaries as shipped
(scenarios/canaries.yaml), recorded into a run's entry as measure/rounds.py records them."""

from __future__ import annotations

from kcliff.judge.canary import canary_verdict
from kcliff.measure.document import new_entry
from kcliff.results.model import REFERENCE_ID, Entry, Run
from kcliff.scenario.suites import load_suites

CANARIES = {sc.id: sc for sc in load_suites(["canaries"]) if sc.cliff is not None}


def measured(sid: str, bytes_capped: bool, rates: list[float]) -> Entry:
    entry = new_entry(CANARIES[sid], bytes_capped)
    entry.runs = [Run(records=1000, mb_per_sec=r, p99_ms=100.0) for r in rates]
    entry.resummarise()
    return entry


def reference(rates: list[float]) -> Entry:
    entry = Entry(id=REFERENCE_ID, runs=[Run(records=1000, mb_per_sec=r, p99_ms=50.0) for r in rates])
    entry.resummarise()
    return entry


def test_batching_off_is_held_to_its_looser_bound_only_where_bytes_bind() -> None:
    # 0.52x: batching off at aws-m5.xlarge-gp3 on JSON events read 0.48-0.56x (docs/profiles.md)
    ref = reference([1.70, 1.72, 1.74])
    assert not canary_verdict(measured("batching-off", False, [0.88, 0.90, 0.92]), ref).seen
    capped = canary_verdict(measured("batching-off", True, [0.88, 0.90, 0.92]), ref)
    assert capped.seen and capped.max_ratio == 0.75, capped


def test_a_canary_with_no_bound_of_its_own_for_capped_bytes_keeps_its_bound() -> None:
    for bytes_capped in (False, True):
        assert new_entry(CANARIES["flush-1"], bytes_capped).cliff.max_ratio == CANARIES["flush-1"].cliff.max_ratio


def test_the_entry_records_the_bound_it_was_judged_by() -> None:
    entry = new_entry(CANARIES["batching-off"], True)
    assert entry.cliff is not None and entry.cliff.max_ratio == 0.75
    again = Entry.model_validate(entry.model_dump(mode="json"))
    assert again.cliff == entry.cliff

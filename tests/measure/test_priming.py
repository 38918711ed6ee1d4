"""Priming stops at its own end: a run of PRIME_RECORDS is cut at the priming's seconds, while
`--prime 0` still gets its one run (bounded by the scenario budget alone)."""

import time

from kcliff.measure import priming


def test_a_short_priming_stops_its_run_at_its_end() -> None:
    began = time.monotonic()
    assert priming._deadline(began, 5.0, 600.0) == began + 5.0


def test_a_priming_longer_than_the_budget_stops_at_the_budget() -> None:
    began = time.monotonic()
    assert priming._deadline(began, 3600.0, 60.0) <= time.monotonic() + 60.0


def test_no_priming_is_one_run_within_the_budget() -> None:
    began = time.monotonic() - 100
    deadline = priming._deadline(began, 0.0, 60.0)
    assert time.monotonic() + 59 < deadline <= time.monotonic() + 60.0

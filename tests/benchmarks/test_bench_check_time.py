"""The check-time campaign's --until: the next time the clock shows it, across midnight too (a campaign
started at 23:00 with --until 00:30 stopped at once; one given 23:59 kept starting checks after midnight)."""

import importlib.util
import sys
from datetime import datetime
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "bench_check_time.py"
spec = importlib.util.spec_from_file_location("bench_check_time", SCRIPT)
assert spec is not None and spec.loader is not None
bench = importlib.util.module_from_spec(spec)
sys.modules[spec.name] = bench  # its dataclasses look their module up
spec.loader.exec_module(bench)


def test_until_is_the_next_time_the_clock_shows_it():
    half_past_midnight = bench._time_of_day("00:30")
    assert bench.next_time(half_past_midnight, datetime(2026, 12, 1, 23, 0)) == datetime(2026, 12, 2, 0, 30)
    assert bench.next_time(half_past_midnight, datetime(2026, 12, 1, 0, 10)) == datetime(2026, 12, 1, 0, 30)
    late = bench._time_of_day("23:59")
    assert bench.next_time(late, datetime(2026, 12, 2, 0, 5)) == datetime(2026, 12, 2, 23, 59)


def test_a_time_the_clock_never_shows_is_refused():
    with pytest.raises(Exception, match="HH:MM"):
        bench._time_of_day("25:00")

"""The independent coverage checker: it must pass the committed suite and catch every kind of gap."""

from __future__ import annotations

import itertools
from collections import Counter
from pathlib import Path

from kcliff.scenario import coverage, space
from kcliff.scenario import suites as scenario

ROOT = Path(__file__).resolve().parents[2]
SPACE = ROOT / "scenarios" / "space.yaml"
SUITE = ROOT / "scenarios" / "pairwise.yaml"

TINY = """\
settings:
  - scope: producer
    name: linger.ms
    levels: [{value: 0, reason: a}, {value: 20, reason: b}]
  - scope: producer
    name: compression.type
    levels: [{value: none, reason: a}, {value: lz4, reason: b}]
  - scope: topic
    name: partitions
    levels: [{value: 3, reason: a}, {value: 6, reason: b}]
"""


def tiny_space(tmp_path: Path, extra: str = "") -> space.Space:
    path = tmp_path / "space.yaml"
    path.write_text(TINY + extra)
    return space.load(path)


def row(linger, compression, partitions):
    return {("producer", "linger.ms"): linger, ("producer", "compression.type"): compression,
            ("topic", "partitions"): partitions}


def test_committed_suite_loads_is_small_and_covers_every_pair():
    loaded = scenario.load_file(SUITE)
    assert 1 <= len(loaded) <= 18
    assert all(scenario.ID_PATTERN.match(sc.id) for sc in loaded)
    for sc in loaded:  # settings under the invariants only: no acks / RF / min.insync keys
        assert "acks" not in sc.producer and "replication.factor" not in sc.topic
    report = coverage.check_file(space.load(SPACE), SUITE, 2)
    assert report.ok, (report.missing[:5], report.broken, report.invalid)
    assert report.required == 519  # 4^4 x 3^6 shape: every pair of levels, none ruled out


def test_removing_any_one_row_of_the_committed_suite_is_caught():
    the_space = space.load(SPACE)
    rows = coverage.rows_of_suite(SUITE)
    pair_count = Counter()
    for _, r in rows:
        pair_count.update(itertools.combinations(sorted(r.items()), 2))
    for i in range(len(rows)):
        report = coverage.check_rows(the_space, rows[:i] + rows[i + 1:], 2)
        assert not report.ok
        # Exactly the pairs only the removed row held are reported missing.
        only_here = {p for p in itertools.combinations(sorted(rows[i][1].items()), 2) if pair_count[p] == 1}
        assert {tuple(sorted(m)) for m in report.missing} == only_here


def test_full_factorial_passes_and_a_gap_is_named(tmp_path):
    the_space = tiny_space(tmp_path)
    full = [(f"r{i}", row(*values)) for i, values in enumerate(itertools.product([0, 20], ["none", "lz4"], [3, 6]))]
    assert coverage.check_rows(the_space, full, 2).ok
    assert coverage.check_rows(the_space, full, 3).ok
    partial = [r for r in full if not (r[1][("producer", "linger.ms")] == 20 and r[1][("topic", "partitions")] == 6)]
    report = coverage.check_rows(the_space, partial, 2)
    assert [coverage.format_tuple(m) for m in report.missing] == ["producer linger.ms=20 + topic partitions=6"]
    assert report.covered_share < 1


def test_rows_breaking_a_constraint_and_constrained_pairs_not_demanded(tmp_path):
    the_space = tiny_space(tmp_path, "constraints:\n  - forbid: {producer: {linger.ms: 0, compression.type: lz4}}\n"
                                     "    reason: test\n")
    allowed = [(f"r{i}", row(*values)) for i, values in enumerate(itertools.product([0, 20], ["none", "lz4"], [3, 6]))
               if values[:2] != (0, "lz4")]
    report = coverage.check_rows(the_space, allowed, 2)
    assert report.ok and report.required == 11  # 12 pairs minus the forbidden one
    bad = allowed + [("bad", row(0, "lz4", 3))]
    report = coverage.check_rows(the_space, bad, 2)
    assert report.broken and report.broken[0].startswith("bad: breaks the constraint at ")


def test_pairs_impossible_through_a_chain_of_constraints_are_not_demanded(tmp_path):
    # linger=0 forces compression=none; none forbids partitions=3: so (linger=0, partitions=3) is impossible.
    the_space = tiny_space(tmp_path, """\
constraints:
  - forbid: {producer: {linger.ms: 0, compression.type: lz4}}
    reason: a
  - forbid: {producer: {compression.type: none}, topic: {partitions: 3}}
    reason: b
""")
    required = {coverage.format_tuple(t) for t in coverage.required_tuples(the_space, 2)}
    assert "producer linger.ms=0 + topic partitions=3" not in required
    assert "producer linger.ms=20 + topic partitions=3" in required


def test_values_that_are_not_levels_and_missing_settings_are_reported(tmp_path):
    the_space = tiny_space(tmp_path)
    rows = [("odd", row(5, "none", 3)), ("short", {("producer", "linger.ms"): 0}),
            ("extra", {**row(0, "none", 3), ("producer", "batch.size"): 16384}),
            ("invalid", {**row(0, "none", 3), ("topic", "partitions"): 0})]
    invalid = coverage.check_rows(the_space, rows, 2).invalid
    assert any(x.startswith("odd: producer linger.ms=5 is not a level") for x in invalid)
    assert any(x == "short: does not set topic partitions" for x in invalid)
    assert any("extra: sets producer batch.size, which is not a setting of the space" in x for x in invalid)
    assert any(x.startswith("invalid: topic partitions: 0 is out of range") for x in invalid)


def test_strength_three_gap(tmp_path):
    the_space = tiny_space(tmp_path)
    full = [(f"r{i}", row(*values)) for i, values in enumerate(itertools.product([0, 20], ["none", "lz4"], [3, 6]))]
    report = coverage.check_rows(the_space, full[1:], 3)
    assert [coverage.format_tuple(m) for m in report.missing] == [
        "producer linger.ms=0 + producer compression.type=none + topic partitions=3"]

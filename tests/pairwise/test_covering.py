"""The covering-array generator on abstract models, checked by brute force written here (not by the
generator's own bookkeeping)."""

from __future__ import annotations

import itertools

import pytest
from allpairspy import AllPairs
from kcliff.pairwise import covering

STUDY_SHAPE = (4, 4, 4, 4, 3, 3, 3, 3, 3, 3)

# Found by searching small random models: allpairspy's filter_func misses 8 allowed pairs here.
LOSSY_LEVELS = (3, 2, 3, 4, 3)
LOSSY_FORBIDS = (((2, 1), (3, 1)), ((1, 0), (4, 1)))


def breaks(row, forbids) -> bool:
    return any(all(row[p] == v for p, v in f) for f in forbids)


def required(levels, forbids, strength):
    """Every tuple some constraint-abiding full row holds, by enumerating all rows."""
    if not forbids:
        return {tuple(zip(combo, values)) for combo in itertools.combinations(range(len(levels)), strength)
                for values in itertools.product(*(range(levels[p]) for p in combo))}
    need = set()
    for row in itertools.product(*(range(k) for k in levels)):
        if not breaks(row, forbids):
            need.update(tuples_of(row, strength))
    return need


def tuples_of(row, strength):
    return {tuple((p, row[p]) for p in combo) for combo in itertools.combinations(range(len(row)), strength)}


def missing(rows, levels, forbids, strength):
    covered = set()
    for row in rows:
        covered |= tuples_of(row, strength)
    return required(levels, forbids, strength) - covered


def test_allpairspy_filter_loses_pairs_that_generate_covers():
    def keep(values):
        return not any(all(p < len(values) and values[p] == v for p, v in f) for f in LOSSY_FORBIDS)

    stock = [tuple(r) for r in AllPairs([list(range(k)) for k in LOSSY_LEVELS], n=2, filter_func=keep)]
    assert missing(stock, LOSSY_LEVELS, LOSSY_FORBIDS, 2), "allpairspy no longer drops pairs here"

    result = covering.generate(covering.Model(LOSSY_LEVELS, LOSSY_FORBIDS), 2, seed=3, max_steps=20_000)
    assert not missing(result.rows, LOSSY_LEVELS, LOSSY_FORBIDS, 2)
    assert not any(breaks(row, LOSSY_FORBIDS) for row in result.rows)
    assert all(0 <= v < k for row in result.rows for v, k in zip(row, LOSSY_LEVELS))


def test_pairs_ruled_out_only_through_a_chain_of_constraints_are_not_demanded():
    levels = (2, 2, 2, 3)
    # p0=0 forces p1=1 (p1=0 is forbidden with it), and p1=1 forbids p2=0: so (p0=0, p2=0) is impossible.
    forbids = (((0, 0), (1, 0)), ((1, 1), (2, 0)))
    result = covering.generate(covering.Model(levels, forbids), 2, seed=1, max_steps=5_000)
    assert ((0, 0), (2, 0)) not in required(levels, forbids, 2)
    assert not missing(result.rows, levels, forbids, 2)
    assert not any(breaks(row, forbids) for row in result.rows)


def test_study_shape_reaches_18_rows_with_a_bounded_budget():
    # Deterministic: the same seed and budget always take the same path, on any machine.
    result = covering.generate(covering.Model(STUDY_SHAPE), 2, seed=1, max_steps=30_000, target=18)
    assert result.allpairspy_rows == 24
    assert len(result.rows) <= 18
    assert not missing(result.rows, STUDY_SHAPE, (), 2)


def test_constraints_on_study_shape_keep_every_allowed_pair():
    forbids = (((4, 0), (9, 0)), ((6, 0), (7, 2)), ((6, 0), (7, 3)), ((0, 1), (1, 1), (2, 1)))
    result = covering.generate(covering.Model(STUDY_SHAPE, forbids), 2, seed=2, max_steps=30_000,
                               stall_steps=10_000)
    assert not any(breaks(row, forbids) for row in result.rows)
    covered = set()
    for row in result.rows:
        covered |= tuples_of(row, 2)
    # Every pair not forbidden outright is allowed here (no chains), so compare with the full list.
    for combo in itertools.combinations(range(len(STUDY_SHAPE)), 2):
        for values in itertools.product(*(range(STUDY_SHAPE[p]) for p in combo)):
            pair = tuple(zip(combo, values))
            if not any(set(f) <= set(pair) for f in forbids if len(f) == 2):
                assert pair in covered, pair
    assert len(result.rows) < 24


def test_seeded_rows_appear_verbatim_and_partial_seeds_keep_their_cells():
    levels = (3, 3, 3, 3, 2)
    full = ((0, 2), (1, 2), (2, 1), (3, 0), (4, 1))
    partial = ((0, 1), (3, 2))
    result = covering.generate(covering.Model(levels, seeds=(full, partial)), 2, seed=5, max_steps=10_000)
    assert result.rows[result.seed_rows[0]] == (2, 2, 1, 0, 1)
    held = result.rows[result.seed_rows[1]]
    assert held[0] == 1 and held[3] == 2
    assert not missing(result.rows, levels, (), 2)


def test_same_inputs_same_suite_and_seed_changes_the_search():
    model = covering.Model((4, 4, 3, 3, 3, 2), forbids=(((0, 0), (1, 0)),), seeds=(((2, 2), (3, 1)),))
    first = covering.generate(model, 2, seed=7, max_steps=8_000)
    again = covering.generate(model, 2, seed=7, max_steps=8_000)
    assert first.rows == again.rows and first.steps == again.steps
    other = covering.generate(model, 2, seed=8, max_steps=8_000)
    assert not missing(other.rows, model.levels, model.forbids, 2)


def test_strength_three_covers_every_triple_where_allpairspy_does_not():
    levels = (3, 3, 3, 2, 2, 2)
    stock = [tuple(r) for r in AllPairs([list(range(k)) for k in levels], n=3)]
    assert missing(stock, levels, (), 3), "allpairspy's n=3 became 3-way; revisit covering.py's start"
    result = covering.generate(covering.Model(levels), 3, seed=1, max_steps=20_000)
    assert not missing(result.rows, levels, (), 3)
    assert len(result.rows) >= covering.lower_bound(levels, 3)


def test_strength_three_with_constraints():
    levels = (3, 3, 2, 2, 2)
    forbids = (((0, 0), (1, 0)), ((2, 1), (3, 1), (4, 1)))
    result = covering.generate(covering.Model(levels, forbids), 3, seed=1, max_steps=20_000)
    assert not missing(result.rows, levels, forbids, 3)
    assert not any(breaks(row, forbids) for row in result.rows)


def test_bad_strength_is_refused():
    with pytest.raises(ValueError):
        covering.generate(covering.Model((2, 2)), 4)

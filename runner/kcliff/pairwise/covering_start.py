"""Steps 1-2 of the covering-array generator, the sound start: seeded rows first, then allpairspy's
rows (t=2), each verified against the constraints, then a greedy row for every allowed tuple still
uncovered, so the start always covers 100% whatever allpairspy missed."""

from __future__ import annotations

import random
from typing import Sequence

from allpairspy import AllPairs

from kcliff.pairwise.covering_suite import Assignment, Rules, Suite


def _greedy_fill(partial: list[int | None], suite: Suite, rules: Rules, order: list[int]) -> list[int]:
    """Fill the free cells of `partial`, each with the level that completes the most uncovered tuples.

    Only levels that keep the row completable are tried, so the result breaks no constraint."""
    row = list(partial)
    tuples = suite.tuples
    counts, allowed = suite.counts.tolist(), suite.allowed.tolist()
    for param in order:
        if row[param] is not None:
            continue
        best_value, best_gain = None, -1
        for value in range(tuples.levels[param]):
            row[param] = value
            if rules.forbids and rules.completion(row) is None:
                continue
            gain = 0
            for k, _ in tuples.by_param[param]:
                cells = [row[p] for p in tuples.combos[k]]
                filled = [c for c in cells if c is not None]
                if len(filled) < len(cells):
                    continue
                tid = tuples.offsets[k] + sum(c * s for c, s in zip(filled, tuples.strides[k]))
                if counts[tid] == 0 and allowed[tid]:
                    gain += 1
            if gain > best_gain:
                best_value, best_gain = value, gain
        row[param] = best_value
    return _full(row)


def _full(row: Sequence[int | None]) -> list[int]:
    """`row` as ints, every cell set: a cell left None is a bug here, named instead of int(None)'s TypeError."""
    out = [int(v) for v in row if v is not None]
    if len(out) != len(row):
        raise ValueError(f"covering: row {row} has cells without a level")
    return out


def sound_start(levels: Sequence[int], seeds: Sequence[Assignment], strength: int, suite: Suite, rules: Rules,
                rng: random.Random) -> int | None:
    """Steps 1-2: seeds, then allpairspy (t=2), then a greedy row for every tuple left over. Returns
    the number of rows allpairspy gave (None at t=3, where it is not used)."""
    n = len(levels)
    order = list(range(n))
    for seed in seeds:
        partial: list[int | None] = [None] * n
        for p, v in seed:
            partial[p] = v
        suite.append(_greedy_fill(partial, suite, rules, order), [p for p, _ in seed])
    allpairspy_rows = None
    if strength == 2:
        # allpairspy does better with the most-levels parameters first (24 rows instead of 27 on the
        # study's shape), so it sees them in that order and its rows are mapped back.
        ap_order = sorted(range(n), key=lambda p: -levels[p])

        def unorder(values: Sequence[int]) -> list[int | None]:
            row: list[int | None] = [None] * n
            for p, v in zip(ap_order, values):
                row[p] = v
            return row

        def keep(values: list[int]) -> bool:  # allpairspy passes growing prefixes of a row
            return not rules.breaks(unorder(values), ap_order[:len(values)])

        seeded = [[row[p] for p in ap_order] for row in suite.rows.tolist()]
        generated = list(AllPairs([list(range(levels[p])) for p in ap_order], n=2, filter_func=keep,
                                  previously_tested=seeded or None))
        allpairspy_rows = len(generated)
        for values in generated:
            row = unorder(values)
            if not rules.breaks(row, range(n)):  # never trust, always verify
                suite.append(_full(row))
    while suite.uncovered:
        # Build around the lowest-numbered uncovered tuple: deterministic, and each row covers >= 1.
        params, values = suite.tuples.decode(min(suite.uncovered))
        partial = [None] * n
        for p, v in zip(params, values):
            partial[p] = v
        rng.shuffle(order)
        suite.append(_greedy_fill(partial, suite, rules, order))
    return allpairspy_rows

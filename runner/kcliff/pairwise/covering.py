"""Covering arrays for the pairwise (t=2) and 3-way (t=3) suites: a sound start, then a seeded search.

The model is abstract: parameter i has `levels[i]` values 0..levels[i]-1, and the suite must hold
every *allowed* tuple (t parameters with one value each that some full row breaking no constraint
holds). Generation starts from allpairspy (t=2) or a greedy builder (t=3), seeded rows first; adds a
row for every allowed tuple still uncovered, so the start always covers 100%; then shrinks by
dropping rows and repairing with simulated annealing, because every row is a whole scenario in CI
and the stock generators stop rows above what is reachable. One `random.Random(seed)` and budgets
counted in search steps, never wall-clock time, make the same inputs give the identical suite.
The steps, and why allpairspy is not trusted alone: docs/pairwise.md.
"""

from __future__ import annotations

import itertools
import math
import random
import time
from dataclasses import dataclass, field
from typing import Iterable, Sequence, cast

import numpy as np
from allpairspy import AllPairs

Assignment = tuple[tuple[int, int], ...]  # ((parameter, level), ...), sorted by parameter

DEFAULT_MAX_STEPS = 400_000
DEFAULT_STALL_STEPS = 150_000
_PRICED_OUT = 1 << 40


@dataclass(frozen=True)
class Model:
    levels: tuple[int, ...]
    forbids: tuple[Assignment, ...] = ()  # partial rows no suite row may contain
    seeds: tuple[Assignment, ...] = ()  # partial rows that must appear; free cells are the search's


@dataclass
class Result:
    rows: list[tuple[int, ...]]
    seed_rows: list[int]  # index in `rows` of model.seeds[i]
    start_rows: int  # rows after steps 1-2, before the shrinking search
    allpairspy_rows: int | None  # rows allpairspy gave as the start (None when it was not used)
    steps: int
    history: list[tuple[int, int]] = field(default_factory=list)  # (step, rows) at each improvement
    best_after_s: float = 0.0  # wall seconds until the returned suite was found (information only)


def lower_bound(levels: Sequence[int], strength: int) -> int:
    """No suite can be smaller than the product of the `strength` largest level counts."""
    return math.prod(sorted(levels, reverse=True)[:strength])


class _Rules:
    """The model's constraints: cheap checks on full rows, and whether a partial row can be completed."""

    def __init__(self, levels: Sequence[int], forbids: Iterable[Assignment]) -> None:
        self.levels = tuple(levels)
        self.forbids = tuple(forbids)
        self.by_param: list[list[Assignment]] = [[] for _ in levels]
        for forbid in self.forbids:
            for param, _ in forbid:
                self.by_param[param].append(forbid)

    def breaks(self, row: Sequence[int | None], params: Iterable[int]) -> bool:
        """Does `row` match a forbid that involves one of `params`? (None cells match nothing.)"""
        for param in params:
            for forbid in self.by_param[param]:
                if all(row[p] == v for p, v in forbid):
                    return True
        return False

    def completion(self, partial: Sequence[int | None]) -> list[int] | None:
        """A full row extending `partial` that breaks no forbid (lowest levels first), or None."""
        row = list(partial)
        if any(v is not None and self.breaks(row, [p]) for p, v in enumerate(row)):
            return None
        free = [p for p, v in enumerate(row) if v is None]
        if not self.forbids:
            return [0 if v is None else v for v in row]
        return cast("list[int]", row) if self._fill(row, free, 0) else None  # _fill set every free cell

    def _fill(self, row: list[int | None], free: list[int], i: int) -> bool:
        if i == len(free):
            return True
        param = free[i]
        for value in range(self.levels[param]):
            row[param] = value
            if not self.breaks(row, [param]) and self._fill(row, free, i + 1):
                return True
        row[param] = None
        return False


class _Tuples:
    """Numbering of all t-tuples: tuple id = offset of its parameter combination + mixed-radix value."""

    def __init__(self, levels: Sequence[int], strength: int) -> None:
        self.levels = tuple(levels)
        self.combos = list(itertools.combinations(range(len(levels)), strength))
        self.offsets: list[int] = []
        self.strides: list[tuple[int, ...]] = []
        self.by_param: list[list[tuple[int, int]]] = [[] for _ in levels]  # (combo, stride of param)
        total = 0
        for k, combo in enumerate(self.combos):
            strides = []
            size = 1
            for param in reversed(combo):
                strides.append(size)
                size *= levels[param]
            strides.reverse()
            self.offsets.append(total)
            self.strides.append(tuple(strides))
            for param, stride in zip(combo, strides):
                self.by_param[param].append((k, stride))
            total += size
        self.total = total
        self.combo_of = [0] * total
        for k in range(len(self.combos)):
            end = self.offsets[k + 1] if k + 1 < len(self.combos) else total
            for tid in range(self.offsets[k], end):
                self.combo_of[tid] = k

    def ids(self, row: Sequence[int]) -> list[int]:
        return [off + sum(row[p] * s for p, s in zip(combo, strides))
                for combo, off, strides in zip(self.combos, self.offsets, self.strides)]

    def decode(self, tid: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
        k = self.combo_of[tid]
        rest = tid - self.offsets[k]
        values = []
        for stride in self.strides[k]:
            values.append(rest // stride)
            rest %= stride
        return self.combos[k], tuple(values)


def allowed_tuples(tuples: _Tuples, rules: _Rules) -> bytearray:
    """1 for every tuple some constraint-abiding row can hold."""
    if not rules.forbids:
        return bytearray(b"\x01") * tuples.total
    allowed = bytearray(tuples.total)
    for tid in range(tuples.total):
        params, values = tuples.decode(tid)
        partial: list[int | None] = [None] * len(tuples.levels)
        for p, v in zip(params, values):
            partial[p] = v
        allowed[tid] = rules.completion(partial) is not None
    return allowed


class _Suite:
    """Rows plus, per tuple, how many rows cover it, and the list of allowed tuples nobody covers.

    numpy holds rows x tuple-ids so one search step can price a move in every row at once."""

    def __init__(self, tuples: _Tuples, allowed: bytearray) -> None:
        self.tuples = tuples
        n, k = len(tuples.levels), len(tuples.combos)
        self.allowed = np.frombuffer(bytes(allowed), dtype=np.uint8).astype(bool)
        self.rows = np.zeros((0, n), dtype=np.int64)
        self.row_ids = np.zeros((0, k), dtype=np.int64)
        self.frozen = np.zeros((0, n), dtype=bool)
        # stride_matrix[p, k]: how much combo k's tuple id moves per level of parameter p (0: not in k)
        self.stride_matrix = np.zeros((n, k), dtype=np.int64)
        for p, pairs in enumerate(tuples.by_param):
            for combo, stride in pairs:
                self.stride_matrix[p, combo] = stride
        self.counts = np.zeros(tuples.total, dtype=np.int64)
        self.lonely = np.zeros(tuples.total, dtype=bool)  # allowed and covered by exactly one row
        self.wanted = self.allowed.copy()  # allowed and covered by no row
        self.uncovered: list[int] = []
        self.position = [-1] * tuples.total
        for tid in np.flatnonzero(self.allowed).tolist():
            self._uncover(tid)

    def _uncover(self, tid: int) -> None:
        self.position[tid] = len(self.uncovered)
        self.uncovered.append(tid)

    def _cover(self, tid: int) -> None:
        i = self.position[tid]
        last = self.uncovered.pop()
        if last != tid:
            self.uncovered[i] = last
            self.position[last] = i
        self.position[tid] = -1

    def _add_ids(self, ids: np.ndarray) -> None:
        self.counts[ids] += 1  # ids of one row are distinct (one per combo)
        for tid in ids[(self.counts[ids] == 1) & self.allowed[ids]].tolist():
            self._cover(tid)
        self._refresh(ids)

    def _remove_ids(self, ids: np.ndarray) -> None:
        self.counts[ids] -= 1
        for tid in ids[(self.counts[ids] == 0) & self.allowed[ids]].tolist():
            self._uncover(tid)
        self._refresh(ids)

    def _refresh(self, ids: np.ndarray) -> None:
        counts, allowed = self.counts[ids], self.allowed[ids]
        self.lonely[ids] = (counts == 1) & allowed
        self.wanted[ids] = (counts == 0) & allowed

    def append(self, row: Sequence[int], frozen: Iterable[int] = ()) -> None:
        ids = np.array(self.tuples.ids(row), dtype=np.int64)
        mask = np.zeros(len(row), dtype=bool)
        mask[list(frozen)] = True
        self.rows = np.vstack([self.rows, np.array(row, dtype=np.int64)])
        self.row_ids = np.vstack([self.row_ids, ids])
        self.frozen = np.vstack([self.frozen, mask])
        self._add_ids(ids)

    def pop(self, r: int) -> None:
        self._remove_ids(self.row_ids[r])
        self.rows = np.delete(self.rows, r, axis=0)
        self.row_ids = np.delete(self.row_ids, r, axis=0)
        self.frozen = np.delete(self.frozen, r, axis=0)

    def unique_counts(self) -> np.ndarray:
        """Per row, the allowed tuples only that row covers: what removing it would cost."""
        ids = self.row_ids
        counts: np.ndarray = np.count_nonzero(self.lonely[ids], axis=1)
        return counts

    def price(self, params: Sequence[int], values: Sequence[int]) -> tuple[np.ndarray, np.ndarray]:
        """For every row: the change in uncovered allowed tuples if its `params` cells became
        `values`, and the tuple-id shifts that change means. Rows whose frozen cells would change
        are priced out (a huge number)."""
        cols = list(params)
        diff = np.asarray(values, dtype=np.int64)[None, :] - self.rows[:, cols]
        shift = diff @ self.stride_matrix[cols]
        old = self.row_ids
        # A cell whose tuple does not move is still covered by this row, so it is never `wanted`.
        loss = np.count_nonzero(self.lonely[old] & (shift != 0), axis=1)
        gain = np.count_nonzero(self.wanted[old + shift], axis=1)
        cost = loss - gain
        cost[(self.frozen[:, cols] & (diff != 0)).any(axis=1)] = _PRICED_OUT
        return cost, shift

    def apply(self, r: int, params: Sequence[int], values: Sequence[int], shift: np.ndarray) -> None:
        moved = shift != 0
        old = self.row_ids[r][moved]
        self._remove_ids(old)
        self.row_ids[r] += shift
        self._add_ids(self.row_ids[r][moved])
        self.rows[r, list(params)] = values


def _greedy_fill(partial: list[int | None], suite: _Suite, rules: _Rules, order: list[int]) -> list[int]:
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


def _start(model: Model, strength: int, suite: _Suite, rules: _Rules, rng: random.Random) -> int | None:
    """Steps 1-2: seeds, then allpairspy (t=2), then a greedy row for every tuple left over."""
    n = len(model.levels)
    order = list(range(n))
    for seed in model.seeds:
        partial: list[int | None] = [None] * n
        for p, v in seed:
            partial[p] = v
        suite.append(_greedy_fill(partial, suite, rules, order), [p for p, _ in seed])
    allpairspy_rows = None
    if strength == 2:
        # allpairspy does better with the most-levels parameters first (24 rows instead of 27 on the
        # study's shape), so it sees them in that order and its rows are mapped back.
        ap_order = sorted(range(n), key=lambda p: -model.levels[p])

        def unorder(values: Sequence[int]) -> list[int | None]:
            row: list[int | None] = [None] * n
            for p, v in zip(ap_order, values):
                row[p] = v
            return row

        def keep(values: list[int]) -> bool:  # allpairspy passes growing prefixes of a row
            return not rules.breaks(unorder(values), ap_order[:len(values)])

        seeded = [[row[p] for p in ap_order] for row in suite.rows.tolist()]
        generated = list(AllPairs([list(range(model.levels[p])) for p in ap_order], n=2, filter_func=keep,
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


def _drop_cheapest(suite: _Suite, n_seeds: int) -> None:
    """Remove the non-seed row whose loss uncovers the fewest tuples (the first such row on ties)."""
    costs = suite.unique_counts()[n_seeds:]
    suite.pop(n_seeds + int(np.argmin(costs)))


def _anneal_step(suite: _Suite, rules: _Rules, rng: random.Random, temperature: float, share: float) -> None:
    """Pick an uncovered tuple; among a random share of the rows, rewrite the one where covering it
    costs least (ties broken at random); accept a worse suite with probability exp(-cost/T)."""
    tid = suite.uncovered[rng.randrange(len(suite.uncovered))]
    params, values = suite.tuples.decode(tid)
    cost, shift = suite.price(params, values)
    n_rows = len(cost)
    size = max(1, round(share * n_rows))
    candidates = list(range(n_rows)) if size >= n_rows else rng.sample(range(n_rows), size)
    costs = cost.tolist()
    for r in sorted(candidates, key=lambda row: (costs[row], rng.random())):
        if costs[r] >= _PRICED_OUT:
            return
        if not (rules.forbids and _breaks_after(suite, rules, r, params, values)):
            break
    else:
        return
    d = costs[r]
    if d <= 0 or rng.random() < math.exp(-d / temperature):
        suite.apply(r, params, values, shift[r])


def _breaks_after(suite: _Suite, rules: _Rules, r: int, params: Sequence[int], values: Sequence[int]) -> bool:
    trial: list[int | None] = suite.rows[r].tolist()
    for p, v in zip(params, values):
        trial[p] = v
    return rules.breaks(trial, params)


def generate(model: Model, strength: int = 2, seed: int = 1, max_steps: int = DEFAULT_MAX_STEPS,
             stall_steps: int = DEFAULT_STALL_STEPS, target: int | None = None,
             temperature: float = 1.0, share: float = 0.5) -> Result:
    """A suite covering every allowed `strength`-tuple of `model`, as few rows as the budget finds.

    The search stops after `max_steps` steps, after `stall_steps` steps without a smaller suite, or
    at `target` rows (default: the lower bound). Deterministic for the same arguments."""
    if strength not in (2, 3):
        raise ValueError("strength must be 2 or 3")
    if len(model.levels) < strength:
        raise ValueError(f"strength {strength} needs at least {strength} parameters")
    started = time.perf_counter()
    rng = random.Random(seed)
    rules = _Rules(model.levels, model.forbids)
    tuples = _Tuples(model.levels, strength)
    suite = _Suite(tuples, allowed_tuples(tuples, rules))
    allpairspy_rows = _start(model, strength, suite, rules, rng)
    n_seeds = len(model.seeds)
    best = suite.rows.tolist()
    start_rows = len(best)
    floor = max(target or 0, lower_bound(model.levels, strength), n_seeds, 1)
    history = [(0, start_rows)]
    step = last_gain = 0
    found = time.perf_counter()
    while len(best) > floor and step < max_steps and step - last_gain < stall_steps:
        if not suite.uncovered:
            best = suite.rows.tolist()
            history.append((step, len(best)))
            last_gain, found = step, time.perf_counter()
            _drop_cheapest(suite, n_seeds)
            continue
        _anneal_step(suite, rules, rng, temperature, share)
        step += 1
    if not suite.uncovered and len(suite.rows) < len(best):
        best = suite.rows.tolist()
        history.append((step, len(best)))
        found = time.perf_counter()
    return Result([tuple(row) for row in best], list(range(n_seeds)), start_rows, allpairspy_rows, step, history,
                  found - started)

"""What the covering-array search works on: the model's constraints (which rows are allowed and whether
a partial row can be completed), the numbering of every t-tuple, and a suite of rows that knows, per
tuple, how many rows cover it, so one step can price a change in every row at once (numpy)."""

from __future__ import annotations

import itertools
from typing import Iterable, Sequence, cast

import numpy as np

Assignment = tuple[tuple[int, int], ...]  # ((parameter, level), ...), sorted by parameter

PRICED_OUT = 1 << 40  # the price of a move that would change a frozen (seeded) cell


class Rules:
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


class Tuples:
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


def allowed_tuples(tuples: Tuples, rules: Rules) -> bytearray:
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


class Suite:
    """Rows plus, per tuple, how many rows cover it, and the list of allowed tuples nobody covers.

    numpy holds rows x tuple-ids so one search step can price a move in every row at once."""

    def __init__(self, tuples: Tuples, allowed: bytearray) -> None:
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
        cost[(self.frozen[:, cols] & (diff != 0)).any(axis=1)] = PRICED_OUT
        return cost, shift

    def apply(self, r: int, params: Sequence[int], values: Sequence[int], shift: np.ndarray) -> None:
        moved = shift != 0
        old = self.row_ids[r][moved]
        self._remove_ids(old)
        self.row_ids[r] += shift
        self._add_ids(self.row_ids[r][moved])
        self.rows[r, list(params)] = values

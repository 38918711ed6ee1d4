"""Covering arrays for the pairwise (t=2) and 3-way (t=3) suites: a sound start, then a seeded search.

The model is abstract: parameter i has `levels[i]` values 0..levels[i]-1, and the suite must hold
every *allowed* tuple (t parameters with one value each that some full row breaking no constraint
holds). Generation starts from allpairspy (t=2) or a greedy builder (t=3), seeded rows first; adds a
row for every allowed tuple still uncovered, so the start always covers 100%; then shrinks by
dropping rows and repairing with simulated annealing, because every row is a whole scenario in CI
and the stock generators stop rows above what is reachable. One `random.Random(seed)` and budgets
counted in search steps, never wall-clock time, make the same inputs give the identical suite.
The steps, and why allpairspy is not trusted alone: docs/pairwise.md. This module is the search;
the start is covering_start.py, the rows and their tuple counts covering_suite.py.
"""

from __future__ import annotations

import math
import random
import time
from dataclasses import dataclass, field
from typing import Sequence

import numpy as np

from kcliff.pairwise.covering_start import sound_start
from kcliff.pairwise.covering_suite import PRICED_OUT, Assignment, Rules, Suite, Tuples, allowed_tuples

DEFAULT_MAX_STEPS = 400_000
DEFAULT_STALL_STEPS = 150_000


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


def _drop_cheapest(suite: Suite, n_seeds: int) -> None:
    """Remove the non-seed row whose loss uncovers the fewest tuples (the first such row on ties)."""
    costs = suite.unique_counts()[n_seeds:]
    suite.pop(n_seeds + int(np.argmin(costs)))


def _anneal_step(suite: Suite, rules: Rules, rng: random.Random, temperature: float, share: float) -> None:
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
        if costs[r] >= PRICED_OUT:
            return
        if not (rules.forbids and _breaks_after(suite, rules, r, params, values)):
            break
    else:
        return
    d = costs[r]
    if d <= 0 or rng.random() < math.exp(-d / temperature):
        suite.apply(r, params, values, shift[r])


def _breaks_after(suite: Suite, rules: Rules, r: int, params: Sequence[int], values: Sequence[int]) -> bool:
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
    rules = Rules(model.levels, model.forbids)
    tuples = Tuples(model.levels, strength)
    suite = Suite(tuples, allowed_tuples(tuples, rules))
    allpairspy_rows = sound_start(model.levels, model.seeds, strength, suite, rules, rng)
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

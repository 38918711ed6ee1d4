"""The order of the sides in interleaved rounds: balanced positions, random rounds, reproducible."""

import random
import statistics
from collections import Counter

from kcliff.measure.plan import round_orders


def test_every_round_runs_every_side_once_and_every_side_each_position_equally_often():
    for sides, rounds in ((2, 18), (2, 6), (3, 6), (3, 9), (4, 8)):
        orders = round_orders(sides, rounds, random.Random(7))
        assert len(orders) == rounds
        assert all(sorted(order) == list(range(sides)) for order in orders)
        for position in range(sides):
            assert set(Counter(order[position] for order in orders).values()) == {rounds // sides}


def test_rounds_not_a_multiple_of_the_sides_differ_by_at_most_one_per_position():
    orders = round_orders(2, 5, random.Random(1))
    firsts = Counter(order[0] for order in orders)
    assert sorted(firsts.values()) == [2, 3]


def test_the_same_seed_gives_the_same_orders_and_other_seeds_other_ones():
    assert round_orders(2, 18, random.Random(42)) == round_orders(2, 18, random.Random(42))
    assert len({str(round_orders(2, 18, random.Random(seed))) for seed in range(20)}) == 20


def side_contrast(orders: list[list[int]], slowness) -> float:
    """Mean slowness of side 1's runs minus side 0's, the runs numbered in the order they ran."""
    per_side: dict[int, list[float]] = {0: [], 1: []}
    for j, side in enumerate(side for order in orders for side in order):
        per_side[side].append(slowness(j))
    return statistics.mean(per_side[1]) - statistics.mean(per_side[0])


def test_a_slowdown_that_comes_back_every_four_runs_does_not_side_with_one_side():
    # Slow in runs 1-2 of every 4: A B, B A alternation puts side 1 in exactly those runs, every time.
    def slowness(j):
        return 1.0 if j % 4 in (1, 2) else -1.0
    alternating = [[0, 1] if i % 2 == 0 else [1, 0] for i in range(18)]
    assert side_contrast(alternating, slowness) == 2.0
    contrasts = [side_contrast(round_orders(2, 18, random.Random(seed)), slowness) for seed in range(500)]
    assert abs(statistics.mean(contrasts)) < 0.1
    assert sum(abs(c) >= 1.0 for c in contrasts) < 50  # 1 check in 10 at most half as exposed, not all fully
